// The festival pad's forms: a custom festival of any events, and a history file read into a fresh table.

import { errorText, postJSON } from "/static/js/api.js";
import { enhance, ready, showError } from "/static/js/forms.js";
import { loadMessages, t } from "/static/js/i18n.js";

await loadMessages();

const festivalShape = {
  body: ({ name, events }) => ({ name: name.trim(), events: events.split(/[\s,、]+/).filter(Boolean) }),
};
const festivalForm = document.getElementById("festival-form");
if (festivalForm) enhance(festivalForm, { shape: festivalShape, done: () => window.location.reload() });

const deleteForms = [...document.querySelectorAll(".festival-delete")];
for (const form of deleteForms) enhance(form, { done: () => window.location.reload() });

const historyForm = document.getElementById("history-form");
const IMPORTED = "history-imported"; // the session's note of an import just done, for the reloaded page
// The upload this page is sending: the table names it in its answer to the first piece, and every later
// piece carries it, so another phone's file is never spliced into ours. Kept for a retry of our own.
let upload = null;
historyForm?.addEventListener("submit", async (event) => {
  event.preventDefault();
  const status = document.getElementById("history-status");
  for (const slot of historyForm.querySelectorAll("[data-error-for]")) slot.textContent = "";
  status.textContent = "";
  const file = historyForm.elements.file.files[0];
  if (!file) {
    showError(historyForm, "history", t("form.missing"));
    return;
  }
  const maxBytes = Number(historyForm.dataset.maxBytes);
  if (file.size > maxBytes) { // the table would refuse it: say so before sending any of it
    showError(historyForm, "history", t("history.refused.too_large", { mib: maxBytes / 2 ** 20 }));
    return;
  }
  const parts = pieces(await file.text(), Number(historyForm.dataset.piece));
  let answer;
  for (const [i, piece] of parts.entries()) {
    const percent = Math.floor((100 * i) / parts.length);
    status.textContent = parts.length > 1 ? t("history.sending", { percent }) : "";
    answer = await postJSON(historyForm.dataset.api, { history: piece, part: i + 1, parts: parts.length, upload });
    if (answer.ok && answer.data.upload) upload = answer.data.upload;
    if (!answer.ok) {
      status.textContent = "";
      showError(historyForm, "history", errorText(answer.data));
      return;
    }
  }
  // The page reloads to show the imported pad; the confirmation is carried across and said once it is back.
  sessionStorage.setItem(IMPORTED, t(answer.data.imported.show === 1 ? "history.imported_one" : "history.imported",
    { shows: answer.data.imported.show }));
  window.location.reload();
});

const confirmed = sessionStorage.getItem(IMPORTED);
if (confirmed && historyForm) {
  sessionStorage.removeItem(IMPORTED);
  document.getElementById("history-status").textContent = confirmed;
  document.getElementById("history").scrollIntoView({ block: "nearest" });
}

// A file's text in pieces of at most `length` UTF-16 units (a body is small, a history need not be),
// never splitting a character in two; an empty file is one empty piece, for the table to refuse.
function pieces(text, length) {
  const found = [];
  for (let start = 0; start < text.length || !found.length; ) {
    let end = Math.min(start + length, text.length);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end -= 1; // the first half of a pair: keep them together
    found.push(text.slice(start, end));
    start = end;
  }
  return found;
}

if (historyForm) ready(historyForm); // the others were made ready by enhance()
