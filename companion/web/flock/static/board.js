// The flock drawn as a grid of buttons: each bird by its species' symbol and colour, its sex by ♂/♀.

import { errorText } from "/static/js/api.js";
import { t } from "/static/js/i18n.js";
import { redraw, rovingGrid, symbolText, tabStop } from "/static/js/keys.js";

export const limits = JSON.parse(document.getElementById("flock").dataset.limits);
export const unlocked = document.getElementById("flock").dataset.unlocked === "yes";

export function speciesName(owner) {
  return t(`flock.species.${owner}`);
}

// "▲♂" for a male kite, "○" for a swift; the same in every view.
export function birdSymbol(bird) {
  if (!bird) return "";
  return limits.looks[bird.owner].symbol + (bird.sex ? limits.sexes[bird.sex] : "");
}

export function birdName(bird) {
  if (!bird) return t("flock.cell.empty");
  if (!bird.sex) return speciesName(bird.owner);
  return t(`flock.bird.${bird.sex}`, { species: speciesName(bird.owner) });
}

// A row by the rules' words, front to back ("front row", "2nd row from the front", "back row"): the rules number
// no rows, so neither does any page. `row` counts from 0 at the front, as the board does.
export function rowName(row) {
  return t(`flock.row.${row + 1}`);
}

// One space, named the same way on the board, in the movement-card list and in every refusal.
export function where(row, col) {
  return t("flock.cell.where", { row: rowName(row), col: col + 1 });
}

// A refusal in the page's language: a player named as the page shows players, a row by its name.
export function refusalText(data) {
  const params = { ...(data?.params ?? {}) };
  if (params.player) params.player = playerLabel(params.player);
  if (Number.isInteger(params.row)) params.row = rowName(params.row - 1); // the table numbers rows from 1
  return errorText({ ...data, params });
}

export function emptyBoard(columns) {
  return Array.from({ length: limits.rows }, () => Array(columns).fill(null));
}

// Draw `board` into `el`. Options: onTap(row, col), marks (Set of "r,c"), selected ("r,c"), holes (Set of "r,c"),
// targets (Set of "r,c"), cardTargets (those of the targets only a movement card reaches), focus ("r,c": the cell
// to move the focus to). With onTap the board is a grid of
// buttons, one tab stop moved by the arrow keys; a redraw keeps the focus on the same space.
export function drawBoard(el, board, { onTap = null, marks = new Set(), selected = null, holes = new Set(), targets = new Set(), cardTargets = new Set(), label = "", focus = null } = {}) {
  el.style.setProperty("--columns", board[0].length);
  el.setAttribute("role", onTap ? "grid" : "table");
  el.setAttribute("aria-label", label || t("flock.board.label"));
  redraw(el, () => {
    el.replaceChildren(...board.map((row, r) => {
      const line = document.createElement("div");
      line.className = "board-row";
      line.setAttribute("role", "row");
      line.append(...row.map((bird, c) => drawCell(bird, r, c, { onTap, marks, selected, holes, targets, cardTargets })));
      return line;
    }));
    if (!onTap) return;
    rovingGrid(el);
    tabStop(el, focus);
  });
  if (focus) tabStop(el, focus).focus();
}

function drawCell(bird, r, c, { onTap, marks, selected, holes, targets, cardTargets }) {
  const place = document.createElement("div");
  place.setAttribute("role", onTap ? "gridcell" : "cell");
  const cell = document.createElement(onTap ? "button" : "span");
  const key = `${r},${c}`;
  if (onTap) {
    cell.type = "button";
    cell.addEventListener("click", () => onTap(r, c));
    if (selected === key) cell.setAttribute("aria-pressed", "true");
  }
  cell.className = "cell";
  cell.dataset.row = r;
  cell.dataset.col = c;
  cell.dataset.key = key;
  if (bird) {
    cell.classList.add("bird");
    cell.style.setProperty("--bird", limits.looks[bird.owner].fill);
    cell.dataset.owner = bird.owner;
  }
  if (marks.has(key)) cell.classList.add("marked");
  const byCard = targets.has(key) && cardTargets.has(key);
  if (targets.has(key)) cell.classList.add("target");
  if (byCard) cell.classList.add("card-target"); // a look of its own: reaching it costs a movement card
  if (holes.has(key)) cell.classList.add("hole");
  const note = marks.has(key) ? "flock.cell.marked" : byCard ? "flock.cell.card_target"
    : targets.has(key) ? "flock.cell.target" : null;
  const said = { where: where(r, c), bird: birdName(bird) };
  const words = note ? t("flock.cell.said_note", { ...said, note: t(note) }) : t("flock.cell.said", said);
  symbolText(cell, birdSymbol(bird) || (holes.has(key) ? "?" : marks.has(key) ? "◎" : "·"), words);
  cell.title = words;
  place.append(cell);
  return place;
}

// A small element with text, for building lists and tables.
export function el(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

const names = {}; // who plays each species, when the game names them

export function setNames(given = {}) {
  Object.assign(names, given);
}

// "▲ Ann (red kite)" when named, else "▲ red kite".
export function playerLabel(player) {
  const species = `${limits.looks[player].symbol} ${speciesName(player)}`;
  return names[player] ? t("flock.player.named", { name: names[player], species }) : species;
}
