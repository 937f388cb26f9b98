// Updating the program: the release file goes to the table in pieces; the table checks it whole and hands it
// to its update service, which installs it and restarts the table. The page follows the update's status
// through that restart (its answer is open to look at: the session ends with the daemon).

import { whileBusy } from "/static/js/busy.js";
import { ready } from "/static/js/forms.js";
import { loadMessages, t } from "/static/js/i18n.js";
import { sendInPieces } from "./pieces.js";

await loadMessages();

const form = document.getElementById("update-form");
const status = document.getElementById("update-status");
const FINISHED = new Set(["done", "rolled_back", "refused"]);
const POLL_MS = 3000; // an update takes minutes on a Pi: a look every few seconds is plenty

function show(versions) {
  document.getElementById("version-running").textContent = versions.running ?? t("maintenance.no_release");
  document.getElementById("version-previous").textContent = versions.previous ?? t("maintenance.no_release");
  const update = versions.update;
  if (!update) return;
  const said = t(`maintenance.state.${update.state}`, { release: update.release ?? "", line: update.line });
  status.textContent = versions.queued ? `${said} ${t("maintenance.queued")}` : said;
}

async function follow(release) {
  for (;;) {
    await new Promise((done) => { setTimeout(done, POLL_MS); });
    try {
      const response = await fetch(form.dataset.api, { cache: "no-store", credentials: "same-origin" });
      if (!response.ok) continue; // restarting
      const versions = await response.json();
      show(versions);
      if (versions.update?.release === release && FINISHED.has(versions.update.state)) return;
    } catch {
      // the table is restarting on the new release
    }
  }
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const file = form.elements.file.files[0];
  if (!file) return;
  await whileBusy(form.querySelector("button"), async () => {
    const answer = await sendInPieces(form, file, status);
    if (answer.error) {
      status.textContent = answer.error;
      return;
    }
    status.textContent = t("maintenance.state.waiting", { release: answer.release, line: "" });
    await follow(answer.release);
  });
});
ready(form); // a submit before now would have gone to the page as a plain form
