// Asking for the table PIN again on the page, when a change finds the session lapsed (the table
// restarted, or the PIN changed): a fresh session token first, then the PIN, then the page reloads.

import { t } from "./i18n.js";

// A fresh CSRF token for this page, after the table restarted and forgot the old session: any page
// of the site hands one out with a new session cookie.
async function renewToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  const response = await fetch(window.location.pathname, { credentials: "same-origin" });
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  meta.content = page.querySelector('meta[name="csrf-token"]').content;
  return meta.content;
}

export function askForPin() {
  const dialog = document.getElementById("pin-again");
  if (!dialog || dialog.open) return;
  dialog.showModal();
  dialog.querySelector("input[name=pin]").focus();
}

async function send(form) {
  const error = form.querySelector(".error");
  const pin = form.elements.pin;
  if (!pin.checkValidity()) {
    error.textContent = t("form.pattern");
    return;
  }
  const body = new URLSearchParams({ [form.dataset.field]: await renewToken(), pin: pin.value, next: form.dataset.next });
  const response = await fetch(form.dataset.action, { method: "POST", body, credentials: "same-origin" });
  if (response.status === 429) error.textContent = t("pin.wait", { seconds: response.headers.get("Retry-After") ?? "?" });
  else if (!response.ok) error.textContent = t("pin.wrong");
  else window.location.reload();
}

export function watchSession() {
  const form = document.getElementById("pin-again-form");
  if (!form || form.dataset.watched) return;
  form.dataset.watched = "1";
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send(form);
  });
  document.getElementById("pin-again-close").addEventListener("click", () => form.closest("dialog").close());
  document.addEventListener("companion:pin-needed", askForPin);
}
