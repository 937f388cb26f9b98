// The table's own screen: the live show drawn large, from the same stream every page follows.
// A running glass's sand is computed from the state's top_s, the show speed and the moment the
// state arrived, once per animation frame, as on the table page: smooth whatever the update rate.

import { eventName, faultText, loadMessages, t, timerName } from "/static/js/i18n.js";
import { follow, writeLive } from "/static/js/follow.js";
import { listen } from "/static/js/listen.js";
import { symbolMark } from "/static/js/looks.js";
import { sandLeft } from "/static/js/sand.js";
import { Glass } from "/table/static/glass.js";

const $ = (id) => document.getElementById(id);
const page = $("kiosk");
const looks = JSON.parse(page.dataset.looks);
const tokenCount = Number(page.dataset.tokens);
const colours = Object.keys(looks);

await loadMessages();

let show = null; // the latest state from the table
let receivedAt = 0; // when it arrived (performance.now())
let animating = false;

const tiles = Object.fromEntries(colours.map((colour) => {
  const tile = $(`kiosk-${colour}`);
  tile.querySelector(".symbol").style.color = looks[colour].fill;
  return [colour, {
    tile,
    glass: new Glass(tile.querySelector(".glass"), `kiosk-${colour}`, looks[colour].fill),
    seconds: tile.querySelector(".seconds .clock"),
    said: tile.querySelector(".seconds .said"),
    state: tile.querySelector(".state"),
    stateText: "", // the state line's words when the sand is not low
  }];
}));

const clock = (s) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;
const running = () => show?.outcome === "running";

function accept(state) {
  if (state.outcome !== show?.outcome) refreshFestival(); // a show began or ended: the festival pad moved
  show = state;
  receivedAt = performance.now();
  render();
  turnToProgress();
}

// With no show running (a finished one's result read meanwhile), the screen turns to the group's progress,
// which turns back as soon as a show starts. Not while a new phone's pairing code is up, nor on a table that
// keeps no progress (no wait given).
const PROGRESS_AFTER_MS = Number(page.dataset.progressAfterMs ?? NaN);
let progressTimer = null;
function turnToProgress() {
  clearTimeout(progressTimer);
  if (running() || !PROGRESS_AFTER_MS) return;
  progressTimer = setTimeout(() => {
    const pairing = $("kiosk-pairing");
    if (running() || (pairing && !pairing.hidden)) turnToProgress();
    else location.assign("/kiosk/progress");
  }, PROGRESS_AFTER_MS);
}

function render() {
  const idle = show.outcome === "idle";
  $("kiosk-title").textContent = idle ? t("show.title") : eventName(show.event);
  // The stars in words: a voice reads ★ as 黒星, a defeat.
  const outcome = t(`outcome.${show.outcome}`);
  const stars = show.stars === 1 ? t("kiosk.result_one", { outcome }) : t("kiosk.result", { outcome, n: show.stars });
  writeLive($("kiosk-status"), show.stars ? stars : outcome);
  page.dataset.outcome = show.outcome;
  $("kiosk-idle").hidden = !idle;
  $("kiosk-track-box").hidden = idle;
  $("kiosk-tokens-box").hidden = idle;
  if (!idle) renderBoard();
  for (const colour of colours) renderTimer(colour);
  if (!animating) {
    animating = true;
    requestAnimationFrame(frame);
  }
}

// The campaign's next event, its festival's progress and who starts, read from the score pad.
function festivalTitle(f) {
  if (f.custom) return f.name;
  if (f.training) return t("festival.training");
  if (f.encore) return t("festival.encore");
  return f.grand_finale ? t("festival.grand_finale", { n: f.key }) : t("festival.n", { n: f.key });
}

async function refreshFestival() {
  const box = $("kiosk-festival");
  try {
    const answer = await fetch("/api/festivals", { credentials: "same-origin" });
    if (!answer.ok) throw new Error(`festivals: ${answer.status}`);
    const pad = await answer.json();
    const current = pad.festivals.find((f) => f.key === pad.current);
    const row = current?.events.find((e) => e.event === pad.next_event);
    const parts = [];
    if (row) {
      const event = t("festival.event_n", { n: row.number }) + (row.name && row.name !== row.event ? ` · ${row.name}` : "");
      parts.push(t("kiosk.festival", { event, festival: festivalTitle(current), won: current.won, size: current.size }));
    }
    if (pad.start_player) parts.push(t("festival.starts", { name: pad.start_player }));
    box.textContent = parts.join(" ");
    box.hidden = !parts.length;
  } catch {
    box.hidden = true; // the pad is a courtesy: the show screen goes on without it
  }
}

// The countdown track from its start space down to the finale, and the crowd tokens.
function renderBoard() {
  const { timer, position } = show.countdown;
  const track = $("kiosk-track");
  track.replaceChildren();
  for (let space = show.event.countdown_start; space >= 0; space--) {
    const li = document.createElement("li");
    const name = space === 0 ? t("countdown.button") : String(space);
    li.textContent = name;
    if (space === position) {
      li.className = "here";
      li.dataset.timer = timer;
      li.style.borderColor = looks[timer].fill;
      li.prepend(symbolMark(looks[timer]), " ");
      li.setAttribute("aria-label", t("countdown.here", { space: name, timer: timerName(timer) }));
    }
    track.appendChild(li);
  }
  const stars = tokenCount - show.crowd_tokens_turned;
  const tokens = $("kiosk-tokens");
  tokens.textContent = "★".repeat(Math.max(0, stars)) + "☆".repeat(Math.min(tokenCount, show.crowd_tokens_turned));
  $("kiosk-tokens-said").textContent = t("kiosk.tokens_left", { n: stars, total: tokenCount });
}

function renderTimer(colour) {
  const { tile, state } = tiles[colour];
  const timer = show.timers?.[colour];
  tile.dataset.state = timer ? timer.state : "idle";
  tile.classList.toggle("countdown", timer?.role === "countdown");
  tile.classList.toggle("fault", Boolean(timer?.fault));
  tile.classList.toggle("alert", Boolean(running() && timer?.awaiting_turn));
  // Once the show is over its last state still says where each glass stood; "running" would mislead.
  let text = timer && (running() || show.outcome === "idle") ? t(`state.${timer.state}`) : "";
  if (text && timer?.role === "countdown" && timer.state !== "out_of_play") text = `${t("role.countdown")} · ${text}`;
  tile.title = timer?.fault ? faultText(timer) : "";  // why, for whoever reaches the screen
  if (timer?.fault) text = t("kiosk.fault");
  else if (running() && timer?.awaiting_turn) text = t("kiosk.turn");
  tiles[colour].stateText = text;
  state.textContent = text;
  drawTimer(colour, performance.now());
}

// One glass at animation time `now`; true while its sand is still running.
function drawTimer(colour, now) {
  const { tile, glass, seconds, said } = tiles[colour];
  const timer = show.timers?.[colour];
  if (!timer || timer.top_s === null || timer.state === "out_of_play") {
    glass.draw(timer ? 0 : 1);
    seconds.textContent = said.textContent = "";
    markLow(colour, false);
    return false;
  }
  const sand = sandLeft(timer, show, receivedAt, now);
  const flowing = running() && timer.state === "running" && sand > 0;
  glass.draw(sand / timer.duration, { lying: timer.state === "lying", flowing });
  const shown = clock(Math.ceil(sand));
  if (seconds.textContent !== shown) { // the words change once a second, not every frame
    seconds.textContent = shown;
    said.textContent = t("kiosk.left", { time: t("seconds", { n: Math.ceil(sand) }) });
  }
  markLow(colour, flowing && timer.role === "timer" && sand <= show.warn_lead_s);
  return flowing;
}

// Low sand: amber digits, and a symbol and a word in the state line (colour alone tells nobody who cannot
// see it); a sensor fault or a glass to turn keeps its own words.
function markLow(colour, isLow) {
  const { tile, state, stateText } = tiles[colour];
  tile.classList.toggle("low", isLow);
  const text = isLow && !tile.classList.contains("fault") ? t("kiosk.low") : stateText;
  if (state.textContent !== text) state.textContent = text;
}

function frame(now) {
  const moving = colours.map((colour) => drawTimer(colour, now)).some(Boolean);
  if (moving) requestAnimationFrame(frame);
  else animating = false;
}


// The address for the phones: asked again until the table has one (the screen may start before the
// Wi-Fi), then now and then, as a router may hand the Pi a new one.
const JOIN_WAITING_MS = 5000;
const JOIN_KNOWN_MS = 60000;

async function refreshJoin() {
  let known = !$("kiosk-url").hasAttribute("data-waiting");
  try {
    const join = await (await fetch("/kiosk/join")).json();
    known = Boolean(join.url);
    $("kiosk-url").toggleAttribute("data-waiting", !known);
    $("kiosk-url").textContent = join.label;
    $("kiosk-qr").hidden = !known;
    if (known) $("kiosk-qr").innerHTML = join.qr; // our own server's SVG, no script in it
  } finally {
    setTimeout(refreshJoin, known ? JOIN_KNOWN_MS : JOIN_WAITING_MS);
  }
}
setTimeout(refreshJoin, $("kiosk-url").hasAttribute("data-waiting") ? JOIN_WAITING_MS : JOIN_KNOWN_MS);

// One tap on the table's screen shows a pairing code (a QR code): a new phone scans it and is let in
// without the PIN, even while someone is guessing the PIN. The code is good for one phone, briefly.
let pairingTimer = null;
async function showPairing() {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  let data = null;
  try {
    const answer = await fetch("/api/pair", { method: "POST", credentials: "same-origin",
                                              headers: { "X-CSRF-Token": csrf } });
    data = await answer.json();
    if (!answer.ok) data = { label: t(data.code ?? "errors.other") };
  } catch {
    data = { label: t("live.offline") };
  }
  $("kiosk-pairing").hidden = false;
  if (!data.qr) {
    $("kiosk-pair-qr").replaceChildren();
    $("kiosk-pair-label").textContent = data.label;
    return;
  }
  $("kiosk-pair-qr").innerHTML = data.qr; // our own server's SVG, no script in it
  $("kiosk-pair-label").textContent = t("kiosk.pair_scan");
  clearTimeout(pairingTimer);
  pairingTimer = setTimeout(() => { $("kiosk-pairing").hidden = true; }, data.valid_s * 1000);
}
listen($("kiosk-pair"), showPairing);

// The state now, then every change: the screen is right from its first frame.
fetch("/api/show").then((answer) => answer.json()).then((state) => { if (!show) accept(state); });
follow("/api/show/events", { on: { state: accept }, poll: "/api/show", banner: $("kiosk-connection") });
