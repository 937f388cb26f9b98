// Restoring a backup: the file goes to the table in pieces; the table checks it whole, then restarts on it.

import { whileBusy } from "/static/js/busy.js";
import { ready } from "/static/js/forms.js";
import { loadMessages, t } from "/static/js/i18n.js";
import { sendInPieces } from "./pieces.js";

await loadMessages();

const form = document.getElementById("restore-form");
const status = document.getElementById("restore-status");

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
  const answer = await whileBusy(form.querySelector("button"), () => sendInPieces(form, file, status));
  if (!answer) return; // a second tap while the first file is on its way
  const kept = answer.config === "kept" ? ` ${t("maintenance.config_kept")}` : "";
  if (answer.error) {
    status.textContent = answer.error;
  } else if (answer.restart || answer.cut) {
    status.textContent = t("maintenance.restarting") + kept;
    backAgain();
  } else {
    status.textContent = t("maintenance.next_start") + kept;
  }
});
ready(form); // a submit before now would have gone to the page as a plain form
