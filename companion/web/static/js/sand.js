// How much sand a glass has on top at `now`: a state says how much it had (top_s) when it arrived
// (`receivedAt`, on the same clock as `now`); while the show and the glass run, it falls at the show's speed.
// Every page that lets the sand run between states asks here.

export function sandLeft(glass, show, receivedAt, now) {
  if (show.outcome !== "running" || glass.state !== "running") return glass.top_s;
  return Math.max(0, glass.top_s - ((now - receivedAt) / 1000) * show.speed);
}
