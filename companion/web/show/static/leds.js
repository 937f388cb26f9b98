// What the LED strip shows at a show time, drawn step for step as companion/leds.py's `render` draws it (the same
// arithmetic in the same order, so the same colours); every constant comes from the table, in the layout's `look`.
// No imports: the table's tests run it beside `render` (tests/web/test_strip_paint.py).

const OFF = [0, 0, 0];

const mod = (a, n) => ((a % n) + n) % n; // Python's %: never negative
const scale = (rgb, factor) => rgb.map((c) => Math.trunc(c * factor));
const sum = (rgb) => rgb[0] + rgb[1] + rgb[2];

// Python's round(): halves to the even neighbour.
function roundEven(x) {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

// colorsys.hsv_to_rgb at full saturation and value.
function rainbow(hue) {
  const h = mod(hue, 1.0);
  let i = Math.trunc(h * 6.0);
  const f = (h * 6.0) - i;
  const p = 0.0, q = 1.0 * (1.0 - 1.0 * f), u = 1.0 * (1.0 - 1.0 * (1.0 - f));
  i = mod(i, 6);
  const rgb = [[1.0, u, p], [q, 1.0, p], [p, 1.0, u], [p, q, 1.0], [u, p, 1.0], [1.0, p, q]][i];
  return rgb.map((c) => roundEven(c * 255));
}

function bar(rgb, level, n) {
  const full = Math.trunc(level);
  const pixels = [];
  for (let i = 0; i < n; i++) pixels.push(i < full ? rgb : OFF);
  if (full < n) pixels[full] = scale(rgb, level - full);
  return pixels;
}

function glassPixels(rgb, fill, half) {
  fill = Math.min(1.0, Math.max(0.0, fill));
  return bar(rgb, fill * half, half).reverse().concat(bar(rgb, (1 - fill) * half, half).reverse());
}

function marked(look, segment, count, half) {
  if (half <= look.symbols || !count) return segment;
  return segment.map((c, i) => {
    if (i >= count) return c;
    const notch = scale(c, look.marker_notch);
    return sum(notch) >= sum(look.marker_glow) ? notch : look.marker_glow;
  });
}

function chase(look, rgb, wall, length) {
  const step = Math.trunc(wall * look.chase_leds_per_s);
  return Array.from({ length }, (_, i) => (mod(i - step, look.chase_gap) === 0 ? rgb : OFF));
}

function fault(look, wall, length) {
  const swap = mod(Math.trunc(wall / look.fault_swap_s), 2);
  return Array.from({ length }, (_, i) => (mod(i + swap, 2) ? look.amber : look.white));
}

function warningBeats(look, remaining, m) {
  const lead = m.state.warn_lead_s || 1.0;
  const gone = lead - remaining;
  const ramp = Math.min(gone, lead);
  const beats = look.slow_beats_per_s * ramp
    + (look.fast_beats_per_s - look.slow_beats_per_s) * ramp * ramp / (2 * lead);
  return (beats + look.fast_beats_per_s * Math.max(0.0, gone - lead)) / m.speed;
}

function rhythmOn(rhythm, beats) {
  return rhythm[Math.trunc(mod(beats, 1.0) * rhythm.length)] === "#";
}

function ranOutWithin(colour, m, flashS) {
  return (m.state.runouts || []).some((r) => r.timer === colour && (m.now - r.t) / m.speed >= 0.0
    && (m.now - r.t) / m.speed < flashS);
}

function segmentPixels(layout, colour, timer, m, marks) {
  const { look, segment_len: length, flash_s: flashS } = layout;
  const status = timer ? timer.state : "out_of_play";
  if (status === "out_of_play") return Array(length).fill(OFF);
  if (timer.fault) return fault(look, m.wall, length);
  const rgb = look.timer_colours[colour], half = Math.trunc(length / 2);
  if ((m.running && timer.awaiting_turn) || ranOutWithin(colour, m, flashS)) {
    return marked(look, chase(look, rgb, m.wall, length), marks, half);
  }
  if (timer.top_s == null || !timer.duration) return marked(look, Array(length).fill(OFF), marks, half);
  const flowing = m.running && status === "running";
  const raw = flowing ? timer.top_s - m.since : timer.top_s;
  const top = Math.max(0.0, raw);
  let pixels = glassPixels(rgb, top / timer.duration, half);
  if (status === "lying") return marked(look, pixels.map((c) => scale(c, look.lying_dim)), marks, half);
  pixels = marked(look, pixels, marks, half);
  if (timer.role === "countdown") {
    if (top === 0.0) pixels[half - 1] = look.white;
  } else if (m.running && top <= (m.state.warn_lead_s ?? 0.0)) {
    const beats = flowing ? warningBeats(look, raw, m) : m.wall * look.fast_beats_per_s;
    if (rhythmOn(look.rhythms[colour], beats)) pixels.fill(rgb, 0, half);
  }
  return pixels;
}

function countdownTrack(look, m, n) {
  if (m.state.outcome === "win") {
    return Array.from({ length: n }, (_, i) => rainbow(i / Math.max(n, 1) - m.wall * look.rainbow_turns_per_s));
  }
  const track = Array(n).fill(OFF);
  const { timer, position } = m.state.countdown || {};
  if (n && timer in look.timer_colours && Number.isInteger(position) && position >= 0) {
    track[Math.max(0, n - 1 - position)] = look.timer_colours[timer];
  }
  return track;
}

function crowdTokens(look, state, n) {
  if (state.outcome === "loss") return Array(n).fill(look.loss_red);
  const stars = n - Math.min(n, state.crowd_tokens_turned ?? 0);
  return Array(stars).fill(look.gold).concat(Array(n - stars).fill(OFF));
}

// Every LED's colour at show time `now`, as `render(state, now, layout)` gives it.
export function paint(layout, state, now) {
  const total = layout.colours.length * layout.segment_len + layout.countdown_leds + layout.token_leds;
  if (!state || (state.outcome ?? "idle") === "idle") return Array(total).fill(OFF);
  const speed = state.speed || 1.0;
  const m = { state, now, speed, running: state.outcome === "running", since: now - (state.t ?? now), wall: now / speed };
  const timers = state.timers || {};
  let pixels = [];
  for (const colour of layout.colours) {
    const marks = layout.markers ? layout.look.markers[colour] : 0;
    pixels = pixels.concat(segmentPixels(layout, colour, timers[colour], m, marks));
  }
  return pixels.concat(countdownTrack(layout.look, m, layout.countdown_leds), crowdTokens(layout.look, state, layout.token_leds));
}
