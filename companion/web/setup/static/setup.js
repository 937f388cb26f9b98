// The setup page: sends the settings (the table judges them and names the key it refuses), shows
// every glass live for the wiring check, lights the strip's parts and beeps on a tap, times a glass.

import { isBusy, whileBusy } from "/static/js/busy.js";
import { formBody, ready, showError } from "/static/js/forms.js";
import { errorText, getJSON, postJSON } from "/static/js/api.js";
import { listen } from "/static/js/listen.js";
import { faultText, listed, loadMessages, named, t, timerName } from "/static/js/i18n.js";

// The catalog is awaited only where words are shown: the settings form is shown, and listens, while its
// words are still on their way (a quick hand chose a source before, and its pins did not follow).
const catalog = loadMessages();

const POLL_MS = 400; // the live readout: quick enough to follow a hand turning a glass

// ---- settings ------------------------------------------------------------------------------

// "4, 5" -> [4, 5]; a part that is not a number goes as it is, for the table to name.
function pinList(text) {
  return text.split(/[\s,]+/).filter(Boolean).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

// The config section each source has of its own (an option's data-section, from the kind's description).
function sectionOf(form, source) {
  return form.querySelector(`select[name$=".source"] option[value="${CSS.escape(source)}"]`)?.dataset.section;
}

function settingsBody(form) {
  const body = formBody(form);
  for (const timer of Object.values(body.timers)) timer.pins = pinList(timer.pins);
  // A source's own section on the form (the hub's port), left empty with no glass on that source: the file's
  // section is left as it is.
  for (const box of form.querySelectorAll("[data-section]")) {
    const section = box.dataset.section;
    const used = Object.values(body.timers).some((timer) => sectionOf(form, timer.source) === section);
    if (!used && Object.values(body[section] ?? {}).every((value) => !String(value).trim())) delete body[section];
  }
  return body;
}

// The table's refusal after the page's "not saved": in the page's language, or, without a sentence of its
// own, in the table's words (the same line `companion run` prints).
function refusal(data) {
  return `${t("setup.not_saved")} ${data.code === "errors.bad_input" ? data.error : errorText(data)}`;
}

function clearMessages(root) {
  for (const slot of root.querySelectorAll(".error")) slot.textContent = "";
  for (const el of root.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
}

const settingsForm = document.getElementById("settings-form");

// A glass's pins follow its source: each source reads as many of the pin map's pins as its kind says (a tilt
// cradle two switches, an LED glass one flip button), given on its option. A field still holding the pin
// map's pins for the old source takes the new source's; pins typed by hand stay.
for (const select of settingsForm.querySelectorAll('select[name$=".source"]')) {
  select.addEventListener("change", () => {
    const glass = select.closest(".setup-glass");
    const input = glass.querySelector("input[data-pins]");
    const wanted = select.selectedOptions[0].dataset.pins;
    const mapped = [...select.options].map((option) => option.dataset.pins).concat("").includes(input.value.trim());
    if (mapped) input.value = wanted;
    catalog.then(() => { glass.querySelector(".help").textContent = t("setup.pin_map", { pins: wanted }); });
  });
}
settingsForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = document.getElementById("save-settings");
  if (isBusy(button)) return;
  clearMessages(settingsForm);
  const answer = await whileBusy(button, () => postJSON(settingsForm.dataset.api, settingsBody(settingsForm)));
  if (answer.ok) {
    window.location.assign(`${window.location.pathname}?saved=1#wiring`);
    return;
  }
  await catalog;
  showError(settingsForm, answer.data.field ?? "", refusal(answer.data));
  const named = settingsForm.querySelector(`[name="${CSS.escape(answer.data.field ?? "")}"]`);
  named?.setAttribute("aria-invalid", "true");
  named?.focus();
});
ready(settingsForm); // from now on a change is followed and a tap sent here
await catalog;

// ---- the wiring check ----------------------------------------------------------------------

const wiringError = document.getElementById("wiring-error");
const wiringStatus = document.getElementById("wiring-status");

function poseText(pose) {
  return pose ? t(`setup.pose.${pose}`) : "–";
}

// A glass in the words its kind gives (glass.kind): its switches' states, and its pose or what it reads instead.
function showGlass(glass) {
  const row = document.getElementById(`wire-${glass.colour}`);
  if (!row) return;
  const switches = row.querySelector(".switches");
  const [open, closed] = glass.kind.switch_words;
  switches.replaceChildren(...glass.switches.map((s) => {
    const span = document.createElement("span");
    span.className = s.closed ? "closed" : "open";
    span.textContent = `GPIO ${s.pin}${t("join.colon")}${t(s.closed ? closed : open)}`;
    return span;
  }));
  if (!glass.switches.length) switches.textContent = t(glass.kind.label);
  row.querySelector(".pose").textContent = glass.kind.reads_word ? t(glass.kind.reads_word) : poseText(glass.pose);
  row.querySelector(".fault").textContent = glass.fault ? t("setup.fault", { fault: faultText(glass) }) : "";
  row.dataset.pose = glass.pose ?? "";
}

// One line a kind of sensor says of itself: a catalogue code with its values, some of them codes (`words`),
// and a fault if the line has one.
function statusLine(line) {
  const words = Object.fromEntries(Object.entries(line.words ?? {}).map(([name, code]) => [name, t(code)]));
  const text = t(line.code, { ...named(line.params), ...words });
  return line.fault ? `${text} — ${faultText(line)}` : text;
}

// Each kind's status box (the hub's hello and channels): shown while the kind has something to say.
function showStatuses(live) {
  for (const box of document.querySelectorAll("[data-status]")) {
    const status = live[box.dataset.status];
    box.hidden = !status;
    if (status) box.querySelector(".lines").textContent = status.lines.map(statusLine).join(" · ");
  }
}

function partName(part) {
  if (part.kind === "segment") return t("setup.part_segment", { timer: timerName(part.colour) });
  return t(`setup.part.${part.kind}`);
}

let partsDrawn = false;
function showParts(parts) {
  const box = document.getElementById("strip-parts");
  if (!box || !parts || partsDrawn) return;
  partsDrawn = true;
  box.replaceChildren(...parts.map((part) => {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.part = String(part.part);
    button.style.setProperty("--part", part.swatch);
    button.textContent = partName(part);
    button.addEventListener("click", async () => {
      wiringError.textContent = "";
      const answer = await postJSON("/api/setup/wiring/strip", { part: part.part });
      if (answer.ok) wiringStatus.textContent = t("setup.part_lit", { part: partName(part), first: part.leds[0], last: part.leds[1] });
      else wiringError.textContent = errorText(answer.data);
    });
    return button;
  }));
}

listen(document.getElementById("beep"), async () => {
  wiringError.textContent = "";
  const answer = await postJSON("/api/setup/wiring/buzzer");
  if (answer.ok) wiringStatus.textContent = t("setup.beeped", { pin: answer.data.pin });
  else wiringError.textContent = errorText(answer.data);
});

// ---- timing a glass ------------------------------------------------------------------------

const timingBox = document.getElementById("timing-box");
const timingError = document.getElementById("timing-error");
const timingSave = document.getElementById("timing-save");

function seconds(value) {
  return value == null ? "–" : t("setup.seconds", { s: value.toFixed(2) });
}

function showTiming(timing) {
  timingBox.hidden = !timing;
  if (!timing) return;
  for (const way of ["a_up", "b_up"]) {
    const row = document.getElementById(`timing-${way}`);
    row.querySelector(".runs").textContent = listed(timing.runs[way].map(seconds)) || "–";
    row.querySelector(".median").textContent = seconds(timing.median?.[way]);
  }
  const state = timing.done ? "setup.timing_done" : timing.started ? "setup.timing_running" : "setup.timing_waiting";
  const told = timing.sensed || timing.done ? "" : "_tap"; // the player taps Turned as they turn the glass
  document.getElementById("timing-state").textContent = t(state + told, { timer: timerName(timing.timer), n: timing.runs_each_way });
  document.getElementById("timing-turn").hidden = timing.sensed || timing.done;
  timingSave.disabled = !timing.median;
}

document.getElementById("timing-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  timingError.textContent = "";
  document.getElementById("timing-saved").textContent = "";
  const { timer, runs } = formBody(event.target);
  const answer = await postJSON("/api/setup/timing", { timer, runs });
  if (answer.ok) showTiming(answer.data.timing);
  else timingError.textContent = refusal(answer.data);
});
document.getElementById("timing-start").disabled = false; // a tap before now reloaded the page

timingSave.addEventListener("click", async () => {
  timingError.textContent = "";
  const answer = await postJSON("/api/setup/timing/save");
  if (answer.ok) {
    const { a_up: aUp, b_up: bUp } = typeof answer.data.duration === "number"
      ? { a_up: answer.data.duration, b_up: answer.data.duration } : answer.data.duration;
    document.getElementById("timing-saved").textContent = t("setup.timing_saved",
      { timer: timerName(answer.data.timer), a: aUp.toFixed(2), b: bUp.toFixed(2) });
    timingBox.hidden = true;
  } else {
    timingError.textContent = refusal(answer.data);
  }
});

document.getElementById("timing-turn").addEventListener("click", async () => {
  timingError.textContent = "";
  const answer = await postJSON("/api/setup/timing/turn");
  if (answer.ok) showTiming(answer.data.timing);
  else timingError.textContent = refusal(answer.data);
});

// Cancel: nothing kept; the focus back on the glass picker, where a new timing starts.
document.getElementById("timing-cancel").addEventListener("click", async () => {
  timingError.textContent = "";
  const answer = await postJSON("/api/setup/timing/cancel");
  if (!answer.ok) {
    timingError.textContent = refusal(answer.data);
    return;
  }
  showTiming(null);
  document.getElementById("timing-timer").focus();
});

// ---- finishing -----------------------------------------------------------------------------

const finish = document.getElementById("finish-setup");
listen(finish, async () => {
  const answer = await postJSON(finish.dataset.api);
  if (answer.ok) window.location.assign(answer.data.next);
  else document.getElementById("finish-error").textContent = errorText(answer.data);
});

// ---- the live readout ----------------------------------------------------------------------

async function poll() {
  if (document.hidden) { // a phone in a pocket asks nothing; it catches up when shown again
    setTimeout(poll, POLL_MS);
    return;
  }
  try {
    const [live, timing] = await Promise.all([getJSON("/api/setup/wiring"), getJSON("/api/setup/timing")]);
    for (const glass of live.glasses) showGlass(glass);
    showStatuses(live);
    showParts(live.strip);
    if (timing.timing) showTiming(timing.timing);
  } catch {
    // a lost network or a finished setup: the next round tries again
  }
  setTimeout(poll, POLL_MS);
}

poll();
