// The stage's end entered by tapping: the board (species and sex; neutral), the nest card, the movement cards.

import { getJSON, postJSON } from "/static/js/api.js";
import { listed, t } from "/static/js/i18n.js";
import { redraw } from "/static/js/keys.js";
import { birdName, birdSymbol, drawBoard, el, emptyBoard, limits, playerLabel, refusalText, unlocked, where } from "./board.js";

// A stage editor inside `root` (a _stage_form.html block). Returns {setPlayers, setBoard, value, error}.
export function stageEditor(root, { cardsApi, players, board = null, holes = [] }) {
  const state = { players, board: board ?? emptyBoard(limits.columns[players.length]), brush: null,
                  holes: new Set(holes.map(([r, c]) => `${r},${c}`)), hands: {}, spaces: [], saved: { nest: {}, movement: {} } };
  const q = (selector) => root.querySelector(selector);
  const error = q(".stage-error");
  const done = q(".stage-done");

  function brushes() {
    const box = q(".brushes");
    box.replaceChildren();
    const options = [null, { owner: limits.neutral }];
    for (const p of state.players) options.push({ owner: p, sex: "F" }, { owner: p, sex: "M" });
    options.forEach((bird, i) => {
      const label = el("label", "", "brush");
      const input = document.createElement("input");
      input.type = "radio";
      input.name = `brush-${root.id || "stage"}`;
      input.checked = JSON.stringify(bird) === JSON.stringify(state.brush);
      input.addEventListener("change", () => { state.brush = bird; });
      const mark = el("span", bird ? birdSymbol(bird) : "·", bird ? "swatch bird" : "swatch");
      mark.setAttribute("aria-hidden", "true"); // the bird's name follows in words
      if (bird) mark.style.setProperty("--bird", limits.looks[bird.owner].fill);
      label.append(input, mark, el("span", bird ? birdName(bird) : t("flock.brush.empty")));
      label.dataset.brush = i;
      box.append(label);
    });
  }

  function draw() {
    drawBoard(q(".stage-board"), state.board, {
      holes: state.holes,
      label: t("flock.stage.board"),
      onTap(r, c) {
        state.board[r][c] = state.brush ? { ...state.brush } : null;
        state.holes.delete(`${r},${c}`);
        draw();
      },
    });
    drawBoard(q(".card-board"), emptyBoard(state.board[0].length), {
      marks: new Set(state.spaces.map(([r, c]) => `${r},${c}`)),
      label: t("flock.movement.spaces"),
      onTap(r, c) {
        const at = state.spaces.findIndex(([sr, sc]) => sr === r && sc === c);
        if (at >= 0) state.spaces.splice(at, 1);
        else state.spaces = [...state.spaces, [r, c]].slice(-2);
        draw();
      },
    });
    drawHands();
  }

  // The cards entered, each with its Remove button; a removed card's focus goes to the next one's button,
  // else the one before, else to the button that adds a card.
  function drawHands() {
    const list = q(".hands");
    redraw(list, () => {
      list.replaceChildren();
      for (const p of state.players) {
        for (const [i, card] of (state.hands[p] ?? []).entries()) {
          const item = el("li", `${playerLabel(p)}${t("join.colon")}${card.spaces.map((s) => t("flock.movement.space", { where: where(s.row, s.col), points: s.points })).join(" + ")}`);
          const remove = el("button", t("flock.movement.remove"));
          remove.type = "button";
          remove.dataset.key = `${p}-${i}`;
          remove.setAttribute("aria-label", `${t("flock.movement.remove")}${t("join.colon")}${item.textContent}`);
          remove.addEventListener("click", () => { state.hands[p].splice(i, 1); drawHands(); });
          item.append(" ", remove);
          list.append(item);
        }
      }
    }, () => [...list.querySelectorAll("button")].at(-1) ?? q(".add-card"));
  }

  function setPlayers(players) {
    const columns = limits.columns[players.length];
    if (!columns) return;
    const resized = state.board[0].length !== columns;
    state.players = players;
    if (resized) state.board = emptyBoard(columns);
    for (const p of Object.keys(state.hands)) if (!players.includes(p)) delete state.hands[p];
    const picker = q(".card-player");
    picker.replaceChildren(...players.map((p) => { const o = el("option", playerLabel(p)); o.value = p; return o; }));
    if (state.brush && state.brush.owner !== limits.neutral && !players.includes(state.brush.owner)) state.brush = null;
    brushes();
    draw();
  }

  function nest() {
    const text = q(".nest-points").value.trim();
    const points = text ? text.split(/[\s,、，]+/).filter(Boolean).map(Number) : [];
    return { points, pair: Number(q(".nest-pair").value || 0) };
  }

  function value() {
    return { players: state.players, board: state.board, nest: nest(), movement_cards: state.hands };
  }

  // A refusal where the player is looking: scrolled into the screen if the form's end is below it.
  function show(message) {
    error.textContent = message;
    done.textContent = "";
    if (message) error.scrollIntoView({ block: "nearest" });
  }

  function card() {
    if (state.spaces.length !== 2) return null;
    const points = [...root.querySelectorAll(".card-points")].map((input) => Number(input.value));
    return { spaces: state.spaces.map(([row, col], i) => ({ row, col, points: points[i] })) };
  }

  q(".add-card").addEventListener("click", () => {
    const made = card();
    if (!made) return show(t("flock.movement.two_spaces"));
    const player = q(".card-player").value;
    (state.hands[player] ??= []).push(made);
    state.spaces = [];
    show("");
    draw();
  });

  async function loadSaved() {
    try {
      state.saved = await getJSON(cardsApi);
    } catch {
      return;
    }
    const fill = (select, cards) => {
      const first = select.firstElementChild;
      select.replaceChildren(first, ...Object.keys(cards).map((name) => { const o = el("option", name); o.value = name; return o; }));
    };
    fill(q(".saved-nests"), state.saved.nest);
    fill(q(".saved-cards"), state.saved.movement);
  }

  q(".saved-nests").addEventListener("change", (event) => {
    const chosen = state.saved.nest[event.target.value];
    if (!chosen) return;
    q(".nest-points").value = chosen.points.join(", ");
    q(".nest-pair").value = chosen.pair;
  });
  q(".saved-cards").addEventListener("change", (event) => {
    const chosen = state.saved.movement[event.target.value];
    if (!chosen) return;
    (state.hands[q(".card-player").value] ??= []).push({ spaces: chosen.spaces });
    event.target.value = "";
    drawHands();
  });

  async function saveCard(type, name, cardValue) {
    if (!name.trim()) return show(t("flock.card.name_missing"));
    const { ok, data } = await postJSON(cardsApi, { type, name, card: cardValue, players: state.players });
    if (!ok) return show(refusalText(data));
    show("");
    done.textContent = t("flock.card.saved", { name: data.name });
    await loadSaved();
  }

  if (unlocked) {
    q(".save-nest").addEventListener("click", () => saveCard("nest", q(".nest-name").value, nest()));
    q(".save-card").addEventListener("click", () => {
      const made = card();
      if (!made) return show(t("flock.movement.two_spaces"));
      saveCard("movement", q(".card-name").value, made);
    });
  }

  // Start afresh from `board` (a stage's carried board, its refill spaces in `holes`).
  function load({ board: fresh = null, holes: spaces = [] }) {
    state.board = fresh ?? emptyBoard(limits.columns[state.players.length]);
    state.holes = new Set(spaces.map(([r, c]) => `${r},${c}`));
    state.hands = {};
    state.spaces = [];
    show("");
    draw();
  }

  loadSaved();
  setPlayers(players);
  root.hidden = false; // listened to from now on: a tap before would have gone unheard
  return { setPlayers, value, show, load };
}

// The scored stage as the players check it: who lands what, the arithmetic, the board after landing.
export function drawResult(box, result, players, nest, { stageNumber = null, cards = {} } = {}) {
  box.replaceChildren();
  if (stageNumber) box.append(el("h3", t("flock.sheet.stage", { n: stageNumber })));
  const table = el("table", "", "records result-table");
  const head = el("tr");
  for (const text of ["flock.result.player", "flock.result.landed", "flock.result.nest", "flock.result.movement",
                      "flock.result.stage", "flock.result.total"]) {
    const th = el("th", t(text));
    th.scope = "col";
    head.append(th);
  }
  table.append(head);
  for (const p of players) {
    const landed = result.landed[p];
    const s = result.scores[p];
    const row = el("tr");
    row.dataset.player = p;
    const th = el("th", playerLabel(p));
    th.scope = "row";
    row.append(th,
      el("td", t("flock.result.landed_detail", { count: landed.count, M: landed.M, F: landed.F, pairs: landed.pairs })),
      el("td", nestArithmetic(nest, landed, s.nest), "nest-points"),
      el("td", movementArithmetic(cards[p] ?? [], result.board_after_landing, p, s.movement), "movement-points"),
      el("td", String(s.stage), "stage-points"),
      el("td", String(s.total), "total-points"));
    table.append(row);
  }
  box.append(table);
  if (result.winners) {
    box.append(el("p", t("flock.result.winners", { names: listed(result.winners.map(playerLabel)) }), "winners"));
  }
  box.append(el("h3", t("flock.result.after")));
  const board = el("div", "", "flock-board");
  drawBoard(board, result.board_after_landing, { label: t("flock.result.after") });
  box.append(board);
}

// "3 + 3 + (2 + 1 + 2) = 11": each card's held spaces, the bonus for both, added up as the players do.
// Only shown when it adds up to the table's own figure, which stays the judge.
function movementArithmetic(cards, board, player, points) {
  const scored = cards.map((card) => {
    const held = card.spaces.filter((s) => board[s.row][s.col]?.owner === player).map((s) => s.points);
    return held.length === card.spaces.length ? [...held, limits.both_bonus] : held;
  });
  const terms = scored.flat();
  if (terms.length < 2 || terms.reduce((a, b) => a + b, 0) !== points) return String(points);
  const parts = scored.map((held) => (held.length > 1 ? `(${held.join(" + ")})` : String(held[0] ?? 0)));
  return `${parts.join(" + ")} = ${points}`;
}

// "11 + 3 × 1 = 14": the card's points for the birds landed, and the pair bonus, as the players add them up.
function nestArithmetic(nest, landed, points) {
  if (!landed.count || !nest) return String(points);
  const base = nest.points[landed.count - 1];
  return landed.pairs && nest.pair ? `${base} + ${nest.pair} × ${landed.pairs} = ${points}` : String(points);
}
