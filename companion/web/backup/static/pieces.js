// A file sent to the table in pieces (no body may be larger than the API's limit), the first saying the
// whole size, each later one carrying the upload's id: a backup to restore, a release to install.

import { errorText } from "/static/js/api.js";
import { t } from "/static/js/i18n.js";

const csrf = document.querySelector('meta[name="csrf-token"]').content;

// The last answer's data, { error } when the table refused, or { cut: true } when the last answer was cut
// short (by the restart a restore starts).
export async function sendInPieces(form, file, status) {
  const piece = Number(form.dataset.piece);
  const parts = Math.max(1, Math.ceil(file.size / piece));
  let upload = null;
  for (let part = 1; part <= parts; part += 1) {
    const query = new URLSearchParams({ part, parts, size: file.size });
    if (upload) query.set("upload", upload);
    const body = await file.slice((part - 1) * piece, part * piece).arrayBuffer();
    let response;
    try {
      response = await fetch(`${form.dataset.api}?${query}`, {
        method: "POST", credentials: "same-origin", body,
        headers: { "Content-Type": "application/octet-stream", "X-CSRF-Token": csrf },
      });
    } catch {
      return part === parts ? { cut: true } : { error: t("live.offline") };
    }
    const data = await response.json().catch(() => ({ error: response.statusText }));
    if (!response.ok) return { error: errorText(data) };
    upload = data.upload ?? upload;
    status.textContent = t("maintenance.sending", { percent: Math.round((100 * part) / parts) });
    if (part === parts) return data;
  }
  return {};
}
