// The live show page: draws every state the table sends, and lets the sand run between them.
// A running glass's sand is computed from the state's top_s, the show speed and the moment the
// state arrived, once per animation frame: no polling, and smooth whatever the update rate.
// What happened since the last state goes into the live log, and sounds and is said on phones that opted in.

import { errorText, getJSON, postJSON } from "/static/js/api.js";
import { whileBusy } from "/static/js/busy.js";
import { enhance } from "/static/js/forms.js";
import { listen } from "/static/js/listen.js";
import { eventName, faultText, loadMessages, t, timerName } from "/static/js/i18n.js";
import { follow, writeLive } from "/static/js/follow.js";
import { sandLeft } from "/static/js/sand.js";
import { Alerts } from "./alerts.js";
import { Board, eventShape, item } from "./board.js";
import { Glass } from "./glass.js";
import { Milestones, mostImportant, RANK, sentence } from "./milestones.js";
import { drawSetupCheck } from "./setup.js";
import { Voice } from "./speech.js";
import { showStrip } from "./strip.js";

const $ = (id) => document.getElementById(id);
const page = $("table-page");
const looks = JSON.parse(page.dataset.looks);
const colours = Object.keys(looks);
const unlocked = page.dataset.unlocked === "1";
const crowdTokens = Number(page.dataset.crowdTokens);
const alerts = new Alerts(JSON.parse(page.dataset.sounds));
const board = new Board(looks, crowdTokens);
const milestones = new Milestones(crowdTokens);
const voice = new Voice(sentence);
const LOG_LENGTH = 8; // the live log keeps the last this many milestones

await loadMessages();

let show = null; // the latest state from the table
let receivedAt = 0; // when it arrived (performance.now())
let animating = false;
let events = []; // the events the table knows, for the setup check

const tiles = Object.fromEntries(colours.map((colour) => {
  const tile = $(`timer-${colour}`);
  tile.querySelector(".symbol").style.color = looks[colour].fill;
  return [colour, {
    tile,
    glass: new Glass(tile.querySelector(".glass"), colour, looks[colour].fill),
    seconds: tile.querySelector(".seconds"),
    lowSign: tile.querySelector(".low-sign"),
    state: tile.querySelector(".state"),
    notes: tile.querySelector(".notes"),
    flip: tile.querySelector(".flip"),
    lay: tile.querySelector(".lay"),
  }];
}));

const label = (colour) => board.label(colour);
const running = () => show?.outcome === "running";

function say(text) {
  const box = $("message");
  box.textContent = text;
  box.hidden = !text;
  clearTimeout(say.timer);
  if (text) say.timer = setTimeout(() => { box.hidden = true; }, 8000);
}

// ---- the state ---------------------------------------------------------------

// The stream's states come in order (after a restart on a fresh database their seq starts lower);
// an answer to this page's own change is taken unless the stream has already brought as new a state.
function accept(state, { answer = false, gap = false } = {}) {
  if (answer && show && (state.seq < show.seq || (state.seq === show.seq && (state.t ?? 0) <= (show.t ?? 0)))) return;
  show = state;
  receivedAt = performance.now();
  tell(milestones.next(state, gap));
  render();
}

// After Start on this phone: the glasses in view.
const showGlasses = () => $("timers").scrollIntoView({ block: "start" });

// Every new milestone into the live log and to the voice (which says each, the most important first);
// the most important sounds.
function tell(news) {
  if (!news.length) return;
  const log = $("cue-log");
  for (const milestone of news) log.append(item(sentence(milestone)));
  voice.say(news.map((milestone) => [milestone, RANK[milestone.kind]]));
  while (log.children.length > LOG_LENGTH) log.firstElementChild.remove();
  $("cue-log-empty").hidden = true;
  alerts.play(mostImportant(news).kind);
}

// The status line names the event and how its show stands; written only when that changes.
function status() {
  if (show.outcome === "idle") return t("show.idle");
  const slots = { event: eventName(show.event), stars: show.stars, total: crowdTokens };
  return ["running", "win", "loss"].includes(show.outcome) ? t(`status.${show.outcome}`, slots) : t(`outcome.${show.outcome}`);
}

function render() {
  const idle = show.outcome === "idle";
  $("show-title").textContent = idle ? t("show.title")
    : eventName(show.event) + (show.challenge ? ` · ${t("start.challenge")}` : "");
  writeLive($("show-status"), status());
  page.classList.toggle("running", running()); // during a show: the glasses, countdown and tokens on one screen
  board.draw(show);
  for (const colour of colours) renderTimer(colour);
  renderBanner();
  renderSetupCheck();
  alerts.keepAwake(running());
  if (unlocked) renderControls();
  renderStartPlayer();
  keepFocus();
  if (!animating) {
    animating = true;
    requestAnimationFrame(frame);
  }
}

function renderTimer(colour) {
  const { tile, state, notes, flip, lay } = tiles[colour];
  const timer = show.timers?.[colour];
  const inPlay = timer && timer.state !== "out_of_play";
  tile.dataset.state = timer ? timer.state : "idle";
  tile.classList.toggle("countdown", timer?.role === "countdown");
  tile.classList.toggle("fault", Boolean(timer?.fault));
  state.textContent = timer ? t(`state.${timer.state}`) : "";
  notes.replaceChildren();
  if (timer?.role === "countdown") notes.appendChild(item(t("role.countdown")));
  if (timer?.fault) notes.appendChild(item(t("note.fault", { reason: faultText(timer) }), "fault"));
  if (timer?.awaiting_turn) notes.appendChild(item(t("note.awaiting_turn"), "alert"));
  if (timer?.changed_while_down) notes.appendChild(item(t("note.changed_while_down"), "alert"));
  if (running() && timer?.role === "countdown" && timer.state === "empty") notes.appendChild(item(t("note.turn_countdown"), "go"));
  // Flip turns a glass the table reads no sensor of (an LED glass), or one whose sensors failed.
  flip.hidden = !(unlocked && running() && inPlay && (!timer.sensed || timer.fault));
  lay.hidden = flip.hidden || timer.pose === "side"; // as a long press on its button lays it down
  drawTimer(colour, performance.now());
}

// One glass at animation time `now`; true while its sand is still running.
function drawTimer(colour, now) {
  const { glass, seconds } = tiles[colour];
  const timer = show.timers?.[colour];
  if (!timer || timer.top_s === null) {
    glass.draw(timer ? 0 : 1);
    seconds.textContent = "";
    markLow(colour, false); // a warning never outlives its show
    return false;
  }
  const sand = sandLeft(timer, show, receivedAt, now);
  const flowing = running() && timer.state === "running" && sand > 0;
  glass.draw(sand / timer.duration, { lying: timer.state === "lying", flowing });
  seconds.textContent = t("seconds", { n: Math.ceil(sand) });
  markLow(colour, flowing && timer.role === "timer" && sand <= show.warn_lead_s);
  return flowing;
}

// Low sand: an outline and a sign with a symbol and words (heard as a milestone, at the table's warning).
function markLow(colour, isLow) {
  const { tile, lowSign } = tiles[colour];
  tile.classList.toggle("low", isLow);
  lowSign.hidden = !isLow;
}

// A glass that ran out and waits for its players to turn it: a banner nobody can miss, until it is turned.
function renderBanner() {
  const waiting = running() ? colours.filter((colour) => show.timers[colour]?.awaiting_turn) : [];
  const banner = $("runout-banner");
  banner.hidden = waiting.length === 0;
  if (banner.dataset.waiting === String(waiting)) return; // redrawn only when it changes
  banner.dataset.waiting = waiting;
  banner.replaceChildren(...waiting.map((colour) => {
    const line = document.createElement("p");
    line.dataset.colour = colour;
    line.textContent = t("table.turn_it", { timer: label(colour) });
    return line;
  }));
}

function renderSetupCheck() {
  const box = $("setup-check");
  const chosen = $("start-event")?.value;
  const event = events.find((e) => e.id === chosen) ?? events[0];
  drawSetupCheck(box, running() ? null : event, show.sensors, looks);
}

function frame(now) {
  const moving = colours.map((colour) => drawTimer(colour, now)).some(Boolean);
  if (moving) requestAnimationFrame(frame);
  else animating = false;
}

// ---- the focus ---------------------------------------------------------------

// Focus never falls to the page body when its control goes (Start, Abort, Flip at the end): it moves on.
let lastFocused = null;
document.addEventListener("focusin", (event) => { lastFocused = event.target; });
const shown = (el) => el.isConnected && el.checkVisibility();

function keepFocus() {
  const now = document.activeElement;
  if (!lastFocused || (now && now !== document.body && shown(now)) || shown(lastFocused)) return;
  const start = $("start-form")?.querySelector('[type="submit"]');
  const next = [$("result-title"), start, $("show-title")].find((el) => el && shown(el));
  next.focus();
}

// ---- this phone's alerts and spoken cues ---------------------------------------------

// A switch kept on this phone: aria-pressed and its words (KEY, or KEY_on) say whether it is on.
function renderSwitch(button, key, on) {
  button.setAttribute("aria-pressed", String(on));
  button.textContent = t(on ? `${key}_on` : key);
}

const alertsButton = $("alerts");
renderSwitch(alertsButton, "table.alerts", alerts.on);
listen(alertsButton, async () => {
  await alerts.toggle();
  renderSwitch(alertsButton, "table.alerts", alerts.on);
  if (show) alerts.keepAwake(running());
});

const cuesButton = $("cues");
cuesButton.hidden = !voice.synth; // a browser without speech keeps only the log
renderSwitch(cuesButton, "cues.switch", voice.on);
listen(cuesButton, () => renderSwitch(cuesButton, "cues.switch", voice.toggle(t("cues.on"))));

// Who starts: the rotation on the score pad, read again whenever a show begins or ends.
let rotationFor = undefined;
async function renderStartPlayer() {
  const key = `${show?.id}:${show?.outcome}`;
  if (rotationFor === key) return;
  rotationFor = key;
  const pad = await getJSON("/api/scorepad");
  const line = $("start-player");
  line.hidden = !pad.start_player;
  line.textContent = pad.start_player ? t("table.starts", { name: pad.start_player }) : "";
}

// ---- the controls (with the PIN) -------------------------------------------------

const abortButton = $("abort");
const muteButton = $("mute");

function renderControls() {
  $("start-form").hidden = running();
  abortButton.hidden = show.outcome === "idle";
  if (!abortButton.dataset.armed) abortButton.textContent = t(running() ? "abort.button" : "abort.clear");
  muteButton.setAttribute("aria-pressed", String(Boolean(show.muted)));
}

async function send(url, body) {
  const answer = await postJSON(url, body);
  if (answer.ok) {
    say("");
    accept(answer.data, { answer: true });
  } else {
    say(errorText(answer.data));
  }
}

// A glass's button is busy while its change is on its way: a double tap on a slow phone flipped the glass twice.
const sendFrom = (button, url, body) => whileBusy(button, () => send(url, body));

async function loadEvents() {
  events = await getJSON("/api/events");
  const select = $("start-event");
  if (!select) return;
  const chosen = select.value;
  const groups = [["builtin", true], ["saved", false]].map(([key, builtin]) => {
    const group = document.createElement("optgroup");
    group.label = t(`start.${key}`);
    return [group, builtin];
  });
  for (const event of events) {
    const [group] = groups.find(([, builtin]) => builtin === event.builtin);
    group.appendChild(new Option(eventName(event), event.id));
  }
  select.replaceChildren(...groups.map(([group]) => group).filter((group) => group.children.length));
  if (chosen) select.value = chosen;
  else offerWanted(select);
  if (show) renderSetupCheck();
}

// The score pad's festival links name an event (?event=event-04): chosen if the table knows its setup,
// else the new-event form opens with its id filled in, for the owner to enter the card's setup once.
function offerWanted(select) {
  const wanted = new URLSearchParams(location.search).get("event");
  if (!wanted) return;
  if (events.some((e) => e.id === wanted)) {
    select.value = wanted;
  } else if ($("ev-id")) {
    $("ev-id").value = wanted;
    $("event-form").closest("details").open = true;
  }
}

const eventsIn = loadEvents();
if (unlocked) {
  $("start-event").addEventListener("change", () => { if (show) renderSetupCheck(); });
  // Start is shown once the events are in: tapped before, it sent an empty choice and was refused. A list that
  // fails to come still shows it, refusing with its field's words.
  eventsIn.finally(() => enhance($("start-form"), {
    done(state) {
      accept(state, { answer: true });
      showGlasses();
      keepFocus();
    },
  }));
  enhance($("event-form"), {
    shape: eventShape,
    done(state, form) {
      accept(state, { answer: true });
      form.closest("details").open = false;
      showGlasses();
      keepFocus();
      loadEvents();
    },
  });
  const calibration = $("calibration-form"); // the owner's only: a glass's duration is kept in the config
  if (calibration) {
    enhance(calibration, {
      done(answer, form) {
        form.querySelector(".done").textContent = t("calibration.done", { timer: timerName(answer.timer), seconds: answer.duration });
      },
    });
  }
  for (const colour of colours) {
    const { flip, lay } = tiles[colour];
    flip.addEventListener("click", () => sendFrom(flip, "/api/show/flip", { timer: colour }));
    lay.addEventListener("click", () => sendFrom(lay, "/api/show/lay", { timer: colour }));
  }
  listen(muteButton, () => send("/api/mute", { muted: !show?.muted }));
  // Aborting takes two taps, so a stray touch cannot end a show.
  abortButton.addEventListener("click", () => {
    if (!abortButton.dataset.armed) {
      abortButton.dataset.armed = "1";
      abortButton.textContent = t("abort.confirm");
      setTimeout(() => { delete abortButton.dataset.armed; if (show) renderControls(); }, 4000);
      return;
    }
    delete abortButton.dataset.armed;
    send("/api/show/abort", {});
  });
}

// ---- live ----------------------------------------------------------------------

follow("/api/show/events", { on: { state: accept }, poll: "/api/show" });

if ($("strip")) showStrip($("strip-rows"), looks);
