// The live show for a page that shows it: every change as it happens, from the stream every page follows.
// EventSource reconnects by itself (sending Last-Event-ID). A refused stream (every slot taken, 503)
// falls back to polling: the page reads the show once per retry, so it stays current, only slower.
// The server says how often on every page (SSE_REFUSED_RETRY_MS, its Retry-After for a refused stream).

const RETRY_MS = Number(document.body.dataset.liveRetryMs);

// accept(state, {gap}) gets every state; `gap` on the first since the stream was down (or not yet up): it
// may sum up changes the page never saw. `banner` is shown while the stream is down.
export function followShow(accept, banner) {
  const stream = new EventSource("/api/show/events");
  let gap = true;
  stream.addEventListener("state", (event) => {
    accept(JSON.parse(event.data), { gap });
    gap = false;
  });
  stream.addEventListener("open", () => { banner.hidden = true; });
  stream.addEventListener("error", () => {
    banner.hidden = false;
    gap = true;
    if (stream.readyState !== EventSource.CLOSED) return;
    fetch("/api/show", { headers: { Accept: "application/json" } })
      .then((answer) => (answer.ok ? answer.json() : null))
      .then((state) => { if (state) accept(state, { gap: true }); })
      .catch(() => {})
      .finally(() => setTimeout(() => followShow(accept, banner), RETRY_MS));
  });
}

// Write a live region (a status line) only when its text changes: a screen reader reads every write.
export function writeLive(element, text) {
  if (element.textContent !== text) element.textContent = text;
}
