// Restoring a backup: the file goes to the table in pieces (no body may be larger than the API's limit),
// the first saying the whole size; the table checks it whole, then restarts on it.

import { errorText } from "/static/js/api.js";
import { ready } from "/static/js/forms.js";
import { loadMessages, t } from "/static/js/i18n.js";

await loadMessages();

const form = document.getElementById("restore-form");
const status = document.getElementById("restore-status");
const csrf = document.querySelector('meta[name="csrf-token"]').content;
const PIECE = Number(form.dataset.piece);

async function send(file) {
  const parts = Math.max(1, Math.ceil(file.size / PIECE));
  let upload = null;
  for (let part = 1; part <= parts; part += 1) {
    const query = new URLSearchParams({ part, parts, size: file.size });
    if (upload) query.set("upload", upload);
    const body = await file.slice((part - 1) * PIECE, part * PIECE).arrayBuffer();
    let response;
    try {
      response = await fetch(`${form.dataset.api}?${query}`, {
        method: "POST", credentials: "same-origin", body,
        headers: { "Content-Type": "application/octet-stream", "X-CSRF-Token": csrf },
      });
    } catch {
      // The last piece's answer can be cut short by the restart it starts.
      return part === parts ? { restart: true } : { error: t("live.offline") };
    }
    const data = await response.json().catch(() => ({ error: response.statusText }));
    if (!response.ok) return { error: errorText(data) };
    upload = data.upload ?? upload;
    status.textContent = t("maintenance.sending", { percent: Math.round((100 * part) / parts) });
    if (part === parts) return data;
  }
  return {};
}

async function backAgain() {
  for (;;) {
    await new Promise((done) => { setTimeout(done, 2000); });
    try {
      if ((await fetch("/", { cache: "no-store" })).ok) break;
    } catch {
      // still restarting
    }
  }
  window.location.assign("/");
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const file = form.elements.file.files[0];
  if (!file) return;
  form.querySelector("button").disabled = true;
  const answer = await send(file);
  form.querySelector("button").disabled = false;
  const kept = answer.config === "kept" ? ` ${t("maintenance.config_kept")}` : "";
  if (answer.error) {
    status.textContent = answer.error;
  } else if (answer.restart) {
    status.textContent = t("maintenance.restarting") + kept;
    backAgain();
  } else {
    status.textContent = t("maintenance.next_start") + kept;
  }
});
ready(form); // a submit before now would have gone to the page as a plain form
