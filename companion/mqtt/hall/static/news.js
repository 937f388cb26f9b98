// What changed at a table, in words for the hall's status line: a show starting, glasses running out
// (and the crowd tokens left), a win or a loss, a table going offline. A card seen for the first time
// (the page just opened) has no news: the cards say how things are, the status line what just happened.

import { eventName, t, timerName } from "/static/js/i18n.js";

const running = (show) => show?.outcome === "running";
const ended = (show) => show?.outcome === "win" || show?.outcome === "loss";

export function news(before, after, crowdTokens) {
  if (!before || after.gone) return [];
  const table = after.table;
  const said = [];
  if (before.online !== false && after.online === false) said.push(t("hall.news_offline", { table }));
  const was = before.show;
  const now = after.show;
  // The same show goes on while it runs or has just ended; anything else running is a new one.
  const same = running(was) && (running(now) || ended(now)) && now.event.id === was.event.id
    && now.runouts.length >= was.runouts.length;
  if (running(now) && !same) said.push(t("hall.news_started", { table, event: eventName(now.event) }));
  const fresh = same ? now.runouts.slice(was.runouts.length) : [];
  if (fresh.length) {
    said.push(t("hall.news_runout", {
      table, timers: fresh.map(timerName).join(t("hall.news_and")), left: crowdTokens - now.crowd_tokens_turned,
    }));
  }
  if (same && now.outcome === "win") said.push(t("hall.news_win", { table, stars: now.stars, total: crowdTokens }));
  if (same && now.outcome === "loss") said.push(t("hall.news_loss", { table }));
  return said;
}
