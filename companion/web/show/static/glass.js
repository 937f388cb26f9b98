// An hourglass drawn in SVG: the sand in each bulb drawn by volume, so a draining glass looks right.
// Both bulbs are cones with their tips at the neck: a cone of height H holding a fraction f of its
// sand is filled to f^(1/2) of H from its tip (the top bulb's sand sits at the neck).

const NS = "http://www.w3.org/2000/svg";
const CENTRE = 55;
const TOP = 8;
const BOTTOM = 102;
const NECK_TOP = 53;
const NECK_BOTTOM = 57;
const BULB = NECK_TOP - TOP; // both bulbs are this tall
const OUTLINE = `M35 ${TOP}H75L57 ${NECK_TOP}V${NECK_BOTTOM}L75 ${BOTTOM}H35L53 ${NECK_BOTTOM}V${NECK_TOP}Z`;

function add(parent, name, attributes) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  parent.appendChild(node);
  return node;
}

export class Glass {
  constructor(container, colour, fill) {
    const svg = add(container, "svg", { viewBox: "0 0 110 110", class: "hourglass", "aria-hidden": "true" });
    const clip = add(add(svg, "defs", {}), "clipPath", { id: `sand-${colour}` });
    add(clip, "path", { d: OUTLINE });
    this.body = add(svg, "g", {});
    add(this.body, "path", { d: OUTLINE, class: "bulbs" });
    const sand = add(this.body, "g", { "clip-path": `url(#sand-${colour})`, fill });
    this.top = add(sand, "rect", { x: 30, width: 50, y: NECK_TOP, height: 0, class: "sand-top" });
    this.bottom = add(sand, "rect", { x: 30, width: 50, y: BOTTOM, height: 0, class: "sand-bottom" });
    this.stream = add(this.body, "line", { x1: CENTRE, x2: CENTRE, y1: NECK_TOP, y2: BOTTOM, stroke: fill, "stroke-width": 1.5 });
    add(this.body, "path", { d: OUTLINE, class: "outline" });
    for (const y of [2, BOTTOM]) add(this.body, "rect", { x: 31, y, width: 48, height: 6, rx: 2, fill, class: "cap" });
    this.last = "";
  }

  // `fraction` of the sand on top (for a lying glass: in its fuller bulb); `flowing` draws the stream.
  draw(fraction, { lying = false, flowing = false } = {}) {
    const f = Math.min(1, Math.max(0, fraction));
    const key = `${f.toFixed(4)}${lying}${flowing}`;
    if (key === this.last) return;
    this.last = key;
    const top = BULB * Math.sqrt(f);
    const bottom = BULB * (1 - Math.sqrt(f));
    this.top.setAttribute("y", NECK_TOP - top);
    this.top.setAttribute("height", top);
    this.bottom.setAttribute("y", BOTTOM - bottom);
    this.bottom.setAttribute("height", bottom);
    this.stream.setAttribute("y2", BOTTOM - bottom);
    this.stream.setAttribute("visibility", flowing && f > 0 ? "visible" : "hidden");
    this.body.setAttribute("transform", lying ? `rotate(90 ${CENTRE} ${CENTRE})` : "");
  }
}
