// The table's screen between shows: the group's progress, until a show starts; then the live show again.

import { follow } from "/static/js/follow.js";
import { loadMessages } from "/static/js/i18n.js";

await loadMessages(); // the banner's words, should the stream drop

const live = (state) => { if (state.outcome === "running") location.assign("/kiosk/"); };
fetch("/api/show").then((answer) => answer.json()).then(live);
follow("/api/show/events", { on: { state: live }, poll: "/api/show", banner: document.getElementById("kiosk-connection") });
