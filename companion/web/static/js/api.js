// Talking to the table's JSON API from a page: the session's CSRF token goes along with every change.

import { t } from "./i18n.js";

const csrf = document.querySelector('meta[name="csrf-token"]').content;

// POST a JSON body; resolves to {ok, status, data} and never throws (a lost network is status 0).
export async function postJSON(url, body = {}) {
  try {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({ error: response.statusText }));
    return { ok: response.ok, status: response.status, data };
  } catch {
    return { ok: false, status: 0, data: { error: t("live.offline") } };
  }
}

export async function getJSON(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.json();
}
