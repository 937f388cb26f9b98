// Forms that talk to the JSON API. Each field is checked here by the server's own limits (carried
// in the form's attributes) so mistakes show at once; the server stays the judge, and any error it
// answers appears next to the field it names, and is heard: the field is focused, or the slot is live.

import { errorText, postJSON } from "./api.js";
import { isBusy, whileBusy } from "./busy.js";
import { t } from "./i18n.js";

// The named controls as a JSON body: "a.b" names nest, numbers stay numbers, checkboxes are booleans.
export function formBody(form) {
  const body = {};
  for (const el of form.elements) {
    if (!el.name || el.disabled || (el.type === "radio" && !el.checked)) continue;
    if (el.type === "number" && el.value === "") continue;
    const value = el.type === "checkbox" ? el.checked : el.type === "number" ? Number(el.value) : el.value;
    const path = el.name.split(".");
    let node = body;
    for (const key of path.slice(0, -1)) node = node[key] ??= {};
    node[path.at(-1)] = value;
  }
  return body;
}

// What is wrong with one control, in the page's language ("" when nothing is).
function problem(el) {
  const v = el.validity;
  const text = typeof el.value === "string" && el.type !== "checkbox" && el.type !== "radio";
  if (v.valueMissing || (el.required && text && !el.value.trim())) return t("form.missing");
  if (v.badInput) return t("form.number");
  if (v.stepMismatch) return el.step === "1" ? t("form.whole") : t("form.step", { step: el.step });
  if (v.rangeUnderflow || v.rangeOverflow) return t("form.range", { min: el.min, max: el.max });
  if (v.tooLong || (el.maxLength > 0 && el.value.length > el.maxLength)) return t("form.too_long", { max: el.maxLength });
  if (v.patternMismatch) return t("form.pattern");
  return "";
}

// The error slot for a field: the one whose data-error-for names it or the part of it that is closest.
function slotFor(form, field) {
  let best = null;
  let bestLength = -1;
  for (const slot of form.querySelectorAll("[data-error-for]")) {
    for (const name of slot.dataset.errorFor.split(" ")) {
      const hit = name === "" || field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`);
      if (hit && name.length > bestLength) [best, bestLength] = [slot, name.length];
    }
  }
  return best;
}

// The control a slot describes (aria-describedby names the slot), or null.
const describedBy = (form, slot) => (slot.id ? form.querySelector(`[aria-describedby~="${slot.id}"]`) : null);

// Writes `message` in the field's slot; returns the control it marks invalid, or null.
export function showError(form, field, message) {
  const slot = slotFor(form, field);
  if (!slot) return null;
  slot.textContent = slot.textContent ? `${slot.textContent} ${message}` : message;
  const control = describedBy(form, slot);
  control?.setAttribute("aria-invalid", "true");
  return control;
}

// The first refused control takes the focus, so its message (aria-describedby) is read with it.
function showErrors(form, problems) {
  const [control] = problems.map(([field, message]) => showError(form, field, message)).filter(Boolean);
  if (control?.matches("fieldset")) control.querySelector("input, select, textarea")?.focus(); // its first choice
  else control?.focus();
}

// Slots that describe no control are live: their message is read as it appears.
function announceLoneSlots(form) {
  for (const slot of form.querySelectorAll("[data-error-for]")) {
    if (!describedBy(form, slot) && !slot.hasAttribute("role")) slot.setAttribute("role", "alert");
  }
}

function clearMessages(form) {
  for (const slot of form.querySelectorAll("[data-error-for], .done")) slot.textContent = "";
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
}

// From now on `form` is worked by its script: it is shown (site.css hides it till then) and its submit
// buttons are on. They start off, so a tap before now is not sent to the page as a plain GET, even by a
// page whose stylesheet is still on its way.
export function ready(form) {
  form.dataset.ready = "";
  for (const button of form.querySelectorAll("button")) if (button.type === "submit") button.disabled = false;
}

// Send `form` to its data-api URL as JSON. `shape` may turn the raw body into the API's
// ({body(raw), check(body, form) -> [[field, message]]}); `done(data)` gets the answer.
export function enhance(form, { shape, done } = {}) {
  announceLoneSlots(form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector('[type="submit"]');
    if (isBusy(button)) return; // sent once already: its answer is still on its way
    clearMessages(form);
    const fieldProblems = [...form.elements].filter((el) => el.willValidate && el.name)
      .map((el) => [el, problem(el)]).filter(([, message]) => message);
    for (const [el, message] of fieldProblems) showError(form, el.name, message);
    if (fieldProblems.length) {
      fieldProblems[0][0].focus();
      return;
    }
    const raw = formBody(form);
    const body = shape ? shape.body(raw) : raw;
    const ruleProblems = shape?.check ? shape.check(body, form) : [];
    showErrors(form, ruleProblems);
    if (ruleProblems.length) return;
    const answer = await whileBusy(button, () => postJSON(form.dataset.api, body));
    if (answer.ok) done?.(answer.data, form);
    else showErrors(form, [[answer.data.field ?? "", errorText(answer.data)]]);
  });
  ready(form);
}
