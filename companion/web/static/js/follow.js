// Following a record that changes (the show, a game, the hall, the LED strip): the one loop every page uses.
//
// The page hears each change from the record's event stream. When the stream drops, the browser reconnects
// once by itself, sending Last-Event-ID, so the server sends only what the page lacks. Past that, this
// loop opens the stream again after a wait that doubles from the server's retry period up to a cap, each
// wait jittered so the phones of a table that came back do not all ask at once. Past the server's stream
// cap the stream's answer is a `poll` event instead: the page then reads the record's JSON at the period
// the event names, sending the ETag of the state it holds (a state it has costs a 304), with no banner:
// it follows all the same. Once the event's retry_ms has passed and a read says a slot is free
// (X-Live-Free), it opens the stream again. A stream refused outright (503, or 429: this address holds
// too many) is asked again only after the server's Retry-After; meanwhile the page reads the record's
// JSON every refused period. While the page is not live, a banner (a live region) says so.
//
// The periods are the server's, on the page's body (data-live-*): the limits are named once, in Python.

import { t } from "./i18n.js";
import { backoffMs, retryAfterMs } from "./waits.js";

const body = document.body.dataset;
const RETRY_MS = Number(body.liveRetryMs); // the first wait before opening the stream again
const RETRY_MAX_MS = Number(body.liveRetryMaxMs); // the longest wait
const REFUSED_MS = Number(body.liveRefusedMs); // a refused page reads the record this often (and the Retry-After it lacks)
const REFUSED = new Set([429, 503]);
const FREE = "X-Live-Free"; // on a polled read: "0" while every stream slot is taken

// The banners of the page and, for each, why each of its followers is not live ("lost", "refused");
// a banner shows while any of them is not live, in the words of the worst.
const banners = new Map();

function showBanner(banner, follower, why) {
  const down = banners.get(banner) ?? new Map();
  banners.set(banner, down);
  if (why) down.set(follower, why);
  else down.delete(follower);
  const worst = down.size ? (Array.from(down.values()).includes("lost") ? "lost" : "refused") : null;
  banner.hidden = !worst;
  if (!worst) return;
  const text = t(`follow.${worst}`, { s: Math.ceil(REFUSED_MS / 1000) });
  if (banner.textContent !== text) banner.textContent = text; // a screen reader reads every write
}

// The page's own banner: its #connection, else one made at the top of its content.
function pageBanner() {
  let banner = document.getElementById("connection");
  if (!banner) {
    banner = document.createElement("p");
    banner.id = "connection";
    banner.className = "connection";
    banner.setAttribute("role", "status");
    banner.hidden = true;
    (document.querySelector("main") ?? document.body).prepend(banner);
  }
  return banner;
}

// Follow the stream at `events`. `on` maps each event's name to accept(data, {gap, whole}): `gap` on the
// first since the page was not live (it may sum up changes the page never saw), `whole` when it is the
// record's whole state rather than what changed since the last (a new stream, an id the server did not
// know, a read of `poll`). `poll` is the record's JSON, read while the stream is refused (none: wait).
// `banner` says when the page is not live (default: the page's own). Returns stop().
export function follow(events, { on, poll = null, banner = pageBanner() }) {
  let source = null;
  let timer = 0;
  let polling = 0;
  let told = null; // the server's word to poll instead of streaming: where, how often, when to ask again
  let etag = null; // the tag of the state last read by polling
  let failures = 0; // opens that failed since the stream was last live
  let lastId = null; // the number of the last event heard
  let gap = true;
  let fresh = true; // the stream was opened anew, without Last-Event-ID: its first event is whole
  let stopped = false;

  const self = Symbol(events); // this follower, among the others sharing its banner
  const notLive = (why) => showBanner(banner, self, why);

  // A read of `poll` (polled) is whole, and may sum up changes the page never saw.
  function deliver(accept, data, id, polled = false) {
    // A number below ours: the server did not know ours (another database, an earlier run) and began again.
    // (An event without an id carries the last one's again.)
    const restarted = id !== "" && lastId !== null && Number(id) < Number(lastId);
    if (id !== "") lastId = id;
    accept(data, { gap: gap || polled, whole: polled || fresh || restarted });
    if (!polled) gap = fresh = false;
  }

  function open() {
    timer = 0;
    if (stopped) return;
    source = new EventSource(events);
    fresh = true;
    let opened = false;
    source.addEventListener("open", () => {
      opened = true;
      failures = 0;
      clearInterval(polling);
      polling = 0;
      notLive(null);
    });
    for (const [name, accept] of Object.entries(on)) {
      source.addEventListener(name, (event) => deliver(accept, JSON.parse(event.data), event.lastEventId));
    }
    source.addEventListener("poll", (event) => {
      const word = JSON.parse(event.data);
      source.close(); // before the server ends the answer: the browser neither reconnects nor reports it
      source = null;
      failures = 0;
      gap = true;
      notLive(null); // followed all the same, only by reading
      told = { url: word.url ?? poll, again: Date.now() + Number(word.retry_ms) + Math.random() * RETRY_MS };
      clearInterval(polling);
      polling = setInterval(readTold, Number(word.every_ms));
      readTold();
    });
    source.addEventListener("error", () => {
      gap = true;
      if (!polling) notLive("lost"); // a page refused before is told what the server says now (recover)
      if (opened && source.readyState === EventSource.CONNECTING) {
        opened = false; // dropped while live: the browser reconnects once by itself, with Last-Event-ID
        return;
      }
      source.close();
      source = null;
      recover();
    });
  }

  async function read() {
    try {
      const answer = await fetch(poll, { headers: { Accept: "application/json" }, cache: "no-store" });
      if (answer.ok && polling) deliver(Object.values(on)[0], await answer.json(), "", true);
    } catch {
      // the table is out of reach: the next read or the next open says so
    }
  }

  // A read of the record the server told the page to poll: only a state it lacks comes back whole (else 304).
  async function readTold() {
    const headers = { Accept: "application/json" };
    if (etag) headers["If-None-Match"] = etag;
    let answer = null;
    try {
      answer = await fetch(told.url, { headers, cache: "no-store" });
      if (answer.status === 200 && polling) {
        const data = await answer.json();
        etag = answer.headers.get("ETag");
        deliver(Object.values(on)[0], data, "", true);
      }
    } catch {
      return; // the table is out of reach for now: the next read says so, or succeeds
    }
    if (polling && !stopped && Date.now() >= told.again && answer.headers.get(FREE) !== "0") {
      clearInterval(polling); // a slot is free: back to the stream
      polling = 0;
      open();
    }
  }

  // Why the stream failed, asked without holding a slot (HEAD): refused, or unreachable, or anything else.
  async function recover() {
    let answer = null;
    try {
      answer = await fetch(events, { method: "HEAD", cache: "no-store" });
    } catch {
      // unreachable: wait as for any failure
    }
    if (stopped) return;
    if (answer && REFUSED.has(answer.status)) {
      notLive("refused");
      if (poll && !polling) {
        polling = setInterval(read, REFUSED_MS);
        read();
      }
      const asked = retryAfterMs(answer.headers.get("Retry-After"), Date.now(), REFUSED_MS);
      timer = setTimeout(open, asked + Math.random() * RETRY_MS); // never sooner; spread a little after
      return;
    }
    clearInterval(polling); // not refused: out of reach, or the record gone; reading it would fail the same way
    polling = 0;
    notLive("lost");
    failures += 1;
    timer = setTimeout(open, backoffMs(failures, RETRY_MS, RETRY_MAX_MS));
  }

  open();
  return function stop() {
    stopped = true;
    source?.close();
    clearTimeout(timer);
    clearInterval(polling);
    notLive(null);
  };
}

// Write a live region (a status line) only when its text changes: a screen reader reads every write.
export function writeLive(element, text) {
  if (element.textContent !== text) element.textContent = text;
}
