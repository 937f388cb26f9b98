// The setup page: the players in seat order, the starting flock to copy, and what each player takes.

import { postJSON } from "/static/js/api.js";
import { loadMessages, t } from "/static/js/i18n.js";

await loadMessages();
const { drawBoard, el, playerLabel, unlocked } = await import("./board.js");

const root = document.getElementById("flock");
const form = document.getElementById("setup-form");
let laid = null;

function seats() {
  return [...form.querySelectorAll('select[name="seat"]')].map((s) => s.value).filter(Boolean);
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const slot = form.querySelector("[data-error-for]");
  slot.textContent = "";
  const players = seats();
  const response = await fetch(`${root.dataset.setupApi}?players=${encodeURIComponent(players.join(","))}`);
  const data = await response.json();
  if (!response.ok) {
    slot.textContent = data.error;
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
  const { ok, data } = await postJSON(root.dataset.gamesApi, { mode, players: laid.players, seed: laid.seed });
  if (!ok) {
    document.getElementById("keep-error").textContent = data.error;
    return;
  }
  window.location.assign(root.dataset.gamePage.replace(/0$/, String(data.id)));
}

form.querySelector('button[type="submit"]').disabled = false; // ready: until now a tap would have sent the form away

if (unlocked) {
  document.getElementById("keep-moves").addEventListener("click", () => keep("moves"));
  document.getElementById("keep-sheet").addEventListener("click", () => keep("sheet"));
}
