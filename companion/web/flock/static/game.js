// One saved game on any phone: the board, cubes, prices and turn, moves by tapping, live from the table.

import { getJSON, postJSON } from "/static/js/api.js";
import { follow } from "/static/js/follow.js";
import { aside, listed, loadMessages, sentence, t } from "/static/js/i18n.js";
import { announce, focusLost, redraw, tabStop } from "/static/js/keys.js";
import { showResult } from "/static/js/result.js";

await loadMessages();
const { birdName, drawBoard, el, playerLabel, refusalText, setNames, unlocked, where } = await import("./board.js");
const { drawResult, stageEditor } = await import("./editor.js");

const root = document.getElementById("flock");
const mode = root.dataset.mode;
const SHORT_HEADINGS = new Set(["flock.game.cubes", "flock.game.cards", "flock.game.birds"]); // each has a _full
const FLIGHT_CARDS = ["dodge", "sharp_dodge", "lead_change", "diagonal", "free_flight"];
let game = null;
let selected = null; // [row, col] of the bird tapped first
let home = null; // "row,col": the space the focus goes back to when the choices close (the bird, or where it landed)
let editor = null;

const $ = (id) => document.getElementById(id);

// A refusal where the player is looking: right under the board they tapped, scrolled into the screen if need be
// (role="alert" says it too).
function refuse(text) {
  const slot = $("move-error");
  slot.textContent = sentence(text);
  if (text) slot.scrollIntoView({ block: "nearest" });
}

// One move on its way at a time: until the table answers, the game takes no taps. A second tap would send the move
// again, for the version the table is leaving, and be refused as a change made on another phone.
async function send(path, body) {
  const focused = document.activeElement; // an inert part drops the focus: given back below
  root.inert = true;
  root.setAttribute("aria-busy", "true");
  const { ok, data } = await postJSON(`${root.dataset.gameApi}/${path}`, { ...body, version: game.version });
  root.inert = false;
  root.removeAttribute("aria-busy");
  if (document.activeElement === document.body && focused?.isConnected) focused.focus();
  if (!ok) {
    // A refused move leaves the board as it was, answering taps again.
    selected = null;
    if (mode === "moves" && game) {
      drawMoves(game.view);
      closeChoices();
    }
    // The refusal beside what was tapped: the stage's entry, the board, or Undo (a score sheet's own button).
    const entry = editor && !$("stage-entry").hidden;
    if (entry) editor.show(refusalText(data));
    else if (mode === "moves") refuse(refusalText(data));
    else $("undo-error").textContent = refusalText(data);
    (entry ? document.querySelector("#stage-entry .stage-error") : $(mode === "moves" ? "move-error" : "undo-error"))
      .scrollIntoView({ block: "nearest" });
    return false;
  }
  selected = null;
  if ($("move-error")) refuse("");
  render(data);
  if (mode === "moves") {
    closeChoices();
    // A button the move turned off or hid (Pass, when the stage ends; Land, when the game ends) drops the focus: it
    // goes on to the board or the entry (at the game's end, to its result, once that is in).
    if (focusLost()) focusBoard();
  }
  return true;
}

const act = (action) => send("actions", { action });

function status(view) {
  if (view.over) {
    const names = listed(view.winners.map(playerLabel));
    return t(`flock.winner.${view.tie_break}`, { names });
  }
  if (mode === "sheet") return t("flock.sheet.next", { n: view.stage });
  if (view.turn === null) return t("flock.game.landing", { n: view.stage });
  return t("flock.game.turn", { n: view.stage, player: playerLabel(view.turn), cubes: view.cubes[view.turn] });
}

// What each standard action costs right now, and what lies beside the board.
function prices(view) {
  const now = Object.keys(view.prices).map((a) => {
    const price = t("flock.price", { what: t(`flock.action.${a}`), cubes: view.prices[a] });
    const on = view.action_spaces[a];
    return on ? t("flock.game.price_on", { price, on: t("flock.game.on_space", { cubes: on.cubes, player: playerLabel(on.player) }) })
      : price;
  });
  return t("flock.game.prices_line", {
    prices: now.join(" · "),
    nest: t("flock.game.nest_cubes", { n: view.nest_cubes }),
    beside: t("flock.game.cards_beside", { display: view.display, deck: view.movement_deck, birds: view.deck }),
  });
}

function playersTable(view) {
  const table = $("players-table");
  table.replaceChildren();
  const head = el("tr");
  const columns = mode === "moves" ? ["flock.result.player", "flock.game.cubes", "flock.game.cards", "flock.result.total", "flock.game.birds"]
    : ["flock.result.player", "flock.result.total"];
  for (const key of columns) {
    const th = el("th", t(key));
    th.scope = "col";
    // A short heading keeps the table inside a phone; its full words are the column's name when read aloud.
    if (SHORT_HEADINGS.has(key)) { th.title = t(`${key}_full`); th.setAttribute("aria-label", t(`${key}_full`)); }
    head.append(th);
  }
  table.append(head);
  for (const p of view.players) {
    const row = el("tr");
    row.dataset.player = p;
    const th = el("th", `${playerLabel(p)}${view.turn === p ? ` ◀ ${t("flock.game.now")}` : ""}`);
    th.scope = "row";
    row.append(th);
    if (mode === "moves") {
      row.append(el("td", `${view.cubes[p]} / ${view.full_cubes[p]}`, "cubes"), el("td", String(view.hands[p])),
        el("td", String(view.scores[p]), "total-points"), el("td", String(view.birds_on_board[p])));
    } else {
      row.append(el("td", String(view.totals[p]), "total-points"));
    }
    table.append(row);
  }
}

function button(label, onClick, className = "", move = "") {
  const b = el("button", label, className);
  b.type = "button";
  if (move) b.dataset.move = move; // which move it makes, for scripts and tests
  b.addEventListener("click", onClick);
  return b;
}

const sameSpace = (a, b) => a[0] === b[0] && a[1] === b[1];
// The flights the rules allow from `from` (and to `to`, if given): the table sends them with the game.
const flightsFrom = (view, from, to = null) => view.legal.filter((m) => m.from && sameSpace(m.from, from)
  && (to === null || sameSpace(m.to, to)));

// The first control of the stage's entry a player can reach (the board's part of it is hidden on a moves page).
function focusEntry() {
  [...document.querySelectorAll("#stage-entry:not([hidden]) :is(input, button, select)")]
    .find((control) => control.checkVisibility())?.focus();
}

// The focus back on the board, at `home`; when the board answers no taps now, on the stage's entry if open; at the
// game's end, on its result once that is in (drawn while a move was on its way, it could not take the focus then).
function focusBoard() {
  const board = $("game-board");
  const result = $("share-slot")?.querySelector("h2");
  if (result) result.focus();
  else if (board.getAttribute("role") === "grid") tabStop(board, home).focus();
  else focusEntry();
}

// Empty the choices; a focus that was on them goes back to the board, so it never falls to the page.
function closeChoices() {
  const box = $("choices");
  const hadFocus = box.contains(document.activeElement);
  box.replaceChildren();
  announce($("board-status"), "");
  if (hadFocus) focusBoard();
}

// Choices laid out below the board: said in the status (or why there are none), the focus on the first.
function openChoices(...items) {
  const box = $("choices");
  box.replaceChildren(...items);
  const n = box.querySelectorAll("button.flock-choice").length;
  announce($("board-status"), n ? t("flock.game.options", { n }) : box.querySelector(".help:last-of-type").textContent);
  (box.querySelector("button.flock-choice") ?? box.querySelector("button")).focus();
}

// Cancel (the button or Escape): no bird chosen, no choices open, the focus on the bird or space it began from.
function cancel() {
  selected = null;
  refuse("");
  drawMoves(game.view);
  closeChoices();
  focusBoard();
}

function cancelButton() {
  return button(t("flock.game.cancel"), cancel, "quiet cancel");
}

function flightChoices(view, from, to) {
  const mover = view.board[from[0]][from[1]];
  const allowed = flightsFrom(view, from, to);
  const fly = (move) => { home = to.join(","); act(move); }; // the focus follows the bird to where it lands
  const items = [el("p", t("flock.game.chosen", { from: birdName(mover), to: birdName(view.board[to[0]][to[1]]) }), "help")];
  for (const kind of ["fly_side", "fly_line"]) {
    if (!allowed.some((m) => m.do === kind)) continue;
    items.push(button(t("flock.price", { what: t(`flock.action.${kind}`), cubes: view.prices[kind] }),
      () => fly({ do: kind, from, to }), "flock-choice", kind));
  }
  const cards = [...FLIGHT_CARDS, "neutral"].filter((card) => allowed.some((m) => m.do === "card" && m.card === card));
  if (cards.length) {
    const through = throughDisplay(view);
    items.push(through.parentElement);
    for (const card of cards) {
      items.push(button(t("flock.price", { what: t(`flock.card.${card}`), cubes: view.card_costs[card] }),
        () => fly(through.checked ? { do: "card", card: "display", as: card, from, to } : { do: "card", card, from, to }),
        "flock-choice", `card-${card}`));
    }
  }
  openChoices(...items, cancelButton());
}

// "Play it through the display card": the same flight, paid at the display card's cost; the card stays there.
function throughDisplay(view) {
  const label = el("label", "", "check");
  const input = document.createElement("input");
  input.type = "checkbox";
  input.disabled = view.display === 0;
  label.append(input, ` ${t("flock.card.through_display")}`);
  return input;
}

function addChoices(view, col) {
  const box = document.createDocumentFragment();
  const source = document.querySelector('input[name="supply"]:checked')?.value ?? "deck";
  const bird = source === "deck" ? "deck" : Number(source);
  box.append(el("p", t("flock.game.add_to", { col: col + 1 }), "help"));
  const adds = view.legal.filter((m) => (m.do === "add" && m.col === col) || (m.action && m.action.col === col));
  if (!adds.length) box.append(el("p", t("flock.game.column_full", { col: col + 1 }), "help"));
  for (const at of ["front", "back"]) {
    if (adds.some((m) => m.do === "add" && m.at === at)) {
      box.append(button(t("flock.price", { what: t(`flock.action.add_${at}`), cubes: view.prices.add }),
        () => act({ do: "add", bird, col, at }), "flock-choice"));
    }
    if (adds.some((m) => m.do === "card" && m.action.at === at)) {
      box.append(button(t("flock.price", { what: t(`flock.card.standard_add_${at}`), cubes: view.card_costs.standard }),
        () => act({ do: "card", card: "standard", action: { do: "add", bird, col, at } }), "flock-choice"));
    }
  }
  if (adds.length && view.hands[view.turn] > 0 && view.cubes[view.turn] >= view.card_costs.favourite && view.deck_birds.length) {
    const pick = document.createElement("select");
    pick.setAttribute("aria-label", t("flock.card.favourite_pick"));
    view.deck_birds.forEach(({ bird, count }, i) => {
      const option = el("option", aside(birdName(bird), count));
      option.value = i;
      pick.append(option);
    });
    box.append(pick);
    for (const at of ["front", "back"]) {
      box.append(button(t("flock.price", { what: t(`flock.card.favourite_${at}`), cubes: view.card_costs.favourite }),
        () => act({ do: "card", card: "favourite", bird: view.deck_birds[Number(pick.value)].bird, col, at }), "flock-choice"));
    }
  }
  openChoices(box, cancelButton());
}

function drawSupply(view) {
  const box = $("supply");
  const chosen = box.querySelector('input[name="supply"]:checked')?.value;
  const options = [...view.face_up.map((bird, i) => [String(i), birdName(bird)]), ["deck", t("flock.game.deck_top", { n: view.deck })]];
  redraw(box, () => {
    box.replaceChildren(el("span", t("flock.game.supply")));
    for (const [value, text] of options) {
      const label = el("label", "", "check");
      const input = document.createElement("input");
      input.type = "radio";
      input.name = "supply";
      input.value = value;
      input.dataset.key = `supply-${value}`;
      label.append(input, ` ${text}`);
      box.append(label);
    }
    const keep = box.querySelector(`input[value="${chosen}"]`) ?? box.querySelector('input[value="deck"]');
    keep.checked = true;
    // One small button under each column of the board (its number shown, its whole name read aloud): a row, not
    // a list of seven, so Take a movement card and Pass stay on a phone's first screen with four players.
    const columns = el("div", "", "add-columns");
    columns.setAttribute("role", "group");
    columns.setAttribute("aria-label", t("flock.game.add_columns"));
    columns.style.setProperty("--columns", view.depths.length);
    for (let col = 0; col < view.depths.length; col += 1) {
      const add = button(String(col + 1), () => addChoices(view, col), "add-column");
      add.setAttribute("aria-label", t("flock.game.add_column", { col: col + 1 }));
      add.dataset.key = `column-${col}`;
      columns.append(add);
    }
    box.append(el("span", t("flock.game.add_columns")), columns);
  });
}

// The board of the game in turn: a bird tapped (or chosen by Enter) lights up where it can fly, and the focus
// moves to the first of those places; an empty space offers to add a bird to its column.
function drawMoves(view, focus = null) {
  const flights = selected ? flightsFrom(view, selected) : [];
  const targets = new Set(flights.map((m) => m.to.join(",")));
  // Places only a movement card reaches (free flight, dodge...): marked apart, as they cost a card from the hand.
  const byCubes = new Set(flights.filter((m) => m.do !== "card").map((m) => m.to.join(",")));
  const cardTargets = new Set([...targets].filter((key) => !byCubes.has(key)));
  $("target-legend").hidden = cardTargets.size === 0;
  drawBoard($("game-board"), view.board, {
    selected: selected ? selected.join(",") : null,
    targets,
    cardTargets,
    focus,
    label: t("flock.game.board"),
    onTap: unlocked && view.turn ? (r, c) => {
      refuse("");
      if (!selected) home = `${r},${c}`;
      if (!selected && !view.board[r][c]) return addChoices(view, c); // an empty space: add to its column
      if (!selected) {
        if (!flightsFrom(view, [r, c]).length) {
          // Not a bird this player can fly now: say whose birds can, and keep the board as it is.
          refuse(t("flock.game.not_movable", { bird: birdName(view.board[r][c]), player: playerLabel(view.turn) }));
          return;
        }
        selected = [r, c];
        $("choices").replaceChildren(el("p", t("flock.game.pick_target", { bird: birdName(view.board[r][c]) }), "help"), cancelButton());
        const places = flightsFrom(view, selected).map((m) => m.to).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        announce($("board-status"), t("flock.game.targets", { n: new Set(places.map(String)).size }));
        return drawMoves(view, places[0].join(","));
      }
      if (selected[0] === r && selected[1] === c) {
        selected = null;
        closeChoices();
      } else if (!targets.has(`${r},${c}`)) {
        refuse(t(view.board[r][c] ? "flock.game.not_target" : "flock.game.not_target_empty", { where: where(r, c) }));
        return;
      } else {
        const from = selected;
        selected = null;
        drawMoves(view);
        return flightChoices(view, from, [r, c]);
      }
      drawMoves(view);
    } : null,
  });
  if (!unlocked) return;
  if (view.turn) drawSupply(view); else $("supply").replaceChildren();
  const take = $("take-card");
  take.textContent = t("flock.price", { what: t("flock.action.take"), cubes: view.prices.take });
  take.onclick = () => act({ do: "take" });
  $("pass").textContent = t("flock.action.pass");
  $("pass").onclick = () => act({ do: "pass" });
  take.disabled = $("pass").disabled = !view.turn;
  $("undo").disabled = view.moves === 0;
  $("undo").closest(".row").hidden = view.over; // a finished game takes no move, nor takes one back
  drawScoreCard(view);
}

// A score card played in turn: it scores another card from the hand at once, on the board as it is now.
async function drawScoreCard(view) {
  const box = $("score-card");
  const playable = view.turn && view.hands[view.turn] >= 2;
  const saved = playable ? (await getJSON(root.dataset.cardsApi)).movement : {};
  // None saved: why there is no score card is told with the help below the moves, not between them.
  $("score-card-help").hidden = !playable || Object.keys(saved).length > 0;
  redraw(box, () => {
    box.replaceChildren();
    if (!playable || !Object.keys(saved).length) return;
    const pick = document.createElement("select");
    pick.setAttribute("aria-label", t("flock.card.score_pick"));
    pick.dataset.key = "score-pick";
    for (const name of Object.keys(saved)) { const o = el("option", name); o.value = name; pick.append(o); }
    const play = button(t("flock.price", { what: t("flock.card.score"), cubes: view.card_costs.score }),
      () => act({ do: "card", card: "score", spaces: saved[pick.value].spaces }), "flock-choice");
    play.dataset.key = "score-play";
    box.append(pick, play);
  });
}

function drawSheet(view) {
  const box = $("sheet");
  box.replaceChildren();
  view.stages.forEach((stage, i) => {
    const part = el("div", "", "sheet-stage");
    drawResult(part, stage, view.players, stage.nest, { stageNumber: i + 1, cards: stage.movement_cards });
    box.append(part);
  });
  if (!view.stages.length) box.append(el("p", t("flock.sheet.empty"), "help"));
  if (view.over) box.append(el("p", status(view), "winners"));
}

function drawEntry(view) {
  const section = $("stage-entry");
  const open = unlocked && !view.over && (mode === "sheet" || view.turn === null);
  section.hidden = !open;
  if (!open) return;
  const form = section.querySelector(".stage-editor");
  if (mode === "moves") form.querySelector("fieldset").hidden = true; // the board is the game's own
  const board = structuredClone(mode === "sheet" ? view.next_board ?? null : view.board);
  if (editor) editor.load({ board, holes: view.draws ?? [] });
  else editor = stageEditor(form, { cardsApi: root.dataset.cardsApi, players: view.players, board, holes: view.draws ?? [] });
  form.querySelector(".score-stage").disabled = false;
  form.querySelector(".score-stage").onclick = () => {
    const value = editor.value();
    if (mode === "sheet") {
      send("stages", { stage: { board: value.board, nest: value.nest, movement_cards: value.movement_cards } });
    } else {
      act({ do: "land", nest: value.nest, movement_cards: value.movement_cards });
    }
  };
}

// What Undo would take back, in words: "move 7 (▲ Ann (red kite): Fly left/right, front row, column 2 ↔ …)".
function lastMove(view) {
  if (mode === "sheet") return t("flock.undo.stage", { n: view.stages.length });
  const action = view.last;
  const card = action.do === "card" ? action.as ?? action.card : null;
  const inner = action.action ?? action;
  let what;
  if (card === "standard") what = t(`flock.card.standard_add_${inner.at}`);
  else if (card === "favourite") what = t(`flock.card.favourite_${action.at}`);
  else if (card) what = t(`flock.card.${card}`);
  else if (action.do === "add") what = t(`flock.action.add_${action.at ?? "front"}`);
  else if (action.do === "land") what = t("flock.game.land");
  else what = t(`flock.action.${action.do}`);
  if (action.from && action.to) what = listed([what, `${where(...action.from)} ↔ ${where(...action.to)}`]);
  else if (Number.isInteger(inner.col)) what = listed([what, t("flock.undo.column", { col: inner.col + 1 })]);
  const who = view.last_mover ? `${playerLabel(view.last_mover)}${t("join.colon")}` : "";
  return t("flock.undo.move", { n: view.moves, move: `${who}${what}` });
}

function askUndo() {
  $("undo-question").textContent = t("flock.undo.question", { what: lastMove(game.view) });
  $("undo-confirm").hidden = false;
  $("undo-yes").focus();
}

// Nothing left to undo: the focus to the board (moves) or the stage's entry (sheet), never to the page.
function focusAfterUndo() {
  if (mode === "moves") focusBoard();
  else focusEntry();
}

function render(data) {
  if (game && data.version <= game.version && data !== game) return;
  const entryChanged = !game || game.version !== data.version;
  game = data;
  const view = data.view;
  setNames(view.names);
  $("game-status").textContent = status(view);
  if (mode === "moves") $("prices").textContent = view.over ? "" : prices(view); // nothing costs a thing now
  playersTable(view);
  if (unlocked && entryChanged) $("undo-confirm").hidden = true; // a question about a move no longer last
  if (unlocked && mode === "sheet") $("undo").disabled = !view.stages.length;
  if (mode === "moves") drawMoves(view);
  drawSheet(view);
  if (entryChanged) drawEntry(view);
  if (view.over) showResult($("share-slot"), location.pathname);
}

render(await getJSON(root.dataset.gameApi));
if (mode === "moves") {
  // Escape cancels a chosen bird or the choices open below the board.
  $("game-board").closest("section").addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || (!selected && !$("choices").childElementCount)) return;
    event.preventDefault();
    cancel();
  });
}
follow(root.dataset.events, { on: { game: render }, poll: root.dataset.gameApi });
if (unlocked) {
  // Undo asks first, naming what it takes back; the question answered, the focus goes back to Undo (or the board).
  const answered = () => ($("undo").disabled ? focusAfterUndo() : $("undo").focus());
  $("undo").addEventListener("click", askUndo);
  $("undo-no").addEventListener("click", () => { $("undo-confirm").hidden = true; answered(); });
  $("undo-confirm").addEventListener("keydown", (event) => { if (event.key === "Escape") $("undo-no").click(); });
  $("undo-yes").addEventListener("click", async () => {
    $("undo-confirm").hidden = true;
    $("undo-error").textContent = "";
    await send("undo", {});
    answered();
  });
}
