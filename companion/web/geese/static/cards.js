// Cards on the 帰る雁 pages: a suit's symbol and name always go with its number (colour is never the only
// cue), and a picker of every card the deck holds, built from the rules the server hands over.

import { t } from "/static/js/i18n.js";

export const rulesOf = (el) => JSON.parse(el.dataset.rules);
export const same = (a, b) => a.n === b.n && a.suit === b.suit;
export const cardName = (card) => `${t(`geese.suit.${card.suit}`)} ${card.n}`;

// A card as a chip: a button when `onClick` is given, else plain text.
export function chip(card, { onClick, count = 1, pressed } = {}) {
  const el = document.createElement(onClick ? "button" : "span");
  el.className = `gcard suit-${card.suit}`;
  el.textContent = `${t(`geese.sym.${card.suit}`)} ${card.n}${count > 1 ? ` ×${count}` : ""}`;
  el.title = cardName(card);
  el.setAttribute("aria-label", count > 1 ? `${cardName(card)} ×${count}` : cardName(card));
  el.dataset.card = `${card.n}-${card.suit}`;
  if (onClick) {
    el.type = "button";
    el.addEventListener("click", () => onClick(card));
    if (pressed !== undefined) el.setAttribute("aria-pressed", String(pressed));
  }
  return el;
}

// Every card of the deck as a button grid, one row per number; `onPick(card)` on a tap.
export function picker(container, rules, onPick) {
  container.replaceChildren();
  for (let n = 1; n <= rules.max_number; n += 1) {
    const row = document.createElement("div");
    row.className = "picker-row";
    for (const suit of rules.suits) {
      if (suit === "goose" && !rules.geese[String(n)]) continue;
      row.append(chip({ n, suit }, { onClick: onPick }));
    }
    container.append(row);
  }
}

// One migration's arithmetic in words (the score sheet's messages).
export function arithmetic(m) {
  if (m.reading === "rainbow") return t("geese.sheet.rainbow", { cards: m.cards, vp: m.vp });
  if (m.suit === "goose") return t("geese.sheet.all_geese", { cards: m.cards, largest: m.largest_suit, vp: m.vp });
  return t("geese.sheet.suit", { cards: m.cards, largest: m.largest_suit, suit: t(`geese.suit.${m.suit}`),
    of: m.of_suit, geese: m.geese, vp: m.vp });
}
