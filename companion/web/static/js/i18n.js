// The page's messages: the site's and its area's (data-catalog names them), loaded once per page.

let messages = {};
const MISSING = "Message missing from the page's catalog:"; // the pages' tests look for this

export async function loadMessages() {
  const response = await fetch(document.documentElement.dataset.catalog);
  messages = await response.json();
}

// The message `key` with {name} slots filled from `params` (the server fills them by the same rule).
// A key the page's catalog lacks shows as itself and is reported, so the pages' tests see it.
export function t(key, params = {}) {
  if (!(key in messages)) console.error(`${MISSING} ${key}`);
  const text = messages[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (slot, name) => (name in params ? String(params[name]) : slot));
}

// Items joined as the page's language lists them ("a, b"; "a、b"): a sentence built of parts takes its joiners
// (join.sep, join.colon, join.open, join.close) from the catalog, never from code.
export const listed = (items) => items.join(t("join.sep"));
export const aside = (text, note) => `${text}${t("join.open")}${note}${t("join.close")}`;

// A sentence that opens with one of the catalog's own words starts with a capital ("Female red kite cannot fly
// now"); a name or an id the players typed is never changed. A script without case (Japanese) is left as it is.
export const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// Whether the catalog has a message for `key`.
export function known(key) {
  return key in messages;
}

// Params naming a colour, a species or a suit are shown by the catalog's word for it.
const KINDS = { colour: "timer.", timer: "timer.", species: "flock.species.", suit: "geese.suit." };
export const named = (params = {}) => Object.fromEntries(Object.entries(params)
  .map(([name, value]) => [name, (KINDS[name] && messages[KINDS[name] + value]) ?? value]));

// A refusal's message by its code, its colours, species and suits in the catalog's words: one that opens with such
// a word starts with a capital ("Red is lying already"), one that opens with a typed name or id as typed.
export function refusalMessage(key, params = {}) {
  const text = t(key, named(params));
  return KINDS[messages[key]?.match(/^\{(\w+)\}/)?.[1]] ? sentence(text) : text;
}

// A glass's sensor fault in the page's language, else the table's words.
export const faultText = (s) => (known(s.fault_code) ? t(s.fault_code, named(s.fault_params)) : s.fault);

export function timerName(colour) {
  return t(`timer.${colour}`);
}

// A built-in event's name in the page's language; the players' own events as they named them.
export function eventName(event) {
  const key = `events.${event.id}`;
  return key in messages ? messages[key] : event.name;
}
