// The flock drawn as a grid of buttons: each bird by its species' symbol and colour, its sex by ♂/♀.

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

export function emptyBoard(columns) {
  return Array.from({ length: limits.rows }, () => Array(columns).fill(null));
}

// Draw `board` into `el`. Options: onTap(row, col), marks (Set of "r,c"), selected ("r,c"), holes (Set of "r,c"),
// targets (Set of "r,c"), focus ("r,c": the cell to move the focus to). With onTap the board is a grid of
// buttons, one tab stop moved by the arrow keys; a redraw keeps the focus on the same space.
export function drawBoard(el, board, { onTap = null, marks = new Set(), selected = null, holes = new Set(), targets = new Set(), label = "", focus = null } = {}) {
  el.style.setProperty("--columns", board[0].length);
  el.setAttribute("role", onTap ? "grid" : "table");
  el.setAttribute("aria-label", label || t("flock.board.label"));
  redraw(el, () => {
    el.replaceChildren(...board.map((row, r) => {
      const line = document.createElement("div");
      line.className = "board-row";
      line.setAttribute("role", "row");
      line.append(...row.map((bird, c) => drawCell(bird, r, c, { onTap, marks, selected, holes, targets })));
      return line;
    }));
    if (!onTap) return;
    rovingGrid(el);
    tabStop(el, focus);
  });
  if (focus) tabStop(el, focus).focus();
}

function drawCell(bird, r, c, { onTap, marks, selected, holes, targets }) {
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
  if (targets.has(key)) cell.classList.add("target");
  if (holes.has(key)) cell.classList.add("hole");
  const where = t("flock.cell.where", { row: r + 1, col: c + 1 }); // numbered for people, from 1
  const note = marks.has(key) ? ` (${t("flock.cell.marked")})` : targets.has(key) ? ` (${t("flock.cell.target")})` : "";
  const words = `${where}: ${birdName(bird)}${note}`;
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
