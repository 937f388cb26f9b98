// The setup page: the players in seat order, the starting flock to copy, and what each player takes.

import { errorText, postJSON } from "/static/js/api.js";
import { loadMessages, t } from "/static/js/i18n.js";

await loadMessages();
const { drawBoard, el, playerLabel, unlocked } = await import("./board.js");

const root = document.getElementById("flock");
const form = document.getElementById("setup-form");
let laid = null;

function seats() {
  return [...form.querySelectorAll('select[name="seat"]')].map((s) => s.value).filter(Boolean);
}

// The people playing: {species: name} for every seat given a name.
function names() {
  const named = {};
  for (const select of form.querySelectorAll('select[name="seat"]')) {
    const name = select.parentElement.querySelector('input[name="seat-name"]').value.trim();
    if (select.value && name) named[select.value] = name;
  }
  return named;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const slot = form.querySelector("[data-error-for]");
  slot.textContent = "";
  const players = seats();
  // A seed in the page's address (?seed=N) lays the same table again: a replayed evening, or a test.
  const seed = new URLSearchParams(window.location.search).get("seed");
  const query = `players=${encodeURIComponent(players.join(","))}${seed ? `&seed=${encodeURIComponent(seed)}` : ""}`;
  const response = await fetch(`${root.dataset.setupApi}?${query}`);
  const data = await response.json();
  if (!response.ok) {
    slot.textContent = errorText(data);
    document.getElementById("setup-result").hidden = true;
    return;
  }
  laid = data;
  drawBoard(document.getElementById("setup-board"), data.board, { label: t("flock.setup.flock") });
  const facts = document.getElementById("setup-facts");
  facts.replaceChildren(
    ...data.players.map((p) => el("li", t("flock.setup.takes", { player: playerLabel(p), cubes: data.cubes[p], cards: data.hands[p] }))),
    el("li", t("flock.setup.deck", { deck: data.deck.length, face_up: data.face_up.length })),
    el("li", t("flock.setup.display", { display: data.display, rest: data.movement_deck })),
    el("li", t(`flock.start.${data.start_reason}`, { player: playerLabel(data.start_player) }), "starts"),
    el("li", t("flock.setup.seed", { seed: data.seed }), "help"),
  );
  document.getElementById("setup-result").hidden = false;
});

async function keep(mode) {
  const named = names();
  const body = { mode, players: laid.players, seed: laid.seed, ...(Object.keys(named).length ? { names: named } : {}) };
  const { ok, data } = await postJSON(root.dataset.gamesApi, body);
  if (!ok) {
    document.getElementById("keep-error").textContent = errorText(data);
    return;
  }
  window.location.assign(root.dataset.gamePage.replace(/0$/, String(data.id)));
}

form.querySelector('button[type="submit"]').disabled = false; // ready: until now a tap would have sent the form away

if (unlocked) {
  document.getElementById("keep-moves").addEventListener("click", () => keep("moves"));
  document.getElementById("keep-sheet").addEventListener("click", () => keep("sheet"));
}
