// Cards on the 帰る雁 pages: a suit's symbol and name always go with its number (colour is never the only
// cue), and a picker of every card the deck holds, built from the rules the server hands over.

import { listed, t } from "/static/js/i18n.js";
import { announce, redraw, rovingGrid, symbolText, tabStop } from "/static/js/keys.js";

export const rulesOf = (el) => JSON.parse(el.dataset.rules);
export const same = (a, b) => a.n === b.n && a.suit === b.suit;
export const cardName = (card) => `${t(`geese.suit.${card.suit}`)} ${card.n}`;

// A card as a chip: a button when `onClick` is given, else plain text. The eye reads "◆ 4 ×2", the ear
// "gull 4 ×2": the same words wherever the card appears. `key` names it for the focus (see keys.js).
export function chip(card, { onClick, count = 1, pressed, key } = {}) {
  const el = document.createElement(onClick ? "button" : "span");
  el.className = `gcard suit-${card.suit}`;
  const copies = count > 1 ? ` ×${count}` : "";
  const words = cardName(card) + copies;
  symbolText(el, `${t(`geese.sym.${card.suit}`)} ${card.n}${copies}`, words);
  el.title = words;
  el.dataset.card = `${card.n}-${card.suit}`;
  el.dataset.key = key ?? el.dataset.card;
  if (onClick) {
    el.type = "button";
    el.addEventListener("click", () => onClick(card));
    if (pressed !== undefined) el.setAttribute("aria-pressed", String(pressed));
  }
  return el;
}

// Every card of the deck as a button grid, one row per number; `onPick(card)` on a tap. With `players`, only
// the cards that game is played with (the numbers the rules take out for that count are not offered).
// From the keyboard it is one stop of Tab: the arrow keys move by number and suit, a digit goes to that number's row.
export function picker(container, rules, onPick, players = null) {
  container.replaceChildren();
  container.setAttribute("role", "grid");
  const removed = new Set(players ? rules.removed[String(players)] ?? [] : []);
  for (let n = 1; n <= rules.max_number; n += 1) {
    if (removed.has(n)) continue;
    const row = document.createElement("div");
    row.className = "picker-row";
    row.setAttribute("role", "row");
    for (const suit of rules.suits) {
      if (suit === "goose" && !rules.geese[String(n)]) continue;
      const cell = document.createElement("div");
      cell.setAttribute("role", "gridcell");
      cell.append(chip({ n, suit }, { onClick: onPick }));
      row.append(cell);
    }
    container.append(row);
  }
  rovingGrid(container, { byDigit: true });
  tabStop(container);
}

// The cards chosen from a hand into `box`, each a button that drops it (`onDrop(i)`), and said in `status`.
// A dropped card's focus goes to the next card, else the one before, else to `emptied()`.
export function drawChosen(box, cards, { onDrop, emptied, status, more = "" }) {
  redraw(box, () => box.replaceChildren(...(cards.length
    ? cards.map((card, i) => chip(card, { key: `chosen-${i}`, onClick: () => onDrop(i) }))
    : [t("geese.turn.none")])), () => [...box.querySelectorAll("button")].at(-1) ?? emptied());
  announce(status, cards.length ? `${t("geese.turn.chosen_now", { cards: listed(cards.map(cardName)) })} ${more}`.trim() : "");
}

// The button of the picker that holds the Tab stop.
export const pickerStop = (container) => container.querySelector('[data-key][tabindex="0"]');

// One migration's arithmetic in words (the score sheet's messages).
export function arithmetic(m) {
  if (m.reading === "rainbow") return t("geese.sheet.rainbow", { cards: m.cards, vp: m.vp });
  if (m.suit === "goose") return t("geese.sheet.all_geese", { cards: m.cards, largest: m.largest_suit, vp: m.vp });
  return t("geese.sheet.suit", { cards: m.cards, largest: m.largest_suit, suit: t(`geese.suit.${m.suit}`),
    of: m.of_suit, geese: m.geese, vp: m.vp });
}
