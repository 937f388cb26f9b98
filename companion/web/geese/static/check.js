// The migration checker: the cards of a hand and w(n) → every value they can migrate as now, each with
// its best group and the arithmetic, the best of them first. The server's rules do the working out.

import { fieldErrorText } from "/static/js/refusal.js";
import { postJSON } from "/static/js/api.js";
import { listen } from "/static/js/listen.js";
import { listed, loadMessages, t } from "/static/js/i18n.js";
import { arithmetic, chip, drawChosen, picker, pickerStop, rulesOf } from "./cards.js";

await loadMessages();

const root = document.getElementById("checker");
const rules = rulesOf(root);
const $ = (id) => document.getElementById(id);
let hand = [];
let asked = 0;

function wintering() {
  const w = {};
  for (const input of root.querySelectorAll("input[data-number]")) w[input.dataset.number] = Number(input.value) || 0;
  return w;
}

function group(m) {
  const li = document.createElement("li");
  li.dataset.value = String(m.value);
  li.append(`${t("geese.sheet.as_value", { value: m.value })}${t("join.colon")}`, ...m.cards_list.map((c) => chip(c)), ` ${arithmetic(m)}`);
  return li;
}

async function check() {
  drawChosen($("chosen"), hand, { onDrop: (i) => { hand.splice(i, 1); check(); },
    emptied: () => pickerStop($("picker")), status: $("hand-status") });
  const mine = ++asked;
  const answer = await postJSON(root.dataset.api, { hand, wintering: wintering() });
  if (mine !== asked) return; // a newer question is on its way
  $("check-error").textContent = answer.ok ? "" : fieldErrorText(answer.data); // the page's language
  if (!answer.ok) return;
  const { best, groups, values, split } = answer.data;
  const several = split.migrations.length > 1; // one group is the best above already
  $("split-sum").textContent = several
    ? t("geese.check.split", { sum: split.migrations.map((m) => m.vp).join(" + "), vp: split.vp }) : "";
  $("split").replaceChildren(...(several ? split.migrations.map(group) : []));
  $("values").textContent = values.length ? t("geese.check.values", { values: listed(values) }) : "";
  $("best").textContent = best
    ? t("geese.check.best", { value: best.value, sum: arithmetic(best) })
    : t("geese.check.nothing");
  $("groups").replaceChildren(...groups.map(group));
}

picker($("picker"), rules, (card) => {
  if (hand.length < rules.max_hand) hand.push(card);
  check();
}, Number(root.dataset.players) || null); // a saved game's ground: its player count's deck alone
for (const input of root.querySelectorAll("input[data-number]")) input.addEventListener("input", check);
listen($("clear"), () => { hand = []; check(); });
check();
