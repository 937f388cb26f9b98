// The hall page: a card per table, redrawn from each `hall` event, with running glasses' sand
// counted down between events from the moment the event arrived.

import { eventName, loadMessages, t, timerName } from "/static/js/i18n.js";
import { follow } from "/static/js/follow.js";
import { symbolMark } from "/static/js/looks.js";
import { sandLeft } from "/static/js/sand.js";
import { news } from "./news.js";

const $ = (id) => document.getElementById(id);
const page = $("hall-page");
const looks = JSON.parse(page.dataset.looks);
const limits = JSON.parse(page.dataset.limits);
const colours = Object.keys(looks);

await loadMessages();

const cards = new Map(); // table name -> {card, element, receivedAt}

function text(element, selector, value) {
  const target = element.querySelector(selector);
  if (target.textContent !== value) target.textContent = value;
}

// Each card has one line per glass, made once; a redraw only changes its words and its class.
function glassLines(element) {
  const list = element.querySelector(".hall-glasses");
  return Object.fromEntries(colours.map((colour) => {
    const li = document.createElement("li");
    li.dataset.colour = colour;
    const words = document.createTextNode("");
    li.append(symbolMark(looks[colour]), words);
    list.append(li);
    return [colour, { li, words }];
  }));
}

function drawGlasses(entry) {
  const { card, lines, receivedAt } = entry;
  const show = card.show;
  const idle = !show || show.outcome === "idle";
  for (const colour of colours) {
    const glass = idle ? null : show.timers[colour];
    const { li, words } = lines[colour];
    li.hidden = !glass || glass.state === "out_of_play";
    if (li.hidden) continue;
    const seconds = t("seconds", { n: Math.ceil(sandLeft(glass, show, receivedAt, performance.now())) });
    const label = glass.state === "running" ? seconds : `${seconds} · ${t(`state.${glass.state}`)}`;
    const text = ` ${t("hall.glass", { timer: timerName(colour), sand: label })}`;
    if (words.data !== text) words.data = text;
    li.className = `hall-glass ${glass.state}`;
  }
}

function draw(entry) {
  const { card, element } = entry;
  text(element, ".hall-name", card.table);
  const online = element.querySelector(".hall-online");
  const status = card.online === null ? "unknown" : card.online ? "online" : "offline";
  online.textContent = t(`hall.${status}`);
  online.className = `hall-online ${status}`;
  element.classList.toggle("offline", card.online === false);
  const show = card.show;
  const idle = !show || show.outcome === "idle";
  text(element, ".hall-event", idle ? t("hall.no_show") : eventName(show.event));
  text(element, ".hall-outcome", idle ? "" : t(`outcome.${show.outcome}`));
  element.querySelector(".facts").hidden = idle;
  if (!idle) {
    const { timer, position } = show.countdown;
    const countdown = element.querySelector(".hall-countdown");
    const words = ` ${t("hall.countdown", { space: position, timer: timerName(timer) })}`;
    if (countdown.dataset.shown !== timer + words) { // redrawn only when it moved
      countdown.dataset.shown = timer + words;
      countdown.dataset.timer = timer;
      countdown.replaceChildren(symbolMark(looks[timer]), words);
    }
    text(element, ".hall-tokens", t("hall.tokens", { n: show.crowd_tokens_turned, total: limits.crowd_tokens }));
  }
  drawGlasses(entry);
}

// A card that went (a table never seen online, expired or pushed out by a real one) leaves the page.
function drop(card) {
  const entry = cards.get(card.table);
  if (!entry) return;
  entry.element.remove();
  dirty.delete(entry);
  cards.delete(card.table);
}

// Returns what changed at the table, in words (nothing for a card the page has not seen before).
function take(card) {
  if (card.gone) { drop(card); return []; }
  let entry = cards.get(card.table);
  const said = news(entry?.card, card, limits.crowd_tokens);
  if (!entry) {
    const element = $("card-template").content.firstElementChild.cloneNode(true);
    element.dataset.table = card.table;
    entry = { element, lines: glassLines(element) };
    cards.set(card.table, entry);
    const names = [...cards.keys()].sort();
    const after = names[names.indexOf(card.table) + 1];
    $("cards").insertBefore(element, after ? cards.get(after).element : null);
  }
  entry.card = card;
  entry.receivedAt = performance.now();
  dirty.add(entry);
  if (dirty.size === 1) requestAnimationFrame(drawDirty);
  return said;
}

// The status line speaks only when something happened; a frame with many tables' news says the first few.
const NEWS_AT_ONCE = 3;
function tell(said) {
  if (!said.length) return;
  const more = said.length - NEWS_AT_ONCE;
  $("hall-status").textContent = [...said.slice(0, NEWS_AT_ONCE), ...(more > 0 ? [t("hall.news_more", { n: more })] : [])]
    .join(" ");
}

// Many tables change many times a second: each card is drawn at most once per frame.
const dirty = new Set();
function drawDirty() {
  dirty.forEach(draw);
  dirty.clear();
}

function drawBoard(board) {
  $("no-board").hidden = board.length > 0;
  const rows = board.flatMap((event) => [
    [eventName({ id: event.event, name: event.event_name }), t("hall.all_tables"), event.best_stars, event.attempts, "all"],
    ...event.tables.map((row) => ["", row.table, row.best_stars, row.attempts, "table"]),
  ]);
  if (!rows.length) { $("board").replaceChildren(); return; }
  const table = document.createElement("table");
  table.className = "records";
  const head = table.createTHead().insertRow();
  for (const key of ["hall.event", "hall.table", "hall.best", "hall.attempts"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = t(key);
    head.append(th);
  }
  const body = table.createTBody();
  for (const [event, who, best, attempts, kind] of rows) {
    const tr = body.insertRow();
    tr.className = `board-${kind}`;
    for (const value of [event, who, best === null ? "–" : "★".repeat(best) + ` (${best})`, attempts]) {
      tr.insertCell().textContent = value;
    }
  }
  $("board").replaceChildren(table);
}

// A frame carries the cards that changed; a whole view (a new stream, or a read while the stream is
// refused) carries every card, so a card it lacks has gone.
function accept(changed, { whole }) {
  if (whole) {
    const named = new Set(changed.cards.map((card) => card.table));
    for (const table of [...cards.keys()]) if (!named.has(table)) drop({ table });
  }
  tell(changed.cards.flatMap(take));
  if (changed.board) drawBoard(changed.board);
  $("no-tables").hidden = cards.size > 0;
  text(document, "#hall-count", t("hall.tables_seen", { n: cards.size }));
}
follow("/api/hall/events", { on: { hall: accept }, poll: "/api/hall" });

setInterval(() => cards.forEach((entry) => {
  if (entry.card.show?.outcome === "running") drawGlasses(entry);
}), 1000);
