// The LED strip drawn on screen, a row of dots per segment, from the table's strip stream.
// The stream sends what the strip shows only when that changes (`picture`: the snapshot as the strip reads it,
// the show time it was sent at, the show time it holds still from); the page draws the frames in between
// itself (leds.js), so a running show costs the table one message a change, not a stream of frames.

import { follow } from "/static/js/follow.js";
import { t, timerName } from "/static/js/i18n.js";
import { symbolMark } from "/static/js/looks.js";
import { paint } from "./leds.js";

const NS = "http://www.w3.org/2000/svg";

// `look`, when the row is a glass's segment, puts its symbol before the label.
function row(container, label, count, look = null) {
  const line = document.createElement("div");
  line.className = "strip-row";
  const name = document.createElement("span");
  name.className = "strip-label";
  name.textContent = label;
  if (look) name.prepend(symbolMark(look), " ");
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${count * 10} 10`);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("preserveAspectRatio", "xMinYMid meet");
  const dots = [];
  for (let i = 0; i < count; i++) {
    const dot = document.createElementNS(NS, "circle");
    for (const [key, value] of Object.entries({ cx: i * 10 + 5, cy: 5, r: 4, fill: "#000000" })) dot.setAttribute(key, value);
    svg.appendChild(dot);
    dots.push(dot);
  }
  line.append(name, svg);
  container.appendChild(line);
  return dots;
}

const hex = (rgb) => "#" + rgb.map((c) => c.toString(16).padStart(2, "0")).join("");

// ---- the strip on the page --------------------------------------------------------------------------------------

// The strip has no state to read while its stream is refused: the page waits to be let in again.
export function showStrip(container, looks) {
  let dots = [];
  let layout = null;
  let picture = null; // the latest picture, and when it arrived on this page's clock
  let receivedAt = 0;
  let animating = false;
  const drawLayout = (sent) => {
    layout = sent;
    container.replaceChildren();
    dots = layout.colours.flatMap((colour) => {
      const segment = row(container, timerName(colour), layout.segment_len, looks[colour]);
      segment[0].closest(".strip-row").dataset.colour = colour;
      return segment;
    });
    if (layout.countdown_leds) dots.push(...row(container, t("strip.countdown"), layout.countdown_leds));
    if (layout.token_leds) dots.push(...row(container, t("strip.tokens"), layout.token_leds));
    if (picture) draw();
  };
  // The show time now, as the table's clock has it: the picture's, run on at the show's speed; held still from `hold`.
  const showTime = () => {
    const now = picture.now + ((performance.now() - receivedAt) / 1000) * (picture.state.speed || 1.0);
    return picture.hold == null ? now : Math.min(now, picture.hold);
  };
  const draw = () => {
    const now = showTime();
    paint(layout, picture.state, now).forEach((rgb, i) => {
      const fill = hex(rgb);
      if (dots[i] && dots[i].getAttribute("fill") !== fill) dots[i].setAttribute("fill", fill);
    });
    container.dataset.drawnAt = String(now); // the show time of the frame on screen
    return picture.hold == null || now < picture.hold;
  };
  const frame = () => {
    animating = Boolean(layout && picture) && draw();
    if (animating) requestAnimationFrame(frame);
  };
  const showPicture = (sent) => {
    picture = sent;
    receivedAt = performance.now();
    if (!layout) return;
    if (!animating) frame();
    else draw();
  };
  follow("/api/strip/events", { on: { layout: drawLayout, picture: showPicture } });
}
