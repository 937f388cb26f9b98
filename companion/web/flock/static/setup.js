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

// The flock dealt last, kept in the page's address (?players=crane,kite&seed=N): a reload, or the way back from
// the PIN page, shows the same flock again rather than a new deal the table never laid out.
const address = () => new URLSearchParams(window.location.search);

function remember(data) {
  const query = new URLSearchParams(window.location.search);
  query.set("players", data.players.join(","));
  query.set("seed", String(data.seed));
  window.history.replaceState(null, "", `${window.location.pathname}?${query}`);
  // Every way to the PIN page comes back here, to this flock (the PIN page takes a path on this site only).
  for (const link of document.querySelectorAll('a[href*="pin?next="]')) {
    const to = new URL(link.href);
    to.searchParams.set("next", `${window.location.pathname}?${query}`);
    link.href = `${to.pathname}${to.search}`;
  }
}

// The seed to deal from: the address's, while the seats are those it was dealt for (or it names no seats:
// `?seed=N` alone lays the same table again, a replayed evening or a test); none, for a new deal.
function seedFor(players, fresh) {
  const seed = address().get("seed");
  const dealtFor = address().get("players");
  if (fresh || !seed || (dealtFor !== null && dealtFor !== players.join(","))) return null;
  return seed;
}

async function deal({ fresh = false } = {}) {
  const slot = form.querySelector("[data-error-for]");
  slot.textContent = "";
  const players = seats();
  const seed = seedFor(players, fresh);
  const query = `players=${encodeURIComponent(players.join(","))}${seed ? `&seed=${encodeURIComponent(seed)}` : ""}`;
  const response = await fetch(`${root.dataset.setupApi}?${query}`);
  const data = await response.json();
  if (!response.ok) {
    slot.textContent = errorText(data);
    document.getElementById("setup-result").hidden = true;
    return;
  }
  laid = data;
  remember(data);
  drawBoard(document.getElementById("setup-board"), data.board, { label: t("flock.setup.flock") });
  const facts = document.getElementById("setup-facts");
  facts.replaceChildren(
    ...data.players.map((p) => el("li", t("flock.setup.takes", { player: playerLabel(p), cubes: data.cubes[p], cards: data.hands[p] }))),
    el("li", t("flock.setup.deck", { deck: data.deck.length, face_up: data.face_up.length })),
    el("li", t("flock.setup.display", { display: data.display, rest: data.movement_deck })),
    el("li", t(`flock.start.${data.start_reason}`, { player: playerLabel(data.start_player) }), "starts"),
    el("li", t("flock.setup.seed", { seed: data.seed }), "help seed"),
  );
  document.getElementById("setup-result").hidden = false;
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  deal();
});
document.getElementById("deal-again").addEventListener("click", () => deal({ fresh: true }));

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

// The names typed in, kept for this tab only (never in the address): the way back from the PIN page keeps them.
const NAMES_KEPT = "flock.setup.names";
const nameInputs = [...form.querySelectorAll('input[name="seat-name"]')];
try {
  const kept = JSON.parse(sessionStorage.getItem(NAMES_KEPT) ?? "[]");
  nameInputs.forEach((input, i) => { if (typeof kept[i] === "string" && !input.value) input.value = kept[i]; });
} catch { /* nothing kept, or storage refused: the fields start empty */ }
const keepNames = () => {
  try { sessionStorage.setItem(NAMES_KEPT, JSON.stringify(nameInputs.map((input) => input.value))); } catch { /* not kept */ }
};
form.addEventListener("input", keepNames);
keepNames(); // a name typed before this script ran (a quick hand on a slow phone) is kept too

// Back from the PIN page (or reloaded) with a flock in the address: the same seats, the same flock shown again.
const dealt = address().get("players")?.split(",").filter(Boolean) ?? [];
const selects = [...form.querySelectorAll('select[name="seat"]')];
if (dealt.length && address().get("seed") && dealt.length <= selects.length
    && dealt.every((p) => selects[0].querySelector(`option[value="${CSS.escape(p)}"]`))) {
  selects.forEach((select, i) => { select.value = dealt[i] ?? ""; });
  await deal();
}

if (unlocked) {
  document.getElementById("keep-moves").addEventListener("click", () => keep("moves"));
  document.getElementById("keep-sheet").addEventListener("click", () => keep("sheet"));
}
