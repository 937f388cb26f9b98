// Starting a tracked game: the players' names, one a line in turn order from the start player.

import { enhance } from "/static/js/forms.js";
import { loadMessages, t } from "/static/js/i18n.js";
import { rulesOf } from "./cards.js";

await loadMessages();

const form = document.getElementById("new-game");
if (form) {
  const rules = rulesOf(form);
  const shape = {
    body: ({ players }) => ({ players: players.split("\n").map((name) => name.trim()).filter(Boolean) }),
    check({ players }) {
      const low = rules.players[0];
      const high = rules.players.at(-1);
      if (!rules.players.includes(players.length)) return [["players", t("geese.new.count", { low, high })]];
      const long = players.findIndex((name) => name.length > rules.max_name);
      if (long >= 0) return [[`players[${long}]`, t("players.too_long", { name: players[long], n: rules.max_name })]];
      const twice = players.find((name, i) => players.indexOf(name) !== i);
      return twice ? [["players", t("players.twice", { name: twice })]] : [];
    },
  };
  enhance(form, { shape, done: (game) => { window.location.href = form.dataset.tracker.replace(/0$/, String(game.id)); } });
}
