// The page's messages: the same catalog the server's templates use, loaded once per page.

let messages = {};

export async function loadMessages() {
  const response = await fetch(document.documentElement.dataset.catalog);
  messages = await response.json();
}

// The message `key` with {name} slots filled from `params` (the server fills them by the same rule).
export function t(key, params = {}) {
  const text = messages[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (slot, name) => (name in params ? String(params[name]) : slot));
}

// Whether the catalog has a message for `key`.
export function known(key) {
  return key in messages;
}

export function timerName(colour) {
  return t(`timer.${colour}`);
}

// A built-in event's name in the page's language; the players' own events as they named them.
export function eventName(event) {
  const key = `events.${event.id}`;
  return key in messages ? messages[key] : event.name;
}
