"""Tilt pairs: debounced poses and faults from explicit edge times, and the gpiozero shell on mock pins."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pytest import approx

from companion.clock import FakeClock
from companion.hardware.debounce import StableLevel
from companion.hardware.pins import RawEdge
from companion.hardware.tilt import FaultChange, GpioTiltPair, PoseChange, TiltPair
from companion.skyrockets.hourglass import Pose

A_UP, B_UP = (True, False), (False, True)
REASON = "both tilt switches closed for 3 s: shorted wire or stuck switch?"


def poses(changes):
    return [(c.pose, round(c.t, 6)) for c in changes if isinstance(c, PoseChange)]


def faults(changes):
    return [(c.fault, round(c.t, 6)) for c in changes if isinstance(c, FaultChange)]


def turn(pair, levels, t):
    """Both switches move to `levels` at `t`."""
    for switch, closed in enumerate(levels):
        pair.edge(switch, closed, t)


# StableLevel

def test_a_level_counts_once_it_has_held_for_the_settle_time():
    switch = StableLevel(False, settle_s=0.08)
    switch.edge(True, 1.0)
    assert switch.next_due() == approx(1.08)
    assert switch.update(1.079) is None and switch.level is False
    assert switch.update(1.08) is True and switch.level is True
    assert switch.update(5.0) is None and switch.next_due() is None


def test_a_level_that_flickers_back_changes_nothing():
    switch = StableLevel(False)
    switch.edge(True, 1.0)
    switch.edge(False, 1.05)
    assert switch.next_due() is None
    assert switch.update(9.0) is None and switch.level is False


def test_the_settle_window_restarts_at_the_last_raw_edge():
    switch = StableLevel(False)
    for i, level in enumerate([True, False, True, False, True]):
        switch.edge(level, 1.0 + i * 0.01)
    assert switch.next_due() == approx(1.12)
    assert switch.update(1.11) is None
    assert switch.update(1.12) is True


def test_a_level_that_settled_before_the_next_edge_is_not_lost():
    switch = StableLevel(False)
    switch.edge(True, 1.0)
    assert switch.edge(False, 2.0) is True
    assert switch.update(3.0) is False


def test_a_repeated_level_does_not_restart_the_window():
    switch = StableLevel(False)
    switch.edge(True, 1.0)
    switch.edge(True, 1.05)
    assert switch.update(1.08) is True


# TiltPair: poses

@pytest.mark.parametrize("initial, pose", [
    (A_UP, Pose.A_UP), (B_UP, Pose.B_UP), ((False, False), Pose.SIDE), ((True, True), Pose.SIDE),
])
def test_the_pose_comes_from_the_initial_levels_at_once(initial, pose):
    pair = TiltPair("red", initial=initial)
    assert pair.pose is pose and pair.raw == initial and pair.fault is None
    assert pair.update(0.5) == []


def test_a_turn_is_one_pose_change_stamped_when_it_settled_not_when_asked():
    pair = TiltPair("red", initial=A_UP)
    turn(pair, B_UP, 5.0)
    assert pair.raw == B_UP and pair.pose is Pose.A_UP
    assert pair.next_due() == approx(5.08)
    assert pair.update(100.0) == [PoseChange("red", Pose.B_UP, approx(5.08))]
    assert pair.pose is Pose.B_UP and pair.next_due() is None


def test_laying_a_glass_down_and_standing_it_up_again():
    pair = TiltPair("red", initial=A_UP)
    pair.edge(0, False, 1.0)
    pair.edge(1, True, 4.0)
    assert poses(pair.update(9.0)) == [(Pose.SIDE, 1.08), (Pose.B_UP, 4.08)]


def test_both_switches_chattering_through_a_turn_settle_to_one_pose_change():
    pair = TiltPair("red", initial=A_UP)
    t = 2.0
    for switch, closed in [(0, False), (1, True), (0, True), (1, False), (0, False), (1, True),
                           (0, True), (0, False)]:
        pair.edge(switch, closed, t)
        t += 0.012
    last = t - 0.012
    assert poses(pair.update(10.0)) == [(Pose.B_UP, round(last + 0.08, 6))]


def test_a_glass_nudged_but_not_turned_changes_nothing():
    pair = TiltPair("red", initial=A_UP)
    pair.edge(0, False, 1.0)
    pair.edge(1, True, 1.01)
    pair.edge(1, False, 1.03)
    pair.edge(0, True, 1.05)
    assert pair.update(10.0) == [] and pair.next_due() is None


def test_settle_time_is_configurable():
    pair = TiltPair("red", initial=A_UP, settle_s=0.2)
    turn(pair, B_UP, 1.0)
    assert pair.update(1.19) == []
    assert poses(pair.update(1.2)) == [(Pose.B_UP, 1.2)]


# TiltPair: the both-closed fault

def test_both_closed_briefly_reads_side_without_a_fault():
    pair = TiltPair("red", initial=A_UP)
    pair.edge(1, True, 1.0)
    pair.edge(0, False, 3.0)
    assert poses(pair.update(9.0)) == [(Pose.SIDE, 1.08), (Pose.B_UP, 3.08)]
    assert pair.fault is None


def test_both_closed_for_too_long_is_a_fault_until_a_clean_upright_pose():
    pair = TiltPair("red", initial=A_UP)
    pair.edge(1, True, 1.0)
    assert pair.next_due() == approx(1.08)
    pair.update(1.08)
    assert pair.next_due() == approx(4.08)
    assert pair.update(4.0) == []
    assert pair.update(4.08) == [FaultChange("red", REASON, approx(4.08))]
    assert pair.fault == REASON and pair.next_due() is None
    turn(pair, (False, False), 6.0)  # lying is not a clean upright reading: the fault stays
    assert pair.update(7.0) == [] and pair.fault == REASON
    pair.edge(0, True, 8.0)
    assert pair.update(9.0) == [PoseChange("red", Pose.A_UP, approx(8.08)),
                                FaultChange("red", None, approx(8.08))]
    assert pair.fault is None


def test_the_fault_time_is_configurable_and_named_in_the_reason():
    pair = TiltPair("red", initial=A_UP, both_closed_fault_s=0.5)
    pair.edge(1, True, 1.0)
    assert faults(pair.update(2.0)) == [
        ("both tilt switches closed for 0.5 s: shorted wire or stuck switch?", 1.58)]


def test_a_pair_that_starts_both_closed_is_timed_from_when_it_was_read():
    pair = TiltPair("red", initial=(True, True), t0=10.0)
    assert pair.pose is Pose.SIDE and pair.next_due() == 13.0
    assert faults(pair.update(20.0)) == [(REASON, 13.0)]


def test_chatter_through_both_closed_does_not_fake_a_fault():
    pair = TiltPair("red", initial=A_UP)
    t = 1.0
    for _ in range(200):  # 4 s of chatter on switch 1, never still for 80 ms
        pair.edge(1, True, t)
        pair.edge(1, False, t + 0.01)
        t += 0.02
    assert pair.update(t + 10) == [] and pair.fault is None


# TiltPair: single-switch builds

def test_a_single_switch_reads_a_up_when_closed_and_b_up_when_open_never_side():
    pair = TiltPair("red", single=True, initial=(False,))
    assert pair.pose is Pose.B_UP and pair.raw == (False,)
    pair.edge(0, True, 1.0)
    pair.edge(0, False, 3.0)
    pair.edge(0, True, 3.01)  # chatter
    assert poses(pair.update(9.0)) == [(Pose.A_UP, 1.08)]
    pair.edge(0, False, 10.0)
    assert poses(pair.update(11.0)) == [(Pose.B_UP, 10.08)]
    with pytest.raises(IndexError):
        pair.edge(1, True, 12.0)


def test_a_pair_needs_its_initial_levels():
    with pytest.raises(ValueError, match="2 initial switch levels"):
        TiltPair("red", initial=(True,))


# Properties

gaps = st.floats(0.005, 0.020)


@given(st.lists(st.tuples(st.sampled_from([0, 1]), gaps), min_size=1, max_size=40),
       st.sampled_from([A_UP, B_UP, (False, False)]))
def test_a_chatter_burst_settles_to_at_most_one_pose_change(burst, initial):
    pair = TiltPair("red", initial=initial)
    before, raw, t = pair.pose, list(initial), 1.0
    for switch, gap in burst:
        t += gap
        raw[switch] = not raw[switch]
        pair.edge(switch, raw[switch], t)
    expected = TiltPair("red", initial=tuple(raw)).pose
    changes = pair.update(t + 1.0)
    assert poses(changes) == ([] if expected is before else [(expected, round(t + 0.08, 6))])
    assert pair.pose is expected


edge_scripts = st.lists(st.tuples(st.sampled_from([0, 1]), st.booleans(),
                                  st.one_of(st.floats(0.0, 0.1), st.floats(0.1, 4.0))), max_size=30)


def run(script, query_gaps, single):
    """Feed `script` (switch, closed, gap) to a pair, calling update at the extra query times."""
    pair = TiltPair("red", initial=(True, False), single=single)
    changes, t, queries = [], 0.0, iter(query_gaps)
    for switch, closed, gap in script:
        for fraction in next(queries, ()):
            changes += pair.update(t + gap * fraction)
        t += gap
        pair.edge(0 if single else switch, closed, t)
    return changes + pair.update(t + 10.0), len(script)


@given(edge_scripts, st.lists(st.lists(st.floats(0.0, 1.0), max_size=3)), st.booleans())
def test_results_do_not_depend_on_when_update_is_called(script, query_gaps, single):
    sliced, _ = run(script, [sorted(q) for q in query_gaps], single)
    whole, _ = run(script, [], single)
    assert sliced == whole


@given(edge_scripts, st.booleans())
def test_never_more_pose_changes_than_raw_edges_and_faults_alternate(script, single):
    changes, edges = run(script, [], single)
    assert len(poses(changes)) <= edges
    assert [c.t for c in changes] == sorted(c.t for c in changes)
    fault_states = [fault is not None for fault, _ in faults(changes)]
    assert fault_states == [i % 2 == 0 for i in range(len(fault_states))]


# GpioTiltPair on gpiozero's mock pins

def drive(factory, clock, script):
    """At each (time, pin, closed): move the clock there and close (drive low) or open the pin."""
    for t, pin, closed in script:
        clock.advance(t - clock())
        factory.pin(pin).drive_low() if closed else factory.pin(pin).drive_high()


@pytest.fixture
def sensors(mock_pins):
    edges, clock = [], FakeClock()
    shell = GpioTiltPair("red", (4, 5), edges.append, clock)
    yield shell, edges, clock
    shell.close()


def test_the_shell_hands_each_raw_edge_to_the_sink_with_the_clock_time(mock_pins, sensors):
    shell, edges, clock = sensors
    assert shell.levels() == (False, False)
    drive(mock_pins, clock, [(1.5, 4, True), (1.51, 4, False), (1.52, 5, True)])
    assert edges == [RawEdge("red", 0, True, approx(1.5)), RawEdge("red", 0, False, approx(1.51)),
                     RawEdge("red", 1, True, approx(1.52))]
    assert shell.levels() == (False, True)


def test_edges_from_the_shell_drive_the_pair(mock_pins, sensors):
    shell, edges, clock = sensors
    drive(mock_pins, clock, [(1.0, 4, True)])
    pair = TiltPair("red", initial=shell.levels(), t0=clock())
    assert pair.pose is Pose.A_UP
    drive(mock_pins, clock, [(2.0, 4, False), (2.01, 5, True), (2.02, 4, True), (2.03, 4, False)])
    for edge in edges[1:]:
        pair.edge(edge.switch, edge.closed, edge.t)
    assert poses(pair.update(3.0)) == [(Pose.B_UP, 2.11)]


def test_a_single_switch_shell_uses_one_pin(mock_pins):
    edges, clock = [], FakeClock()
    shell = GpioTiltPair("red", (4,), edges.append, clock)
    try:
        drive(mock_pins, clock, [(1.0, 4, True)])
        assert shell.levels() == (True,) and edges == [RawEdge("red", 0, True, 1.0)]
    finally:
        shell.close()


def test_an_explicit_pin_factory_is_used(mock_pins):
    from gpiozero.pins.mock import MockFactory

    own, edges = MockFactory(), []
    shell = GpioTiltPair("red", (4, 5), edges.append, FakeClock(), pin_factory=own)
    try:
        mock_pins.pin(5).drive_low()
        assert edges == []
        own.pin(5).drive_low()
        assert shell.levels() == (False, True) and edges == [RawEdge("red", 1, True, 0.0)]
    finally:
        shell.close()


def test_a_failed_start_releases_the_pins_it_took(mock_pins):
    from gpiozero.exc import GPIOPinInUse

    with pytest.raises(GPIOPinInUse):
        GpioTiltPair("red", (4, 4), [].append, FakeClock())
    GpioTiltPair("red", (4, 5), [].append, FakeClock()).close()  # pin 4 is free again


def test_close_releases_the_pins(mock_pins, sensors):
    shell, edges, _ = sensors
    shell.close()
    mock_pins.pin(4).drive_low()
    assert edges == []
    GpioTiltPair("blue", (4, 5), [].append, FakeClock()).close()
