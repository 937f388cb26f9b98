// The strip at a show time, step for step as companion/leds.py render (a test runs both).
const OFF = [0, 0, 0];
// Python's % for a positive n: adding n only to a negative remainder (adding it to every one rounds some).
const mod = (a, n) => { const r = a % n; return r < 0 ? r + n : r; };
const int = Math.trunc;
const scale = (c, f) => c.map((v) => int(v * f));
const sum = (c) => c[0] + c[1] + c[2];
const fill = (n, c) => Array(n).fill(c);
const each = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const pyRound = (x) => { const r = Math.round(x); return r - x === 0.5 && r % 2 ? r - 1 : r; };

const bar = (c, level, n) => each(n, (i) => (i + 1 <= level ? c : i > level ? OFF : scale(c, level - i))).reverse();

function segment(L, colour, g, m) {
  const k = L.look, n = L.segment_len, half = int(n / 2), c = k.timer_colours[colour], W = k.white;
  const st = g ? g.state : "out_of_play";
  if (st === "out_of_play") return fill(n, OFF);
  if (g.fault) return each(n, (i) => (mod(i + mod(int(m.wall / k.fault_swap_s), 2), 2) ? k.amber : W));
  const marks = L.markers ? k.markers[colour] : 0;
  const glow = k.marker_glow, notch = (p) => scale(p, k.marker_notch);
  const mark = (s) => (half <= k.symbols || !marks ? s
    : s.map((p, i) => (i >= marks ? p : sum(notch(p)) >= sum(glow) ? notch(p) : glow)));
  const since = (r) => (m.now - r.t) / m.speed;
  if ((m.running && g.awaiting_turn) || (m.state.runouts || []).some((r) => r.timer === colour
    && since(r) >= 0 && since(r) < L.flash_s)) {
    return mark(each(n, (i) => (mod(i - int(m.wall * k.chase_leds_per_s), k.chase_gap) === 0 ? c : OFF)));
  }
  if (g.top_s == null || !g.duration) return mark(fill(n, OFF));
  const flows = m.running && st === "running", raw = flows ? g.top_s - m.since : g.top_s;
  const top = Math.max(0, raw), share = Math.min(1, Math.max(0, top / g.duration));
  const glass = bar(c, share * half, half).concat(bar(c, (1 - share) * half, half));
  if (st === "lying") return mark(glass.map((p) => scale(p, k.lying_dim)));
  const out = mark(glass), fast = k.fast_beats_per_s, slow = k.slow_beats_per_s, lead = m.state.warn_lead_s;
  if (g.role === "countdown") {
    if (top === 0) out[half - 1] = W;
  } else if (m.running && top <= (lead ?? 0)) {
    let beats = m.wall * fast;
    if (flows) {
      const l = lead || 1, gone = l - raw, ramp = Math.min(gone, l);
      beats = (slow * ramp + (fast - slow) * ramp * ramp / (2 * l) + fast * Math.max(0, gone - l)) / m.speed;
    }
    const rhythm = k.rhythms[colour];
    if (rhythm[int(mod(beats, 1) * rhythm.length)] === "#") out.fill(c, 0, half);
  }
  return out;
}

export function paint(L, state, now) {
  const k = L.look, C = k.timer_colours, n = L.countdown_leds, t = L.token_leds, outcome = state?.outcome ?? "idle";
  if (outcome === "idle") return fill(L.colours.length * L.segment_len + n + t, OFF);
  const speed = state.speed || 1, wall = now / speed;
  const m = { state, now, speed, wall, running: outcome === "running", since: now - (state.t ?? now) };
  let track = fill(n, OFF);
  const { timer, position } = state.countdown || {};
  if (outcome === "win") {
    track = each(n, (i) => {
      const h = mod(i / Math.max(n, 1) - wall * k.rainbow_turns_per_s, 1), j = int(h * 6), f = (h * 6) - j;
      const q = 1 - f, u = 1 - (1 - f);
      return [[1, u, 0], [q, 1, 0], [0, 1, u], [0, q, 1], [u, 0, 1], [1, 0, q]][j % 6].map((v) => pyRound(v * 255));
    });
  } else if (n && timer in C && Number.isInteger(position) && position >= 0) {
    track[Math.max(0, n - 1 - position)] = C[timer];
  }
  const stars = t - Math.min(t, state.crowd_tokens_turned ?? 0);
  return L.colours.flatMap((colour) => segment(L, colour, state.timers?.[colour], m)).concat(track,
    outcome === "loss" ? fill(t, k.loss_red) : fill(stars, k.gold).concat(fill(t - stars, OFF)));
}
