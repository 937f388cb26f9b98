// Talking to the table's JSON API from a page: the session's CSRF token goes along with every change,
// errors come back in the page's language, and a lapsed session (the table restarted) asks for the PIN.

import { known, refusalMessage, t } from "./i18n.js";
import { watchSession } from "./pin-again.js";

const csrfMeta = document.querySelector('meta[name="csrf-token"]');
const LAPSED = new Set(["errors.pin_needed", "errors.csrf"]); // a page's session no longer holds the PIN

// POST a JSON body; resolves to {ok, status, data} and never throws (a lost network is status 0).
export async function postJSON(url, body = {}) {
  try {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfMeta.content },
      body: JSON.stringify(body),
    });
    let data = await response.json().catch(() => ({ error: response.statusText }));
    // A page never sends the PIN header, so any 403 means its session has lapsed: ask for the PIN again.
    if (response.status === 403 || LAPSED.has(data.code)) {
      if (!known(data.code)) data = { ...data, code: "pin_again.title" };
      document.dispatchEvent(new CustomEvent("companion:pin-needed"));
    }
    return { ok: response.ok, status: response.status, data };
  } catch {
    return { ok: false, status: 0, data: { error: t("live.offline"), code: "live.offline" } };
  }
}

export async function getJSON(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.json();
}

// An error answer as the page shows it: its code's sentence in the page's language, filled with its params
// (the field path in `error` is for scripts); else the table's words.
export function errorText(data) {
  if (data?.code && known(data.code)) return refusalMessage(data.code, { field: data.field ?? "", ...data.params });
  return data?.error ?? t("error.other");
}

watchSession();
