// The score pad's players form: one name per line, checked as the table checks it.

import { enhance } from "/static/js/forms.js";
import { loadMessages, t } from "/static/js/i18n.js";

await loadMessages();

const playersShape = {
  body: ({ players }) => ({ players: players.split("\n").map((name) => name.trim()).filter(Boolean) }),
  check({ players }, form) {
    const { maxLines, maxLine } = form.elements.players.dataset;
    if (players.length > Number(maxLines)) return [["players", t("players.too_many", { n: maxLines })]];
    const long = players.findIndex((name) => name.length > Number(maxLine));
    if (long >= 0) return [[`players[${long}]`, t("players.too_long", { name: players[long], n: maxLine })]];
    const twice = players.find((name, i) => players.indexOf(name) !== i);
    return twice ? [["players", t("players.twice", { name: twice })]] : [];
  },
};

enhance(document.getElementById("players-form"), { shape: playersShape, done: () => window.location.reload() });
