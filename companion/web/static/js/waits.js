// How long a page waits before it asks for a live stream again (follow.js): pure, so a test can ask.

// After `failures` failed opens in a row: from `first` doubling up to `cap`, each wait somewhere between
// half and all of that (`random` in [0, 1)), so phones that lost the table at once come back apart.
export function backoffMs(failures, first, cap, random = Math.random()) {
  const wait = Math.min(cap, first * 2 ** Math.max(0, failures - 1));
  return wait / 2 + random * (wait / 2);
}

// What a refusal's Retry-After asks for, in ms from `now` (ms since the epoch): whole seconds or an
// HTTP date; `otherwise` when it says neither.
export function retryAfterMs(header, now, otherwise) {
  const said = (header ?? "").trim();
  if (/^\d+$/.test(said)) return Number(said) * 1000;
  const date = said ? Date.parse(said) : NaN;
  return Number.isNaN(date) ? otherwise : Math.max(0, date - now);
}
