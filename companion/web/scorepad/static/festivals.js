// The festival pad's forms: a custom festival of any events, and a history file read into a fresh table.

import { errorText, postJSON } from "/static/js/api.js";
import { enhance, showError } from "/static/js/forms.js";
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
  const answer = await postJSON(historyForm.dataset.api, { history: await file.text() });
  if (!answer.ok) {
    showError(historyForm, "history", errorText(answer.data));
    return;
  }
  status.textContent = t("history.imported", { shows: answer.data.imported.show });
  window.location.reload();
});

// Ready: a submit before now would have gone to the page as a plain form.
for (const form of [festivalForm, historyForm, ...deleteForms]) if (form) form.dataset.ready = "yes";
