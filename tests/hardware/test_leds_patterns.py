"""The strip read without colour: which glass a segment is, and low sand and run-outs, by which LEDs are lit.

Every check here looks at lit and dark LEDs only (or their brightness), never
at hue: what a colour-blind player, or a photo in greyscale, would see.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.leds import MARKER_GLOW, OFF, SLOW_BEATS_PER_S, StripLayout, markers, render
from companion.skyrockets.colours import COLOURS

MARKED, PLAIN = StripLayout(), StripLayout(markers=False)
HALF = MARKED.segment_len // 2
WARN_LEAD = 10.0

colours = st.sampled_from(COLOURS)


def glass(state="running", top_s=30.0, duration=30.0, role="timer", **more) -> dict:
    return {"pose": "side" if state == "lying" else "a_up", "top_s": top_s, "state": state, "duration": duration,
            "role": role, "source": "emulated", "fault": None, "awaiting_turn": False, **more}


def snapshot(colour: str, timer: dict, outcome="running", **more) -> dict:
    """A show at t = 0 with only `colour` in play."""
    timers = {c: {"state": "out_of_play", "top_s": None, "role": None, "fault": None} for c in COLOURS}
    return {"outcome": outcome, "t": 0.0, "speed": 1.0, "warn_lead_s": WARN_LEAD, "runouts": [],
            "countdown": {"timer": "orange", "position": 4}, "crowd_tokens_turned": 0,
            "timers": {**timers, colour: timer}, **more}


def segment(state, colour, now=0.0, layout=MARKED) -> list:
    start = layout.segment_start(colour)
    return render(state, now, layout)[start:start + layout.segment_len]


def lit(pixels) -> list[bool]:
    return [px != OFF for px in pixels]


def luma(px) -> float:
    return 0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2]


def runs(flags) -> int:
    """How many separate stretches of lit LEDs."""
    return sum(1 for i, on in enumerate(flags) if on and (i == 0 or not flags[i - 1]))


# --- which glass: the marker pixels --------------------------------------------------------------

def test_an_emptied_top_bulb_shows_each_glass_by_its_count_of_marker_pixels():
    counts = {}
    for colour in COLOURS:
        empty = snapshot(colour, glass("empty", top_s=0.0), outcome="loss")  # the show over: no blinking
        top = segment(empty, colour)[:HALF]
        assert top[:markers(colour)] == [MARKER_GLOW] * markers(colour)
        counts[colour] = sum(lit(top))
    assert list(counts.values()) == [1, 2, 3, 4, 5, 6]


@given(colours, st.floats(min_value=0.0, max_value=1.0), st.sampled_from(["running", "empty", "lying"]),
       st.floats(min_value=0.0, max_value=30.0))
def test_markers_change_only_their_own_pixels_and_always_show(colour, fill, state, now):
    state_ = snapshot(colour, glass(state, top_s=30.0 * fill), warn_lead_s=-1.0)  # no warning over them
    marked, plain = segment(state_, colour, now), segment(state_, colour, now, PLAIN)
    k = markers(colour)
    assert marked[k:] == plain[k:]
    for mark, sand in zip(marked[:k], plain[:k]):
        assert mark != OFF  # lit whatever the sand does: a glow, or a notch dimmer than the sand on it
        assert mark == MARKER_GLOW or luma(mark) < luma(sand)


def test_a_faulty_or_out_of_play_glass_carries_no_marker():
    faulty = snapshot("blue", glass(fault="both switches closed"))
    assert segment(faulty, "blue") == segment(faulty, "blue", layout=PLAIN)
    assert set(segment(snapshot("red", glass()), "blue")) == {OFF}


def test_a_short_segment_goes_without_markers():
    short = StripLayout(segment_len=12)
    state = snapshot("purple", glass(top_s=80.0, duration=80.0))
    assert segment(state, "purple", layout=short) == segment(state, "purple", layout=StripLayout(segment_len=12,
                                                                                                  markers=False))


# --- low sand and run-outs: by pattern, not by hue -----------------------------------------------

@given(colours, st.floats(min_value=1.7, max_value=WARN_LEAD - 0.5))
def test_low_sand_changes_the_brightness_of_the_leds_within_a_beat(colour, top_s):
    """Against the same glass without a warning, some moment of the first slow beat (before it empties) differs in
    how bright its LEDs are, and at such a moment the whole top bulb shines as sand, which sand alone never does."""
    warned = snapshot(colour, glass(top_s=top_s))
    unwarned = {**warned, "warn_lead_s": 0.0}
    beat = 1 / SLOW_BEATS_PER_S
    times = [i * beat / 32 for i in range(32)]
    k = markers(colour)
    bright = [([round(luma(px)) for px in segment(warned, colour, t)], [round(luma(px)) for px in segment(unwarned, colour, t)])
              for t in times]
    assert any(a != b for a, b in bright)
    full = max(bright[0][1])  # a whole sand pixel of this colour
    assert any(a[:HALF] == [full] * HALF for a, _b in bright)  # marker pixels too
    assert not any(b[:k] == [full] * k for _a, b in bright)


@given(colours, st.floats(min_value=0.0, max_value=60.0), st.booleans())
def test_a_run_out_never_looks_like_sand(colour, now, awaiting):
    """A chase lights three or more separate stretches; sand (top bulb, bottom bulb) at most two."""
    timer = glass(top_s=30.0, awaiting_turn=awaiting)
    state = snapshot(colour, timer, runouts=[] if awaiting else [{"timer": colour, "t": 0.0}])
    k = markers(colour)
    if awaiting or now < 3.0:
        assert runs(lit(segment(state, colour, now))[k:]) >= 3
    assert runs(lit(segment(snapshot(colour, glass(top_s=30.0 * (now % 1.0))), colour, now))[k:]) <= 2


@pytest.mark.parametrize("state", ["running", "empty", "lying"])
@pytest.mark.parametrize("top_s", [0.0, 3.3, 15.0, 29.9, 30.0])
def test_no_sand_level_or_warning_makes_three_stretches(state, top_s):
    for colour in COLOURS:
        for t in (0.0, 0.2, 0.45, 0.7, 1.1):
            frame = segment(snapshot(colour, glass(state, top_s=top_s)), colour, t)
            assert runs(lit(frame)[markers(colour):]) <= 2, (colour, t)
