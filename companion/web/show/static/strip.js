// The LED strip drawn on screen, a row of dots per segment, from the table's strip stream.

import { follow } from "/static/js/follow.js";
import { t, timerName } from "/static/js/i18n.js";
import { symbolMark } from "/static/js/looks.js";

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
    for (const [key, value] of Object.entries({ cx: i * 10 + 5, cy: 5, r: 4, fill: "#000" })) dot.setAttribute(key, value);
    svg.appendChild(dot);
    dots.push(dot);
  }
  line.append(name, svg);
  container.appendChild(line);
  return dots;
}

// The strip has no state to read while its stream is refused: the page waits to be let in again.
export function showStrip(container, looks) {
  let dots = [];
  const drawLayout = (layout) => {
    container.replaceChildren();
    dots = layout.colours.flatMap((colour) => {
      const segment = row(container, timerName(colour), layout.segment_len, looks[colour]);
      segment[0].closest(".strip-row").dataset.colour = colour;
      return segment;
    });
    if (layout.countdown_leds) dots.push(...row(container, t("strip.countdown"), layout.countdown_leds));
    if (layout.token_leds) dots.push(...row(container, t("strip.tokens"), layout.token_leds));
  };
  const drawFrame = ({ pixels }) => {
    dots.forEach((dot, i) => dot.setAttribute("fill", `#${pixels.slice(i * 6, i * 6 + 6) || "000000"}`));
  };
  follow("/api/strip/events", { on: { layout: drawLayout, frame: drawFrame } });
}
