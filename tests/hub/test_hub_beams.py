"""Sand-true run-outs: beam lines in a show log, the sanity window, and durations refined per direction."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import BadInput
from companion.skyrockets.beams import (PRIOR_RUNS, DurationEstimate, emptied_by_beam, full_run_s, beam_durations,
                                        refined_durations, window_s)
from companion.skyrockets.hourglass import Hourglass, Pose
from companion.skyrockets.log import LogReader, replay

SETUP = {"t": 0, "type": "setup", "event": "training", "runout_grace_s": 1}


def replayed(*lines):
    return replay([json.dumps(SETUP), *(json.dumps(line) for line in lines)])


def test_a_beam_stop_before_the_modelled_instant_brings_the_run_out_forward():
    plain = replayed({"t": 40, "type": "end"}).result()
    beamed = replayed({"t": 29.0, "type": "beam", "timer": "red", "state": "stopped"}, {"t": 40, "type": "end"}).result()
    assert plain["runouts"] == [{"timer": "red", "t": 31.0}]  # modelled: 30 s glass, 1 s grace
    assert beamed["runouts"] == [{"timer": "red", "t": 30.0}]  # the beam: empty at 29, out at 30


def test_a_beam_stop_after_the_modelled_instant_holds_the_run_out_back():
    beamed = replayed({"t": 30.6, "type": "beam", "timer": "red", "state": "stopped"}, {"t": 40, "type": "end"})
    assert beamed.result()["runouts"] == [{"timer": "red", "t": 31.6}]


def test_a_beam_far_from_the_model_and_flowing_lines_change_nothing():
    plain = replayed({"t": 40, "type": "end"}).result()
    for line in ({"t": 12.0, "type": "beam", "timer": "red", "state": "stopped"},
                 {"t": 29.0, "type": "beam", "timer": "red", "state": "flowing"},
                 {"t": 29.0, "type": "beam", "timer": "purple", "state": "stopped"}):
        assert replayed(line, {"t": 40, "type": "end"}).result() == plain, line


def test_a_beam_after_the_show_ended_changes_nothing():
    lines = [{"t": t, "type": "flip", "timer": "orange"} for t in (0.5, 1.0, 1.5, 2.0)]
    ended = replayed(*lines, {"t": 3, "type": "end"}).result()
    assert replayed(*lines, {"t": 3, "type": "beam", "timer": "red", "state": "stopped"}).result()["outcome"] == ended["outcome"]


@pytest.mark.parametrize("line, field", [
    ({"t": 1, "type": "beam", "timer": "red"}, "state"),
    ({"t": 1, "type": "beam", "timer": "red", "state": "none"}, "state"),
    ({"t": 1, "type": "beam", "timer": "pink", "state": "stopped"}, "timer"),
])
def test_bad_beam_lines_name_the_field(line, field):
    reader = LogReader()
    reader.read(json.dumps(SETUP))
    with pytest.raises(BadInput) as caught:
        reader.read(json.dumps(line))
    assert caught.value.field == field and caught.value.line == 2


def test_a_full_run_is_measured_only_from_full():
    glass = Hourglass.standing(30.0, t=10.0)
    assert full_run_s(glass, 40.4) == pytest.approx(30.4)
    half = glass.flipped(20.0)  # turned with 10 s on top: not a full run
    assert full_run_s(half, 30.0) is None
    assert full_run_s(glass.posed(Pose.SIDE, 12.0), 40.0) is None


def test_each_full_run_is_recorded_per_direction():
    show = replayed({"t": 29.5, "type": "beam", "timer": "red", "state": "stopped"},
                    {"t": 29.6, "type": "flip", "timer": "red"},
                    {"t": 60.3, "type": "beam", "timer": "red", "state": "stopped"},
                    {"t": 61, "type": "end"})
    assert show.beam_runs == [{"timer": "red", "pose": "a_up", "seconds": 29.5},
                              {"timer": "red", "pose": "b_up", "seconds": 30.7}]
    refined = refined_durations({"red": {"a_up": DurationEstimate(30.0), "b_up": DurationEstimate(30.0)}}, show.beam_runs)
    assert refined["red"]["a_up"].seconds == 29.75 and refined["red"]["b_up"].seconds == 30.35


@settings(max_examples=100, deadline=None)
@given(st.floats(20, 200), st.lists(st.floats(-0.05, 0.05), min_size=1, max_size=60))
def test_estimates_converge_on_the_real_duration_and_ignore_outliers(true_s, noise):
    estimate = DurationEstimate(true_s * 1.05)  # calibrated 5 % long
    start_error = abs(estimate.seconds - true_s)
    for n in noise:
        estimate = estimate.observe(true_s + n)
        estimate = estimate.observe(true_s * 3)  # a knock: ignored
    assert abs(estimate.seconds - true_s) <= start_error + 0.06


def test_the_window_grows_with_the_glass():
    assert window_s(10.0) == 2.0 and window_s(180.0) == pytest.approx(14.4)
    assert emptied_by_beam(Hourglass.lying(30.0), 30.0) is None


def test_a_beam_line_about_a_glass_out_of_play_is_warned_like_any_other_line():
    event = {"id": "two", "name": "Two", "hand_size": 4, "countdown": "orange", "running": ["red", "orange"],
             "lying": [], "rules": ""}
    lines = [dict(SETUP, event=event), {"t": 5, "type": "beam", "timer": "green", "state": "stopped"}]
    result = replay(json.dumps(line) for line in lines).result()
    assert result["warnings"] == [{"t": 5.0, "timer": "green", "kind": "not_in_play"}]


def test_the_formats_page_states_the_window_the_rules_apply():
    from companion.skyrockets.beams import WINDOW_MIN_S, WINDOW_SHARE
    from conftest import ROOT

    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    assert f"within\n  {WINDOW_MIN_S:g} s (or {WINDOW_SHARE * 100:g} % of the glass's duration" in text


def test_beam_timed_runs_refine_each_direction_on_its_own_and_odd_runs_are_ignored():
    show = replayed({"t": 29.5, "type": "beam", "timer": "red", "state": "stopped"},
                    {"t": 29.6, "type": "flip", "timer": "red"},
                    {"t": 60.3, "type": "beam", "timer": "red", "state": "stopped"},
                    {"t": 61, "type": "end"})
    a_up = round((30.0 * PRIOR_RUNS + 29.5) / (PRIOR_RUNS + 1), 3)
    b_up = round((30.0 * PRIOR_RUNS + 30.7) / (PRIOR_RUNS + 1), 3)
    assert {run["pose"] for run in show.beam_runs} == {"a_up", "b_up"}
    assert beam_durations(show.setup, show.beam_runs) == {"red": (a_up, b_up)}
    odd = [{"timer": "red", "pose": "a_up", "seconds": 50.0}]
    assert beam_durations(show.setup, odd) == {"red": (30.0, 30.0)}
