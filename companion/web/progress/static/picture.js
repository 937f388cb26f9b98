// Tonight's recap as a picture: the phone's share sheet sends the SVG card where it can take files, else the card
// is downloaded (the link beside the button does the same by hand).

import { loadMessages, t } from "/static/js/i18n.js";
import { listen } from "/static/js/listen.js";

await loadMessages();

const button = document.getElementById("picture-button");
const status = document.getElementById("picture-status");

listen(button, async () => {
  const answer = await fetch(button.dataset.url);
  const file = new File([await answer.blob()], button.dataset.name, { type: "image/svg+xml" });
  if (navigator.canShare?.({ files: [file] })) {
    try {
      await navigator.share({ files: [file], text: button.dataset.text });
      status.textContent = t("share.shared");
      return;
    } catch (error) {
      if (error?.name === "AbortError") return; // the player closed the share sheet
    }
  }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(file);
  link.download = file.name;
  link.click();
  URL.revokeObjectURL(link.href);
  status.textContent = t("progress.picture.saved");
});
