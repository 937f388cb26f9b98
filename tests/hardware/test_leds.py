"""What the strip shows at the key moments of a show, through LedShow onto a recording FakeStrip."""

import itertools
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import BadInput
from companion.hardware.ledshow import LedShow
from companion.hardware.strip import FakeStrip
from companion.leds import (AMBER, CHASE_GAP, GOLD, LOOK, OFF, TIMER_COLOURS, WHITE, StripLayout, render,
                           strip_inputs)

LAYOUT = StripLayout(markers=False)  # the sand alone; the marker pixels have tests of their own (test_leds_patterns)
HALF = LAYOUT.segment_len // 2
COLOURS = LAYOUT.colours
FPS = 30
RED, GREEN = TIMER_COLOURS["red"], TIMER_COLOURS["green"]


def glass(state="running", top_s=None, duration=30.0, role="timer", **more) -> dict:
    pose = {"running": "a_up", "empty": "a_up", "lying": "side", "out_of_play": None}[state]
    top = duration if top_s is None else top_s
    return {"pose": pose, "top_s": None if state == "out_of_play" else top, "state": state, "duration": duration,
            "role": role, "source": "emulated", "fault": None, "awaiting_turn": False, **more}


def snapshot(t=0.0, outcome="running", timers=None, **more) -> dict:
    """A running show: the given timers, every other colour out of play."""
    every = {colour: glass("out_of_play", role=None) for colour in COLOURS}
    return {"id": 7, "outcome": outcome, "t": t, "stars": 0, "countdown": {"timer": "orange", "position": 4},
            "crowd_tokens_turned": 0, "runouts": [], "advances": [], "warnings": [], "speed": 1.0,
            "warn_lead_s": 10.0, "timers": {**every, **(timers or {})}, **more}


def leds_showing(state, strip=None) -> LedShow:
    leds = LedShow(strip or FakeStrip(LAYOUT.total), LAYOUT, show_clock=lambda: state["t"])
    leds.update(state)
    return leds


def shown(state, now) -> tuple:
    """The frame the strip received for `state` at show time `now`."""
    leds = leds_showing(state)
    leds.frame(now)
    return leds.strip.frames[-1]


def segment(frame, colour):
    start = LAYOUT.segment_start(colour)
    return frame[start:start + LAYOUT.segment_len]


def top_bulb_full(frame, colour) -> bool:
    return segment(frame, colour)[:HALF] == (TIMER_COLOURS[colour],) * HALF


def samples(state, start, stop, *, fps=FPS):
    """Frames shown at `fps` from show time `start` to `stop`, with their times."""
    times = [start + i / fps for i in range(round((stop - start) * fps))]
    leds = leds_showing(state, FakeStrip(LAYOUT.total, history=len(times)))
    for now in times:
        leds.frame(now)
    return list(zip(times, leds.strip.frames, strict=True))


def onsets(flags_with_times) -> list[float]:
    """The times at which a flag turned on."""
    out, before = [], True
    for now, flag in flags_with_times:
        if flag and not before:
            out.append(now)
        before = flag
    return out


# --- one glass -----------------------------------------------------------------------------------

def test_a_full_glass_lights_its_top_bulb_only():
    frame = shown(snapshot(timers={"red": glass(top_s=30.0)}), 0.0)
    assert segment(frame, "red") == (RED,) * HALF + (OFF,) * HALF


def test_half_way_the_top_drains_toward_the_neck_and_the_bottom_fills_from_its_end():
    # Snapshot at t=0, drawn 15 s later: the renderer lets the running glass drain meanwhile.
    frame = shown(snapshot(timers={"red": glass(top_s=30.0)}), 15.0)
    quarter = HALF // 2
    assert segment(frame, "red") == (OFF,) * quarter + (RED,) * quarter + (OFF,) * quarter + (RED,) * quarter


def test_an_empty_timer_has_all_its_sand_below():
    # Until it runs out, the low-sand warning still blinks its top bulb in full.
    for _t, frame in samples(snapshot(t=40.0, timers={"red": glass("empty", top_s=0.0)}), 40.0, 41.0):
        assert segment(frame, "red")[HALF:] == (RED,) * HALF
        assert segment(frame, "red")[:HALF] in {(OFF,) * HALF, (RED,) * HALF}


def test_a_level_between_pixels_lights_the_last_one_partly():
    frame = shown(snapshot(timers={"green": glass(top_s=45.0, duration=60.0)}), 0.0)  # 6 of 8 top pixels
    top = segment(frame, "green")[:HALF]
    assert top[:2] == (OFF, OFF) and top[2:] == (GREEN,) * 6
    frame = shown(snapshot(timers={"green": glass(top_s=48.75, duration=60.0)}), 0.0)  # 6.5 pixels
    assert segment(frame, "green")[1] == (0, 127, 0)


@given(st.floats(min_value=10.5, max_value=60.0))
def test_sand_is_conserved_on_the_strip(top_s):
    frame = render(snapshot(timers={"green": glass(top_s=top_s, duration=60.0)}), 0.0, LAYOUT)
    sand = sum(g for _r, g, _b in segment(frame, "green")) / 255
    assert sand == pytest.approx(HALF, abs=2 / 255)
    top_sand = sum(g for _r, g, _b in segment(frame, "green")[:HALF]) / 255
    assert top_sand == pytest.approx(HALF * top_s / 60.0, abs=1 / 255)


def test_a_lying_glass_is_dimmed_and_keeps_its_sand():
    frame = shown(snapshot(t=50.0, timers={"red": glass("lying", top_s=22.5)}), 80.0)  # no flow while lying
    lying = segment(frame, "red")
    standing = segment(shown(snapshot(timers={"red": glass(top_s=22.5)}), 0.0), "red")
    assert [px != OFF for px in lying] == [px != OFF for px in standing]
    assert 0 < max(r for r, _g, _b in lying) <= 255 // 4


def test_out_of_play_segments_are_dark():
    frame = shown(snapshot(timers={"red": glass(top_s=20.0)}), 0.0)
    for colour in COLOURS[1:]:
        assert segment(frame, colour) == (OFF,) * LAYOUT.segment_len


@pytest.mark.parametrize("state", [None, {"outcome": "idle"}])
def test_no_show_means_every_led_off(state):
    leds = LedShow(FakeStrip(LAYOUT.total), LAYOUT, show_clock=lambda: 0.0)
    leds.update(state)
    leds.frame(12.0)
    assert leds.strip.frames == [(OFF,) * LAYOUT.total]


# --- low sand ------------------------------------------------------------------------------------

def test_the_low_sand_warning_starts_at_the_lead_time():
    state = snapshot(timers={"red": glass(top_s=30.0)})
    before = samples(state, 10.0, 19.5)  # 20.5..11 s left: no warning
    assert not any(top_bulb_full(frame, "red") for _t, frame in before)
    during = samples(state, 20.0, 25.0)  # 10..5 s left
    assert any(top_bulb_full(frame, "red") for _t, frame in during)
    assert any(not top_bulb_full(frame, "red") for _t, frame in during)


def test_the_warning_quickens_as_the_glass_nears_empty():
    state = snapshot(timers={"red": glass(top_s=30.0)})  # red blinks once per beat
    blinks = onsets((now, top_bulb_full(frame, "red")) for now, frame in samples(state, 20.0, 30.0))
    gaps = [b - a for a, b in zip(blinks, blinks[1:])]
    assert len(gaps) >= 6
    assert all(later <= earlier + 1 / FPS for earlier, later in zip(gaps, gaps[1:]))  # within a frame
    assert gaps[0] > 1.3 and gaps[-1] < 0.9


def test_an_overdue_or_empty_timer_keeps_the_fastest_beat():
    for state in (snapshot(t=0.0, timers={"red": glass(top_s=2.0)}),
                  snapshot(t=0.0, timers={"red": glass("empty", top_s=0.0)})):
        blinks = onsets((now, top_bulb_full(frame, "red")) for now, frame in samples(state, 4.0, 8.0))
        gaps = [b - a for a, b in zip(blinks, blinks[1:])]
        assert gaps and all(0.75 <= gap <= 0.85 for gap in gaps)


def test_each_colour_warns_in_its_own_rhythm():
    # Same sand left in all six glasses: only the rhythm tells them apart once colour is ignored.
    timers = {colour: glass(top_s=5.0, duration=30.0) for colour in COLOURS}
    frames = samples(snapshot(timers=timers), 0.0, 1.0, fps=240)
    rhythms = {colour: tuple(top_bulb_full(frame, colour) for _t, frame in frames) for colour in COLOURS}
    assert len(set(rhythms.values())) == len(COLOURS)
    blinks_per_beat = {colour: len(onsets(zip(range(len(r)), (False, *r)))) for colour, r in rhythms.items()}
    assert blinks_per_beat["red"] < blinks_per_beat["orange"] < blinks_per_beat["yellow"]


def test_the_countdown_timer_never_warns_and_shows_ready_to_turn_when_empty():
    running = snapshot(timers={"orange": glass(top_s=5.0, duration=40.0, role="countdown")})
    assert not any(top_bulb_full(frame, "orange") for _t, frame in samples(running, 0.0, 3.0))
    empty = snapshot(timers={"orange": glass("empty", top_s=0.0, duration=40.0, role="countdown")})
    necks = {segment(frame, "orange")[HALF - 1] for _t, frame in samples(empty, 0.0, 3.0)}
    assert necks == {WHITE}


# --- run-outs, faults ----------------------------------------------------------------------------

def chased(pixels) -> bool:
    """Every CHASE_GAP-th LED lit and the others dark: the run-out's chase."""
    lit = [px != OFF for px in pixels]
    first = lit.index(True)
    return all(on == ((i - first) % CHASE_GAP == 0) for i, on in enumerate(lit))


def test_a_run_out_chases_along_the_segment_for_flash_s():
    # An emulated glass is flipped at its run-out: it runs again while the chase shows.
    state = snapshot(t=30.0, timers={"red": glass(top_s=30.0)}, runouts=[{"timer": "red", "t": 30.0}],
                     crowd_tokens_turned=1)
    chase = [segment(frame, "red") for _t, frame in samples(state, 30.0, 32.9)]
    assert all(chased(pixels) and set(pixels) == {RED, OFF} for pixels in chase)
    assert len(set(chase)) == CHASE_GAP  # it moves through every offset
    after, plain = shown(state, 33.5), shown({**state, "runouts": []}, 33.5)
    assert segment(after, "red") == segment(plain, "red")
    assert segment(after, "red")[HALF - 1] == RED


def test_a_glass_awaiting_its_turn_chases_until_turned():
    waiting = glass("running", top_s=30.0, awaiting_turn=True)
    state = snapshot(t=100.0, timers={"red": waiting}, runouts=[{"timer": "red", "t": 30.0}])
    seen = {segment(frame, "red") for _t, frame in samples(state, 100.0, 101.0)}
    assert len(seen) == CHASE_GAP and all(chased(pixels) for pixels in seen)


def test_the_chase_keeps_a_human_pace_in_a_sped_up_demo():
    state = snapshot(t=0.0, timers={"red": glass(top_s=30.0, awaiting_turn=True)}, speed=10.0)
    frames = [segment(frame, "red") for _t, frame in samples(state, 0.0, 10.0)]  # one wall second
    moves = sum(a != b for a, b in zip(frames, frames[1:]))
    assert 4 <= moves <= 12  # a step every 0.08-0.25 s: followed by eye, not a blur


def test_a_faulty_sensor_shows_amber_and_white_alternating():
    state = snapshot(timers={"blue": glass(top_s=50.0, duration=70.0, fault="both switches closed for 5 s")})
    first, later = segment(shown(state, 0.0), "blue"), segment(shown(state, 0.5), "blue")
    assert set(first) == {AMBER, WHITE}
    assert all(a != b for a, b in zip(first, first[1:]))
    assert later == first[1:] + first[:1]


# --- countdown track and crowd tokens ------------------------------------------------------------

def track(frame):
    return frame[LAYOUT.countdown_start:LAYOUT.tokens_start]


def tokens(frame):
    return frame[LAYOUT.tokens_start:LAYOUT.total]


@pytest.mark.parametrize("position", [4, 3, 2, 1])
def test_the_countdown_track_lights_the_current_space(position):
    frame = shown(snapshot(countdown={"timer": "orange", "position": position}), 0.0)
    expected = [OFF] * 5
    expected[4 - position] = TIMER_COLOURS["orange"]
    assert track(frame) == tuple(expected)


@pytest.mark.parametrize("turned", [0, 1, 2])
def test_crowd_tokens_star_side_up_are_gold(turned):
    frame = shown(snapshot(crowd_tokens_turned=turned), 0.0)
    assert tokens(frame) == (GOLD,) * (3 - turned) + (OFF,) * turned


def test_a_win_celebrates_with_a_moving_rainbow():
    state = snapshot(t=171.0, outcome="win", stars=2, crowd_tokens_turned=1,
                     countdown={"timer": "orange", "position": 0})
    first, later = shown(state, 171.0), shown(state, 171.3)
    assert len(set(track(first))) == 5 and OFF not in track(first)
    assert track(later) != track(first)
    assert tokens(first) == (GOLD, GOLD, OFF)  # the stars won


def test_a_loss_turns_the_tokens_red_and_freezes_the_glasses():
    state = snapshot(t=95.0, outcome="loss", crowd_tokens_turned=3, runouts=[{"timer": "red", "t": 95.0}],
                     timers={"green": glass(top_s=3.0, duration=60.0)})
    late = shown(state, 200.0)
    assert tokens(late) == ((255, 0, 0),) * 3
    assert segment(late, "green") == segment(shown(state, 95.0), "green")  # no flow, no warning after the end


# --- layout --------------------------------------------------------------------------------------

def test_the_default_layout_has_104_leds():
    assert (LAYOUT.total, LAYOUT.countdown_start, LAYOUT.tokens_start) == (104, 96, 101)
    assert [LAYOUT.segment_start(c) for c in COLOURS] == [0, 16, 32, 48, 64, 80]


def test_a_smaller_layout_puts_everything_after_its_segments():
    layout = StripLayout(segment_len=8, colours=("red", "blue"), token_leds=0)
    frame = render(snapshot(timers={"blue": glass(top_s=70.0, duration=70.0)}), 0.0, layout)
    assert len(frame) == layout.total == 21
    assert frame[8:12] == [TIMER_COLOURS["blue"]] * 4 and frame[12:16] == [OFF] * 4
    assert frame[16:] == [TIMER_COLOURS["orange"]] + [OFF] * 4  # space 4 of the countdown track


@pytest.mark.parametrize("settings, field", [
    ({"segment_len": 15}, "strip.segment_leds"),
    ({"segment_len": 2}, "strip.segment_leds"),
    ({"colours": ("red", "pink")}, "strip.colours"),
    ({"colours": ("red", "red")}, "strip.colours"),
    ({"colours": ()}, "strip.colours"),
    ({"countdown_leds": 1}, "strip.countdown_leds"),
    ({"token_leds": 2}, "strip.token_leds"),
    ({"markers": "yes"}, "strip.markers"),
])
def test_bad_layouts_name_their_field(settings, field):
    with pytest.raises(BadInput) as caught:
        StripLayout(**settings)
    assert caught.value.field == field


# --- the LedShow shell ---------------------------------------------------------------------------

def test_a_strip_too_short_for_the_layout_is_refused():
    with pytest.raises(BadInput, match="strip.n"):
        LedShow(FakeStrip(100), LAYOUT, show_clock=lambda: 0.0)


def test_leds_past_the_layout_stay_dark():
    leds = leds_showing(snapshot(timers={"red": glass()}), FakeStrip(110))
    leds.frame(0.0)
    frame = leds.strip.frames[-1]
    assert len(frame) == 110 and frame[104:] == (OFF,) * 6 and frame[0] == RED


def test_step_animates_a_running_show_and_rests_when_idle():
    clock = [0.0]
    leds = LedShow(FakeStrip(LAYOUT.total), LAYOUT, show_clock=lambda: clock[0], linger_s=1.0)
    leds.update(snapshot(timers={"red": glass()}))
    assert leds.step() == pytest.approx(1 / FPS)
    leds.update({"outcome": "idle"})
    assert leds.step() is None
    assert leds.strip.frames[-1] == (OFF,) * LAYOUT.total


def test_step_lingers_on_a_win_then_rests():
    clock = [171.0]
    leds = LedShow(FakeStrip(LAYOUT.total), LAYOUT, show_clock=lambda: clock[0], linger_s=2.0)
    leds.update(snapshot(t=171.0, outcome="win", countdown={"timer": "orange", "position": 0}))
    delays = []
    while (delay := leds.step()) is not None:
        delays.append(delay)
        clock[0] += delay
    shown = len(leds.strip.frames)  # a frame a step, but for one the same as the last (not sent again)
    assert len(delays) == pytest.approx(2 * FPS, abs=1) and shown in (len(delays), len(delays) + 1)
    assert leds.picture(0, 0)["hold"] == 173.0  # two seconds on: the last frame is that instant's
    assert leds.strip.frames[-1] == tuple(render(leds._state, 173.0, LAYOUT))
    clock[0] += 10.0
    leds.update(snapshot(t=171.0, outcome="win", countdown={"timer": "orange", "position": 0}, muted=True))
    assert leds.step() is None and len(leds.strip.frames) == shown  # nothing it draws changed


def test_the_thread_draws_while_running_and_blanks_once_idle():
    strip = FakeStrip(LAYOUT.total)
    running, blank = threading.Event(), threading.Event()
    red_frames = []

    def watch(frame):
        if frame[HALF - 1] == RED:
            red_frames.append(frame)
            if len(red_frames) >= 3:
                running.set()
        elif frame == (OFF,) * LAYOUT.total and running.is_set():
            blank.set()

    strip.subscribe(watch)
    leds = LedShow(strip, LAYOUT, show_clock=itertools.count(1.0, 0.1).__next__).start()  # the sand moves
    try:
        leds.update(snapshot(timers={"red": glass()}))  # returns at once; the thread draws
        assert running.wait(5.0), "no frames while a show runs"
        leds.update({"outcome": "idle"})
        assert blank.wait(5.0), "the strip was not blanked when the show ended"
    finally:
        leds.close()
    assert not leds._thread.is_alive()


def test_a_still_picture_is_drawn_once_however_often_the_show_is_published():
    clock = [5.0]
    leds = LedShow(FakeStrip(LAYOUT.total), LAYOUT, show_clock=lambda: clock[0])
    aborted = snapshot(t=5.0, outcome="aborted", timers={"red": glass(fault="tilt_both_closed")})
    for n in range(5):  # the sensors' readings, the buzzer muted: published, drawing nothing new
        leds.update({**aborted, "seq": n, "sensors": {"red": [n % 2 == 0]}})
        assert leds.step() is None
        clock[0] += 0.7  # a fault's pattern would swap meanwhile: a still picture holds its first instant
    assert len(leds.strip.frames) == 1 and leds.strip.frames[0] == tuple(render(aborted, 5.0, LAYOUT))


def test_the_picture_changes_only_with_what_the_strip_draws_and_its_number_rises_across_shows():
    clock = [1.0]
    leds = LedShow(FakeStrip(LAYOUT.total), LAYOUT, show_clock=lambda: clock[0])
    running = snapshot(timers={"red": glass()})
    leds.update(running)
    leds.step()
    first = leds.picture(0, 0)
    assert first["state"] == strip_inputs(running) and first["hold"] is None
    assert first["layout"]["look"] == LOOK and first["layout"]["segment_len"] == LAYOUT.segment_len
    leds.update({**running, "muted": True, "seq": 99})
    clock[0] += 0.5
    leds.step()
    assert leds.picture(first["n"], 0)["n"] == first["n"]  # nothing new to show: the wait ran out
    again = LedShow(FakeStrip(LAYOUT.total), LAYOUT, show_clock=lambda: clock[0])  # new settings, a new show
    assert again.picture(0, 0)["n"] > first["n"]


def test_changes_sooner_than_a_frame_after_the_last_wait_for_the_next_frame_and_closing_ends_the_wait():
    strip, drawn = FakeStrip(LAYOUT.total), threading.Event()
    strip.subscribe(lambda frame: drawn.set())
    leds = LedShow(strip, LAYOUT, show_clock=lambda: 1.0, fps=0.001).start()  # a frame's time: 1000 s
    try:
        leds.update(snapshot(timers={"red": glass()}))
        assert drawn.wait(5.0), "the first change was not drawn at once"
        first = leds.picture(0, 5.0)
        for turned in range(1, 4):  # a burst of changes, each drawing something new
            leds.update(snapshot(crowd_tokens_turned=turned, timers={"red": glass()}))
        assert leds.picture(first["n"], 0.5)["n"] == first["n"] and len(strip.frames) == 1  # held for the next frame
    finally:
        leds.close()  # does not wait out the frame's time
    assert not leds._thread.is_alive()
