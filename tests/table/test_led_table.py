"""A show played only with flip buttons, its LED strip checked at every key moment."""

import pytest

from companion.leds import CHASE_GAP, GOLD, LOSS_RED, MARKER_GLOW, OFF, TIMER_COLOURS, WHITE
from tabletop import Hands, live, replayed



def strip(table, at: float | None = None) -> dict:
    """The strip's pixels now (or at show time `at`), cut into its parts; also checks the fake strip recorded them."""
    leds, layout = table.rig.leds, table.rig.layout
    pixels = leds.frame(table.desk.show_time() if at is None else at)
    assert list(table.rig.strip.frames[-1][:layout.total]) == pixels
    n = layout.segment_len
    parts = {c: pixels[layout.segment_start(c):layout.segment_start(c) + n] for c in layout.colours}
    parts["countdown"] = pixels[layout.countdown_start:layout.countdown_start + layout.countdown_leds]
    parts["tokens"] = pixels[layout.tokens_start:layout.tokens_start + layout.token_leds]
    return parts


def lit(pixels) -> int:
    return sum(p != OFF for p in pixels)


def test_full_half_low_runout_lying_and_loss(table):
    hands = Hands(table)
    assert set(strip(table)["red"]) == {OFF}  # no show: dark
    table.desk.start_show("training")
    start = strip(table)
    # Full: all sand on top, the first LED red's one marker pixel (dimmer, under sand).
    assert start["red"][1:8] == [TIMER_COLOURS["red"]] * 7 and lit(start["red"][8:]) == 0
    assert OFF != start["red"][0] != TIMER_COLOURS["red"] and max(start["red"][0]) < 255 * 0.5
    assert start["tokens"] == [GOLD] * 3
    assert max(max(p) for p in start["green"]) < 255 * 0.3 and lit(start["green"]) > 0  # lying: dimmed

    hands.wait(15)
    half = strip(table)["red"]
    assert lit(half[1:8]) == pytest.approx(4, abs=1) and lit(half[8:]) == pytest.approx(4, abs=1)
    assert half[0] == MARKER_GLOW  # the marker pixel glows where the sand has gone

    hands.wait(10)  # 25 s: red has 5 s left, inside the 10 s warning lead
    tops = [lit(strip(table, table.desk.show_time() + dt)["red"][:8]) for dt in [i * 0.05 for i in range(40)]]
    assert max(tops) == 8 and min(tops) < 8  # the top bulb blinks in full, in red's rhythm

    hands.wait(5.5)  # red ran out at 30 s: a token turned, the segment runs its chase
    assert table.desk.snapshot()["crowd_tokens_turned"] == 1
    chase = [strip(table, table.desk.show_time() + dt)["red"][1:] for dt in [i * 0.05 for i in range(20)]]
    assert len({tuple(pixels) for pixels in chase}) == CHASE_GAP
    assert all(lit(pixels) == pytest.approx(15 / CHASE_GAP, abs=1) for pixels in chase)
    assert strip(table)["tokens"].count(GOLD) == 2

    hands.wait(40)  # yellow at 50, red again at 60: lost
    assert table.desk.snapshot()["outcome"] == "loss"
    assert strip(table)["tokens"] == [LOSS_RED] * 3
    assert live(table) == replayed(table)


def test_countdown_track_and_win_celebration(table):
    hands = Hands(table)
    table.desk.start_show({"id": "quick", "countdown": "red", "countdown_start": 2, "running": ["red"]})
    track = strip(table)["countdown"]
    assert lit(track) == 1 and TIMER_COLOURS["red"] in track
    hands.wait(30.5)
    assert WHITE in strip(table)["red"][6:10]  # the empty countdown glass: a white neck, ready to turn
    hands.press("red")
    assert table.desk.snapshot()["countdown"]["position"] == 1
    moved = strip(table)["countdown"]
    assert lit(moved) == 1 and moved != track
    hands.wait(30.5)
    hands.press("red")
    assert table.desk.snapshot()["outcome"] == "win" and table.desk.snapshot()["stars"] == 3
    frames = [tuple(strip(table, table.desk.show_time() + dt)["countdown"]) for dt in (0, 0.3, 0.6)]
    assert len(set(frames)) > 1 and all(lit(f) == len(f) for f in frames)  # a moving rainbow
    assert live(table) == replayed(table)
