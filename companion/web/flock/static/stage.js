// The stage-scoring page: pick the players, tap the board, enter the nest and movement cards, read the scores.

import { postJSON } from "/static/js/api.js";
import { listen } from "/static/js/listen.js";
import { loadMessages } from "/static/js/i18n.js";

await loadMessages();
const { stageEditor, drawResult } = await import("./editor.js");
const { refusalText } = await import("./board.js");

const root = document.getElementById("flock");
const chosen = () => [...document.querySelectorAll('.players-pick input[name="player"]:checked')].map((box) => box.value);
const editor = stageEditor(root.querySelector(".stage-editor"), { cardsApi: root.dataset.cardsApi, players: chosen() });

for (const box of document.querySelectorAll('.players-pick input[name="player"]')) {
  box.addEventListener("change", () => editor.setPlayers(chosen()));
}

listen(root.querySelector(".score-stage"), async () => {
  const body = editor.value();
  body.players = chosen();
  const { ok, data } = await postJSON(root.dataset.scoreApi, body);
  const section = document.getElementById("stage-result");
  if (!ok) {
    editor.show(refusalText(data));
    section.hidden = true;
    return;
  }
  editor.show("");
  drawResult(section.querySelector(".flock-result"), data, body.players, body.nest, { cards: body.movement_cards });
  section.hidden = false;
});
