"""Flip buttons: flips and lays from explicit edge times, and the gpiozero shell on mock pins."""

from hypothesis import given
from hypothesis import strategies as st
from pytest import approx

from companion.clock import FakeClock
from companion.hardware.buttons import ButtonAction, FlipButton, GpioFlipButton
from companion.hardware.pins import RawEdge


def actions(changes):
    return [(a.action, round(a.t, 6)) for a in changes]


def press(button, down, up):
    button.edge(True, down)
    button.edge(False, up)


def test_a_short_press_flips_when_released():
    button = FlipButton("red")
    button.edge(True, 1.0)
    assert button.update(1.5) == [] and button.pressed
    button.edge(False, 1.6)
    assert button.update(10.0) == [ButtonAction("red", "flip", approx(1.63))]
    assert not button.pressed and button.next_due() is None


def test_a_long_press_lays_once_held_long_enough_and_nothing_on_release():
    button = FlipButton("red")
    button.edge(True, 1.0)
    assert button.update(1.0299) == []
    assert button.next_due() == approx(1.03)
    button.update(1.03)
    assert button.next_due() == approx(1.83)
    assert button.update(1.82) == []
    assert actions(button.update(1.83)) == [("lay", 1.83)]
    button.edge(False, 5.0)
    assert button.update(10.0) == [] and not button.pressed


def test_a_bouncing_press_and_release_make_one_flip():
    button = FlipButton("red")
    for i, down in enumerate([True, False, True, False, True]):
        button.edge(down, 1.0 + i * 0.004)
    for i, down in enumerate([False, True, False]):
        button.edge(down, 1.3 + i * 0.004)
    assert actions(button.update(5.0)) == [("flip", round(1.308 + 0.03, 6))]


def test_a_glitch_shorter_than_the_settle_time_is_no_press():
    button = FlipButton("red")
    press(button, 1.0, 1.02)
    assert button.update(5.0) == [] and button.next_due() is None


def test_hold_is_timed_from_when_the_press_settled_like_the_release():
    button = FlipButton("red", settle_s=0.05, hold_s=0.5)
    press(button, 1.0, 1.49)   # settles 1.05 .. 1.54: held 0.49 s
    press(button, 2.0, 2.5)    # settles 2.05 .. 2.55: held 0.5 s, a lay at 2.55
    assert actions(button.update(5.0)) == [("flip", 1.54), ("lay", 2.55)]


def test_a_button_held_at_start_acts_only_on_its_next_press():
    button = FlipButton("red")
    button.edge(False, 1.0)  # the release of a press that began before start-up
    assert button.update(2.0) == []
    press(button, 3.0, 3.1)
    assert actions(button.update(4.0)) == [("flip", 3.13)]


def test_many_presses_between_updates_are_all_reported_in_order():
    button = FlipButton("red")
    press(button, 1.0, 1.2)
    press(button, 2.0, 3.0)
    press(button, 4.0, 4.1)
    assert actions(button.update(9.0)) == [("flip", 1.23), ("lay", 2.83), ("flip", 4.13)]


presses = st.lists(st.tuples(st.booleans(), st.one_of(st.floats(0.001, 0.05), st.floats(0.05, 2.0))),
                   max_size=40)


def run(script, query_fractions=()):
    button = FlipButton("red")
    found, t, queries = [], 0.0, iter(query_fractions)
    for down, gap in script:
        for fraction in sorted(next(queries, ())):
            found += button.update(t + gap * fraction)
        t += gap
        button.edge(down, t)
    return found + button.update(t + 10.0)


@given(presses, st.lists(st.lists(st.floats(0.0, 1.0), max_size=3)))
def test_actions_do_not_depend_on_when_update_is_called(script, query_fractions):
    assert run(script, query_fractions) == run(script)


@given(presses)
def test_never_more_actions_than_presses(script):
    downs = sum(1 for (down, _), (before, _) in zip(script, [(False, 0)] + script) if down and not before)
    found = run(script)
    assert len(found) <= downs
    assert [a.t for a in found] == sorted(a.t for a in found)


@given(st.lists(st.floats(0.001, 0.025), min_size=1, max_size=30), st.floats(0.1, 0.7))
def test_a_chattering_short_press_is_exactly_one_flip(bounces, hold):
    button = FlipButton("red")
    t, down = 1.0, False
    for gap in bounces:  # the contacts bounce, ending closed
        down = not down
        button.edge(down, t)
        t += gap
    button.edge(True, t)
    button.edge(False, t + hold)
    assert [a.action for a in button.update(t + 5.0)] == ["flip"]


# GpioFlipButton on gpiozero's mock pins

def test_the_shell_hands_every_raw_edge_to_the_sink_undebounced(mock_pins):
    edges, clock = [], FakeClock()
    shell = GpioFlipButton("red", 4, edges.append, clock)
    try:
        assert shell.levels() == (False,)
        for t, down in [(1.0, True), (1.004, False), (1.008, True), (1.4, False)]:
            clock.advance(t - clock())
            mock_pins.pin(4).drive_low() if down else mock_pins.pin(4).drive_high()
        assert edges == [RawEdge("red", 0, True, approx(1.0)), RawEdge("red", 0, False, approx(1.004)),
                         RawEdge("red", 0, True, approx(1.008)), RawEdge("red", 0, False, approx(1.4))]
        button = FlipButton("red")
        for edge in edges:
            button.edge(edge.closed, edge.t)
        assert actions(button.update(2.0)) == [("flip", 1.43)]
    finally:
        shell.close()


def test_close_releases_the_pin(mock_pins):
    edges = []
    GpioFlipButton("red", 4, edges.append, FakeClock()).close()
    mock_pins.pin(4).drive_low()
    assert edges == []
    GpioFlipButton("red", 4, edges.append, FakeClock()).close()


def test_the_shell_runs_no_thread_of_its_own(mock_pins):
    """A hold is FlipButton's to time: gpiozero's Button timed one too, on a thread waking ten times a second
    that every close of a table waited for."""
    import threading

    before = set(threading.enumerate())
    shell = GpioFlipButton("red", 4, [].append, FakeClock())
    try:
        assert set(threading.enumerate()) - before == set()
    finally:
        shell.close()
