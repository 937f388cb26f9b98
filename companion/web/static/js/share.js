// Sharing a finished show or game: the phone's share sheet (Web Share API) where there is one,
// else the text copied to the clipboard; either way the page says what happened.

import { loadMessages, t } from "./i18n.js";
import { listen } from "./listen.js";

await loadMessages();

const button = document.getElementById("share-button");
const status = document.getElementById("share-status");

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const range = document.createRange(); // no clipboard access: select the text so a long press copies it
    range.selectNodeContents(document.getElementById("share-text"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    return false;
  }
}

listen(button, async () => {
  const text = button.dataset.text;
  if (navigator.share && (!navigator.canShare || navigator.canShare({ text }))) {
    try {
      await navigator.share({ text });
      status.textContent = t("share.shared");
      return;
    } catch (error) {
      if (error?.name === "AbortError") return; // the player closed the share sheet
    }
  }
  status.textContent = (await copy(text)) ? t("share.copied") : t("share.select");
});
