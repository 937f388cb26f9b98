"""What the LED strip shows: a pure function from a show snapshot and the show time to pixel colours.

The strip holds one segment per timer (colour order), then the countdown track,
then the crowd tokens. The same segment serves as an LED-emulated hourglass or
as a warning light under a physical glass; it is drawn from the snapshot alone.

A segment reads like a glass standing upright: its first half is the top bulb,
its sand lit from the neck outward so it drains toward the middle; its second
half is the bottom bulb, filling from the far end toward the neck.

| what                        | looks like                                              |
|-----------------------------|---------------------------------------------------------|
| running / empty glass       | the sand levels in the timer's colour                   |
| low sand (non-countdown)    | the top bulb flashes in full in the colour's rhythm     |
| run-out, or awaiting a turn | a chase: every third LED lit, running toward the end B  |
| lying glass                 | the sand levels, dimmed                                 |
| countdown glass empty       | a steady white pixel at the neck: ready to turn         |
| sensor fault                | amber and white pixels, swapping every half second      |
| out of play, no show        | dark                                                    |

Each state differs from the others in which LEDs are lit and when, not only in
hue, so a colour-blind player (or a strip seen from across the room) reads it.
Every glass in play also carries its marker: the first LEDs of its segment (the
far end of the top bulb) are its marker pixels, one for red up to six for
purple (the order of the symbols ● ▲ ■ ◆ ★ ✚), each drawn at a third of the
sand's brightness where sand lies on it and as a faint white glow where none
does. A segment needs more LEDs per bulb than there are markers to carry them
(14 or more LEDs); a shorter one goes without, as does a strip set with
`markers = false` (under cradles that carry the symbols themselves).

Countdown track: the current space in the countdown timer's colour; a moving
rainbow on a win. Crowd tokens: gold while star side up; all red on a loss.

Low-sand rhythms, so that colour is never the only cue (a beat is 8 ticks,
# = the top bulb lit in full):

| timer  | rhythm     | reads as           |
|--------|------------|--------------------|
| red    | `#.......` | one short          |
| orange | `#.#.....` | two short          |
| yellow | `#.#.#...` | three short        |
| green  | `####....` | one long           |
| blue   | `###.#...` | long, short        |
| purple | `#.###...` | short, long        |

The beat quickens from 1.6 s at `warn_lead_s` to 0.8 s at empty. Blinks are
timed in wall seconds (show seconds / `speed`) so a sped-up demo stays legible.

>>> pixels = render({"outcome": "idle"}, 0.0)
>>> len(pixels), set(pixels)
(104, {(0, 0, 0)})
"""

import colorsys
from dataclasses import dataclass

from companion.errors import BadInput
from companion.fields import whole, yes_no
from companion.skyrockets.colours import COLOURS, SYMBOLS
from companion.skyrockets.show import CROWD_TOKENS

Colour = tuple[int, int, int]

OFF: Colour = (0, 0, 0)
WHITE: Colour = (255, 255, 255)
AMBER: Colour = (255, 110, 0)
GOLD: Colour = (255, 160, 20)
LOSS_RED: Colour = (255, 0, 0)
TIMER_COLOURS: dict[str, Colour] = {
    "red": (255, 0, 0),
    "orange": (255, 60, 0),
    "yellow": (255, 190, 0),
    "green": (0, 255, 0),
    "blue": (0, 40, 255),
    "purple": (170, 0, 255),
}

WARNING_RHYTHMS: dict[str, str] = {
    "red": "#.......",
    "orange": "#.#.....",
    "yellow": "#.#.#...",
    "green": "####....",
    "blue": "###.#...",
    "purple": "#.###...",
}
SLOW_BEATS_PER_S = 1 / 1.6
FAST_BEATS_PER_S = 1 / 0.8
CHASE_GAP = 3  # a run-out's chase lights every third LED
CHASE_LEDS_PER_S = 8.0  # and moves it on this many LEDs a second
MARKER_GLOW: Colour = (24, 24, 24)  # a marker pixel with no sand on it
MARKER_NOTCH = 0.33  # a marker pixel under sand, at this share of the sand's brightness
FAULT_SWAP_S = 0.5
LYING_DIM = 0.2
RAINBOW_TURNS_PER_S = 0.5


@dataclass(frozen=True)
class StripLayout:
    """Where everything sits on the strip: timer segments, countdown track, crowd tokens.

    >>> layout = StripLayout()
    >>> layout.total, layout.segment_start("orange"), layout.countdown_start, layout.tokens_start
    (104, 16, 96, 101)
    """

    segment_len: int = 16
    colours: tuple[str, ...] = COLOURS
    countdown_leds: int = 5  # spaces 4, 3, 2, 1, 0 (the button space last)
    token_leds: int = CROWD_TOKENS
    markers: bool = True  # each segment's marker pixels (off where the cradles carry the symbols)

    def __post_init__(self):
        length = self.segment_len
        if whole(length, "strip.segment_leds", 4, 64) % 2:
            raise BadInput("strip.segment_leds", f"must be an even number of LEDs from 4 to 64, not {length!r}",
                           code="errors.strip.segment", params={"low": 4, "high": 64})
        colours = tuple(self.colours)
        if not colours or len(set(colours)) != len(colours) or not set(colours) <= set(COLOURS):
            raise BadInput("strip.colours", f"must be distinct timer colours ({' '.join(COLOURS)}), not {colours!r}",
                           code="errors.strip.colours")
        object.__setattr__(self, "colours", colours)
        if whole(self.countdown_leds, "strip.countdown_leds", 0, 10) == 1:
            raise BadInput("strip.countdown_leds", "must be 0 (no track) or 2 to 10, not 1",
                           code="errors.strip.countdown", params={"high": 10})
        if whole(self.token_leds, "strip.token_leds", 0, CROWD_TOKENS) not in (0, CROWD_TOKENS):
            raise BadInput("strip.token_leds",
                           f"must be 0 or {CROWD_TOKENS} (one per crowd token), not {self.token_leds!r}",
                           code="errors.strip.tokens", params={"n": CROWD_TOKENS})
        yes_no(self.markers, "strip.markers")

    def segment_start(self, colour: str) -> int:
        """The index of the first LED of `colour`'s segment (its top bulb's far end)."""
        return self.colours.index(colour) * self.segment_len

    @property
    def countdown_start(self) -> int:
        return len(self.colours) * self.segment_len

    @property
    def tokens_start(self) -> int:
        return self.countdown_start + self.countdown_leds

    @property
    def total(self) -> int:
        return self.tokens_start + self.token_leds


def render(state: dict | None, now: float, layout: StripLayout = StripLayout(), *,
           flash_s: float = 3.0) -> list[Colour]:
    """The colour of every LED at show time `now` (at or after the snapshot's `t`).

    A run-out chases along its segment for `flash_s` wall seconds, and for as
    long as the glass awaits its turn.
    """
    pixels = [OFF] * layout.total
    if not state or state.get("outcome", "idle") == "idle":
        return pixels
    moment = _Moment(state, now)
    timers = state.get("timers", {})
    for colour in layout.colours:
        start = layout.segment_start(colour)
        marks = markers(colour) if layout.markers else 0
        segment = _segment(colour, timers.get(colour), moment, layout.segment_len, flash_s, marks)
        pixels[start:start + layout.segment_len] = segment
    pixels[layout.countdown_start:layout.tokens_start] = _countdown_track(moment, layout.countdown_leds)
    pixels[layout.tokens_start:layout.total] = _crowd_tokens(state, layout.token_leds)
    return pixels


TIMER_INPUTS = ("state", "fault", "awaiting_turn", "top_s", "duration", "role")


def strip_inputs(state: dict | None) -> dict:
    """The part of a snapshot `render` reads: two snapshots with equal inputs draw alike at every instant.

    A still show's instant (`t`) draws nothing, so only a running one keeps it.

    >>> strip_inputs({"outcome": "idle", "seq": 4, "sensors": {}})
    {'outcome': 'idle'}
    >>> state = {"outcome": "running", "t": 2.0, "seq": 9, "muted": False,
    ...          "timers": {"red": {"state": "running", "top_s": 28.0, "duration": 30.0, "pose": "a_up"}}}
    >>> strip_inputs(state)["timers"], render(strip_inputs(state), 7.0) == render(state, 7.0)
    ({'red': {'state': 'running', 'top_s': 28.0, 'duration': 30.0}}, True)
    """
    if not state or state.get("outcome", "idle") == "idle":
        return {"outcome": "idle"}
    inputs = {key: state[key] for key in ("outcome", "speed", "warn_lead_s", "countdown", "crowd_tokens_turned",
                                          "runouts") if key in state}
    if state.get("outcome") == "running" and "t" in state:
        inputs["t"] = state["t"]
    inputs["timers"] = {colour: {key: timer[key] for key in TIMER_INPUTS if key in timer}
                        for colour, timer in state.get("timers", {}).items() if timer}
    return inputs


def markers(colour: str) -> int:
    """How many marker pixels a timer's segment carries: its place among the symbols, red 1 to purple 6."""
    return list(SYMBOLS).index(colour) + 1


# What a page needs to draw the strip as `render` does (static/js of the show page draws it from
# `strip_inputs`): every constant of the look, named here once.
LOOK = {"timer_colours": TIMER_COLOURS, "rhythms": WARNING_RHYTHMS, "white": WHITE, "amber": AMBER, "gold": GOLD,
        "loss_red": LOSS_RED, "marker_glow": MARKER_GLOW, "marker_notch": MARKER_NOTCH, "symbols": len(SYMBOLS),
        "slow_beats_per_s": SLOW_BEATS_PER_S, "fast_beats_per_s": FAST_BEATS_PER_S, "chase_gap": CHASE_GAP,
        "chase_leds_per_s": CHASE_LEDS_PER_S, "fault_swap_s": FAULT_SWAP_S, "lying_dim": LYING_DIM,
        "rainbow_turns_per_s": RAINBOW_TURNS_PER_S, "markers": {colour: markers(colour) for colour in SYMBOLS}}


def _marked(segment: list[Colour], count: int, half: int) -> list[Colour]:
    # A marker never fills a bulb: the sand must still show beyond it, and the neck stays the neck.
    if half <= len(SYMBOLS) or not count:
        return segment
    # Under sand a notch, dimmer than the sand; never darker than the glow, so a marker pixel is never dark.
    return [max(_scale(c, MARKER_NOTCH), MARKER_GLOW, key=sum) if i < count else c for i, c in enumerate(segment)]


@dataclass(frozen=True)
class _Moment:
    """The snapshot seen at show time `now`: how long since it was taken, and blink time in wall seconds."""

    state: dict
    now: float

    @property
    def running(self) -> bool:
        return self.state.get("outcome") == "running"

    @property
    def speed(self) -> float:
        return self.state.get("speed") or 1.0

    @property
    def since(self) -> float:
        return self.now - self.state.get("t", self.now)

    @property
    def wall(self) -> float:
        return self.now / self.speed


def _segment(colour: str, timer: dict | None, moment: _Moment, length: int, flash_s: float,
             marks: int) -> list[Colour]:
    status = timer.get("state") if timer else "out_of_play"
    if status == "out_of_play":
        return [OFF] * length
    if timer.get("fault"):
        return _fault(moment.wall, length)
    rgb, half = TIMER_COLOURS[colour], length // 2
    if (moment.running and timer.get("awaiting_turn")) or _ran_out_within(colour, moment, flash_s):
        return _marked(_chase(rgb, moment.wall, length), marks, half)
    if timer.get("top_s") is None or not timer.get("duration"):
        return _marked([OFF] * length, marks, half)  # sand unknown
    # A running glass keeps draining between snapshots; `raw` goes below 0 once it is overdue.
    flowing = moment.running and status == "running"
    raw = timer["top_s"] - moment.since if flowing else timer["top_s"]
    top = max(0.0, raw)
    glass = _glass(rgb, top / timer["duration"], half)
    if status == "lying":
        return _marked([_scale(c, LYING_DIM) for c in glass], marks, half)
    glass = _marked(glass, marks, half)
    if timer.get("role") == "countdown":
        if top == 0.0:
            glass[half - 1] = WHITE  # ready to turn
    elif moment.running and top <= moment.state.get("warn_lead_s", 0.0):
        beats = _warning_beats(raw, moment) if flowing else moment.wall * FAST_BEATS_PER_S
        if _rhythm_on(WARNING_RHYTHMS[colour], beats):
            glass[:half] = [rgb] * half  # over the marker too: a flash of the whole bulb, however little sand is left
    return glass


def _glass(rgb: Colour, fill: float, half: int) -> list[Colour]:
    """Top bulb (`fill` of the sand, lit from the neck outward) then bottom bulb (lit from its far end)."""
    fill = min(1.0, max(0.0, fill))
    return _bar(rgb, fill * half, half)[::-1] + _bar(rgb, (1 - fill) * half, half)[::-1]


def _bar(rgb: Colour, level: float, n: int) -> list[Colour]:
    """`n` pixels lit up to `level` from index 0; the last one partly, so a level slides smoothly."""
    full = int(level)
    bar = [rgb] * full + [OFF] * (n - full)
    if full < n:
        bar[full] = _scale(rgb, level - full)
    return bar


def _warning_beats(remaining: float, moment: _Moment) -> float:
    # Beats since the warning began, for a beat rate rising linearly from slow to fast as the
    # sand runs out (and staying fast once overdue): integrating the rate, rather than dividing
    # the time by the current beat, keeps the rhythm smooth while it quickens.
    lead = moment.state.get("warn_lead_s") or 1.0
    gone = lead - remaining  # show seconds of sand gone since the warning began
    ramp = min(gone, lead)
    beats = SLOW_BEATS_PER_S * ramp + (FAST_BEATS_PER_S - SLOW_BEATS_PER_S) * ramp * ramp / (2 * lead)
    return (beats + FAST_BEATS_PER_S * max(0.0, gone - lead)) / moment.speed


def _rhythm_on(rhythm: str, beats: float) -> bool:
    return rhythm[int((beats % 1.0) * len(rhythm))] == "#"


def _chase(rgb: Colour, wall: float, length: int) -> list[Colour]:
    """Every CHASE_GAP-th LED lit, the pattern moving toward the segment's end: unlike any sand level or blink."""
    step = int(wall * CHASE_LEDS_PER_S)
    return [rgb if (i - step) % CHASE_GAP == 0 else OFF for i in range(length)]


def _ran_out_within(colour: str, moment: _Moment, flash_s: float) -> bool:
    return any(
        r["timer"] == colour and 0.0 <= (moment.now - r["t"]) / moment.speed < flash_s
        for r in moment.state.get("runouts", ())
    )


def _fault(wall: float, length: int) -> list[Colour]:
    swap = int(wall / FAULT_SWAP_S) % 2
    return [AMBER if (i + swap) % 2 else WHITE for i in range(length)]


def _countdown_track(moment: _Moment, n: int) -> list[Colour]:
    """LED i stands for space n-1-i; a start space beyond the track shows on its first LED."""
    if moment.state.get("outcome") == "win":
        return [_rainbow(i / max(n, 1) - moment.wall * RAINBOW_TURNS_PER_S) for i in range(n)]
    track = [OFF] * n
    countdown = moment.state.get("countdown") or {}
    timer, position = countdown.get("timer"), countdown.get("position")
    if n and timer in TIMER_COLOURS and isinstance(position, int) and position >= 0:
        track[max(0, n - 1 - position)] = TIMER_COLOURS[timer]
    return track


def _crowd_tokens(state: dict, n: int) -> list[Colour]:
    if state.get("outcome") == "loss":
        return [LOSS_RED] * n
    stars = n - min(n, state.get("crowd_tokens_turned", 0))
    return [GOLD] * stars + [OFF] * (n - stars)


def _rainbow(hue: float) -> Colour:
    r, g, b = colorsys.hsv_to_rgb(hue % 1.0, 1.0, 1.0)
    return (round(r * 255), round(g * 255), round(b * 255))


def _scale(rgb: Colour, factor: float) -> Colour:
    return (int(rgb[0] * factor), int(rgb[1] * factor), int(rgb[2] * factor))
