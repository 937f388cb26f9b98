// The live wintering ground: every phone follows the game by server-sent events; with the PIN a phone
// records the turns (tap cards in at setup and out again; then each turn's arrivals, take-back or migration).
// Whose turn, each hand's size and the game's end come from the table, which checks every turn by the rules:
// a turn is always the next player's, and a migration's value is its number of cards, so neither is asked.

import { errorText, postJSON } from "/static/js/api.js";
import { follow } from "/static/js/follow.js";
import { loadMessages, t } from "/static/js/i18n.js";
import { focusLost, redraw, rovingGrid, tabStop } from "/static/js/keys.js";
import { showResult } from "/static/js/result.js";
import { cardName, chip, drawChosen, picker, pickerStop, rulesOf, same } from "./cards.js";

await loadMessages();

const root = document.getElementById("tracker");
const rules = rulesOf(root);
const unlocked = root.dataset.unlocked === "yes";
const $ = (id) => document.getElementById(id);
let view = null;
let chosen = [];
let sending = false; // a turn, a card laid out or an undo on its way to the table
let take = null;

const bare = (card) => ({ n: card.n, suit: card.suit }); // a card as the API reads it (no on-screen count)
const settingUp = () => view.actions.length === 0 && view.wintering.length < view.setup_size;
// Before the first turn a ground card tapped goes back out, the full ground's too (a last card laid wrong),
// unless two arriving cards are choosing one to take back.
const takesOut = () => view.actions.length === 0 && !offerTake();
const offerTake = () => !settingUp() && chosen.length === 2; // two arriving cards take one of the ground back
const markTake = (card) => { take = take && same(take, card) ? null : bare(card); render(); };

function cell(row, content) {
  const td = document.createElement("td");
  if (typeof content === "string") td.textContent = content;
  else td.append(...content);
  row.append(td);
  return td;
}

// A ground card taken out at setup leaves the focus on its row's next card, else on the picker.
function renderGround() {
  const body = $("ground");
  const gone = (key) => body.querySelector(`tr[data-number="${key.split("-")[0]}"] button`) ?? pickerStop($("picker"));
  redraw(body, () => drawGround(body), gone);
}

function drawGround(body) {
  body.replaceChildren();
  const open = unlocked && !view.over;
  for (const row of view.ground) {
    const tr = document.createElement("tr");
    tr.dataset.number = String(row.n);
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = String(row.n);
    tr.append(th);
    cell(tr, row.high > row.low ? t("geese.ground.span", { low: row.low, high: row.high, w: row.w }) : String(row.low)).className = "range";
    const chips = row.cards.map((card) => {
      if (!open) return chip(card, { count: card.count });
      if (takesOut()) return chip(card, { count: card.count, onClick: (c) => layOut(bare(c), false) });
      return chip(card, { count: card.count, pressed: take !== null && same(take, card), onClick: markTake });
    });
    cell(tr, chips.length ? chips : ["–"]);
    body.append(tr);
  }
}

function renderSeats() {
  $("seats").replaceChildren(...view.players.map((name) => {
    const li = document.createElement("li");
    li.dataset.player = name;
    const cards = view.hands[name];
    li.append(`${name} · `);
    const hand = document.createElement("span");
    hand.className = "hand";
    hand.textContent = t("geese.seats.hand", { n: cards });
    li.append(hand, ` · ${t("geese.vp.earned", { vp: view.result.players[name].total })}`);
    if (name === view.next_player) {
      li.classList.add("now");
      li.append(` ◀ ${t("geese.seats.now")}`);
    }
    return li;
  }));
}

function renderTotals() {
  const body = $("totals");
  body.replaceChildren();
  for (const name of view.players) {
    const tr = document.createElement("tr");
    tr.dataset.player = name;
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = name;
    tr.append(th);
    cell(tr, String(view.wintering_vp[name])).className = "wintering-vp";
    cell(tr, String(view.migrations[name]));
    const total = cell(tr, String(view.result.players[name].total));
    total.className = "total";
    if (view.bonus_lost[name]) { // the score now dropped by the no-goose bonus: say why beside it
      const why = document.createElement("span");
      why.className = "why help";
      why.textContent = t("geese.vp.bonus_lost");
      total.append(" ", why);
    }
    body.append(tr);
  }
  $("vp-log").replaceChildren(...view.log.map((entry) => {
    const li = document.createElement("li");
    li.append(`${t("geese.turn_no", { n: entry.action + 1 })} ${entry.player}${t("join.colon")}`, chip(entry.card),
      ` → ${t("geese.vp.earned", { vp: entry.vp })}`);
    return li;
  }));
}

function renderActions() {
  $("actions").replaceChildren(...view.actions.map((action, i) => {
    const li = document.createElement("li");
    li.append(`${t("geese.turn_no", { n: i + 1 })} ${action.player}${t("join.colon")}`);
    if (action.arrive) {
      li.append(t("geese.actions.arrive"), " ", ...action.arrive.map((c) => chip(c)));
      if (action.take) li.append(` ${t("geese.actions.take")} `, chip(action.take));
    } else {
      li.append(t("geese.actions.migrate", { value: action.migrate.value }), " ", ...action.migrate.cards.map((c) => chip(c)));
    }
    return li;
  }));
}

function renderOver() {
  $("game-over").hidden = !view.over;
  if (!view.over) return;
  showResult($("share-slot"), $("share-slot").dataset.from);
  const totals = view.result.players;
  $("final-ranking").replaceChildren(...view.result.ranking.map((name, i) => {
    const li = document.createElement("li");
    li.dataset.player = name;
    li.textContent = `${name} — ${t("geese.vp.earned", { vp: totals[name].total })}${i === 0 ? ` ★ ${t("geese.over.winner")}` : ""}`;
    return li;
  }));
  $("final-ties").replaceChildren(...view.ties.map((tie) => {
    const p = document.createElement("p");
    p.className = "help tie";
    p.textContent = t("geese.sheet.tie", tie);
    return p;
  }));
}

function renderTurn() {
  let line;
  if (view.over) line = t("geese.over.line", { winner: view.result.winner });
  else if (settingUp()) line = t("geese.turn.setting_up", { n: view.wintering.length, of: view.setup_size });
  else if (view.ending) line = t("geese.turn.last_round", { name: view.next_player });
  else line = t("geese.turn.next", { name: view.next_player });
  $("next-turn").textContent = line;
  if (!unlocked) return;
  $("turn-panel").hidden = view.over;
  $("undo").disabled = sending || view.actions.length === 0;
  const more = take ? t("geese.turn.taking", { card: cardName(take) })
    : offerTake() ? t("geese.turn.take_help") : "";
  drawChosen($("chosen"), chosen, { onDrop: (i) => { chosen.splice(i, 1); render(); },
    emptied: () => pickerStop($("picker")), status: $("turn-status"), more });
  renderTake();
  $("lay-out").hidden = !settingUp(); // a full ground takes no more setup cards
  // What a tap does at setup is said only then: in play its line would push the turn's buttons off a phone's screen.
  $("picker-label").textContent = t(settingUp() ? "geese.turn.pick_setup" : "geese.turn.pick");
  for (const button of document.querySelectorAll("#turn-panel button, #ground button")) button.disabled = sending;
}

// Beside the chosen cards when two arrive: the ground's cards, one to take back (one Tab stop, arrow keys).
function renderTake() {
  const line = $("take-line");
  redraw(line, () => {
    if (!offerTake()) {
      line.replaceChildren(take ? `${t("geese.actions.take")} ` : t("geese.turn.take_help"), ...(take ? [chip(take)] : []));
      return;
    }
    const label = document.createElement("span");
    label.id = "take-pick";
    label.textContent = t("geese.turn.take_pick");
    const choices = document.createElement("div");
    choices.className = "take-choices";
    choices.setAttribute("role", "toolbar");
    choices.setAttribute("aria-labelledby", label.id);
    choices.append(...view.ground.flatMap((row) => row.cards).map((card) => chip(card, {
      count: card.count, pressed: take !== null && same(take, card), onClick: markTake, key: `take-${card.n}-${card.suit}` })));
    line.replaceChildren(label, choices);
    rovingGrid(choices);
    tabStop(choices, take ? `take-${take.n}-${take.suit}` : undefined);
  });
}

function render() {
  if (!view) return;
  renderOver();
  renderSeats();
  renderGround();
  renderTotals();
  renderActions();
  renderTurn();
}

// While a turn is on its way, the turn's buttons, the ground's cards and Undo are off: a card picked then would be
// swept away by the answer, and a change sent then would carry the version the table is leaving (and be refused).
async function send(url, body, slot = "turn-error") {
  $("turn-error").textContent = "";
  $("undo-error").textContent = "";
  const focused = document.activeElement; // an off button loses the focus: given back below
  sending = true;
  render();
  const answer = await postJSON(url, { ...body, version: view.version });
  sending = false;
  if (answer.ok) {
    take = null;
    chosen = [];
    show(answer.data);
  } else {
    render();
    $(slot).textContent = errorText(answer.data);
    $(slot).scrollIntoView({ block: "nearest" });
  }
  // A button the turn turned off drops the focus: given back; the last turn hides them all: the result takes it.
  if (focusLost()) (view.over ? $("over-title") : focused)?.focus();
  return answer.ok;
}

async function layOut(card, put) {
  return send(root.dataset.setup, { card, put });
}

function show(next) {
  if (view && next.version < view.version) return; // an older state arriving late
  const fresh = !view || next.actions.length !== view.actions.length;
  view = next;
  root.dataset.version = String(view.version);
  if (unlocked && fresh) $("undo-confirm").hidden = true;
  render();
}

function askUndo() {
  const last = view.actions.at(-1);
  $("undo-question").textContent = t("geese.undo.question", { n: view.actions.length, player: last.player });
  $("undo-confirm").hidden = false;
  $("undo-yes").focus();
}

if (unlocked) {
  picker($("picker"), rules, (card) => {
    if (view && settingUp()) layOut(card, true);
    else { chosen.push(card); render(); }
  }, Number(root.dataset.players));
  $("lay-out").addEventListener("click", async () => {
    for (const card of [...chosen]) if (!(await layOut(card, true))) break;
  });
  $("arrive").addEventListener("click", () => {
    const action = { player: view.next_player, arrive: chosen.map(bare) };
    if (take) action.take = bare(take);
    send(root.dataset.actions, { action });
  });
  $("migrate").addEventListener("click", () => {
    const migrate = { value: chosen.length, cards: chosen.map(bare) };
    send(root.dataset.actions, { action: { player: view.next_player, migrate } });
  });
  $("undo").addEventListener("click", askUndo);
  // The question answered, the focus goes back to Undo (or to the picker when nothing is left to undo).
  const answered = () => ($("undo").disabled ? pickerStop($("picker")) : $("undo")).focus();
  $("undo-no").addEventListener("click", () => { $("undo-confirm").hidden = true; answered(); });
  $("undo-confirm").addEventListener("keydown", (event) => { if (event.key === "Escape") $("undo-no").click(); });
  $("undo-yes").addEventListener("click", async () => {
    $("undo-confirm").hidden = true;
    await send(root.dataset.undo, {}, "undo-error");
    answered();
  });
  const clear = () => {
    chosen = []; take = null; $("turn-error").textContent = ""; render();
  };
  $("clear").addEventListener("click", clear);
  // Escape in the turn or on the ground clears the choice; the focus goes back to the picker.
  for (const part of [$("turn-panel"), $("ground")]) {
    part.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || (!chosen.length && !take)) return;
      event.preventDefault();
      clear();
      pickerStop($("picker")).focus();
    });
  }
}

follow(root.dataset.events, { on: { game: show }, poll: root.dataset.gameApi });
