// The LED strip on screen, a row of dots per segment, drawn here from what the table says it shows.

import { follow } from "/static/js/follow.js";
import { t, timerName } from "/static/js/i18n.js";
import { symbolMark } from "/static/js/looks.js";
import { paint } from "./leds.js";

// A glass's segment: its symbol (`look`) before the label, its `colour` on the row.
function row(container, label, count, look = null, colour = null) {
  const line = document.createElement("div");
  line.className = "strip-row";
  if (colour) line.dataset.colour = colour;
  line.innerHTML = `<span class="strip-label"></span><svg viewBox="0 0 ${count * 10} 10" aria-hidden="true"
    preserveAspectRatio="xMinYMid meet">${Array.from({ length: count }, (_, i) =>
    `<circle cx="${i * 10 + 5}" cy="5" r="4" fill="#000"/>`).join("")}</svg>`;
  line.firstChild.textContent = label;
  if (look) line.firstChild.prepend(symbolMark(look), " ");
  container.appendChild(line);
  return [...line.querySelectorAll("circle")];
}

// Past the stream cap it reads /api/strip instead: the layout and the picture in one record.
export function showStrip(container, looks) {
  let dots = [], layout, drawn = "", picture, got = 0, moving = false;
  const drawLayout = (sent) => {
    layout = sent;
    drawn = JSON.stringify(sent);
    container.replaceChildren();
    dots = layout.colours.flatMap((c) => row(container, timerName(c), layout.segment_len, looks[c], c));
    if (layout.countdown_leds) dots.push(...row(container, t("strip.countdown"), layout.countdown_leds));
    if (layout.token_leds) dots.push(...row(container, t("strip.tokens"), layout.token_leds));
    if (picture) draw();
  };
  // At the table's show time, still from `hold`; true while it moves.
  const draw = () => {
    const { state, hold } = picture, until = hold ?? Infinity;
    const now = Math.min(picture.now + ((performance.now() - got) / 1000) * (state.speed || 1), until);
    paint(layout, state, now).forEach((rgb, i) => {
      const fill = "#" + rgb.map((c) => c.toString(16).padStart(2, "0")).join("");
      if (dots[i]?.getAttribute("fill") !== fill) dots[i]?.setAttribute("fill", fill);
    });
    container.dataset.drawnAt = now;
    return now < until;
  };
  const frame = () => {
    moving = Boolean(layout) && draw();
    if (moving) requestAnimationFrame(frame);
  };
  // A polled read carries its layout too: drawn again only when it is another.
  const showPicture = (sent) => {
    if (sent.layout && JSON.stringify(sent.layout) !== drawn) drawLayout(sent.layout);
    [picture, got] = [sent, performance.now()];
    if (moving) draw(); else frame();
  };
  // The picture first: a polled read goes to it (follow.js).
  follow("/api/strip/events", { on: { picture: showPicture, layout: drawLayout }, poll: "/api/strip" });
}
