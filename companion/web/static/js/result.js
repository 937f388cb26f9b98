// A game that ends while its page is open: its result to share (the text, BG Stats, the download) as the table
// renders it on the page that keeps it, put in `slot` and its script started, so the phone that played the last
// move sees it without a reload. The focus goes to it when the move's own control went away with the game.

import { focusLost } from "./keys.js";

export async function showResult(slot, url) {
  if (slot.childElementCount || slot.dataset.asked) return; // a page draws often: the result is asked for once
  slot.dataset.asked = "yes";
  const answer = await fetch(url).catch(() => null);
  if (!answer?.ok) {
    delete slot.dataset.asked; // asked again at the next change
    return;
  }
  const found = new DOMParser().parseFromString(await answer.text(), "text/html").getElementById("share-slot");
  if (!found?.childElementCount || slot.childElementCount) return;
  slot.replaceChildren(...[...found.children].filter((part) => part.tagName !== "SCRIPT"));
  await import("./share.js");
  if (focusLost()) slot.querySelector("h2").focus();
}
