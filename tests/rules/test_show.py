"""The rules of a show, one at a time (docs/rules.md, docs/formats.md)."""

import pytest

from companion.skyrockets import TRAINING, Setup, Show, parse_event


def show(**setup) -> Show:
    return Show(Setup(**setup))


def test_starting_state_follows_the_event():
    s = show()
    r = s.result()
    assert r["outcome"] == "running" and r["countdown"] == {"timer": "orange", "position": 4}
    assert {c: t["state"] for c, t in r["timers"].items()} == {
        "red": "running", "orange": "running", "yellow": "running",
        "green": "lying", "blue": "lying", "purple": "running"}


def test_a_run_out_costs_one_token_and_leaves_the_glass_empty_until_turned():
    s = show()
    s.advance(30.0)
    assert s.crowd_tokens_turned == 1 and s.runouts == [{"timer": "red", "t": 30.0}]
    assert s.timers["red"].glass.pose == "a_up" and s.result()["timers"]["red"]["state"] == "empty"
    s.advance(49.0)
    assert s.crowd_tokens_turned == 1 and s.next_due() == 50.0  # red never again on its own; yellow next
    s.flip(49.0, "red")  # the players turn it 19 s late: it runs a full 30 s from then
    assert s.timers["red"].glass.empties_at() == 79.0


def test_an_empty_glass_laid_down_and_put_back_as_it_was_is_not_turned():
    s = show()
    s.advance(31.0)
    s.pose(32.0, "red", "side")
    s.pose(33.0, "red", "a_up")
    s.advance(45.0)
    assert [r["timer"] for r in s.runouts] == ["red"] and s.result()["timers"]["red"]["state"] == "empty"
    s.pose(46.0, "red", "b_up")  # now turned: full on top
    assert s.result()["timers"]["red"] == {"pose": "b_up", "top_s": 30.0, "state": "running"}
    s.advance(76.0)
    assert [r["timer"] for r in s.runouts] == ["red", "yellow", "red"] and s.outcome == "loss"


def test_a_glass_runs_at_the_rate_of_the_way_it_stands():
    s = show(durations={"red": (30.0, 36.0)})
    s.flip(30.0, "red")  # saved at the instant; all sand now on top, B up
    assert s.result()["timers"]["red"]["top_s"] == 36.0 and s.timers["red"].glass.empties_at() == 66.0
    s.flip(48.0, "red")  # half the sand has run: 18 s of B-up flow is 15 s of A-up flow
    assert s.result()["timers"]["red"]["top_s"] == 15.0


def test_countdown_never_runs_out():
    s = show(event=parse_event({"id": "x", "countdown": "red", "running": ["red"]}))
    s.advance(500.0)
    assert s.crowd_tokens_turned == 0 and s.result()["timers"]["red"]["state"] == "empty"


def test_turning_empty_countdown_advances_and_button_space_wins():
    s = show(event=parse_event({"id": "x", "countdown": "red", "running": ["red"], "countdown_start": 1}))
    s.flip(30.0, "red")
    assert s.outcome == "win" and s.ended_at == 30.0 and s.stars == 3


def test_turning_running_countdown_is_a_warning_and_only_physics():
    s = show()
    s.flip(10.0, "orange")
    assert s.position == 4
    assert s.warnings == [{"t": 10.0, "timer": "orange", "kind": "countdown_turned_while_running"}]
    assert s.timers["orange"].glass.top(10.0) == 10.0


def test_advance_tolerance():
    s = show(advance_tolerance_s=2.0)
    s.flip(38.0, "orange")
    assert s.position == 3
    s2 = show(advance_tolerance_s=2.0)
    s2.flip(37.9, "orange")
    assert s2.position == 4


def test_countdown_turned_through_its_side_counts_as_a_turn():
    s = show()
    s.pose(41.0, "orange", "side")
    s.pose(41.5, "orange", "b_up")
    assert s.advances == [{"t": 41.5, "position": 3}]


def test_laying_down_and_putting_back_is_not_a_turn():
    s = show()
    s.pose(41.0, "orange", "side")
    s.pose(41.5, "orange", "a_up")
    assert s.position == 4 and s.warnings == []


def test_runout_grace_and_turning_at_the_instant():
    s = show(runout_grace_s=2.0)
    s.flip(32.0, "red")  # empty at 30, turned at exactly 30 + grace: safe
    s.advance(40.0)
    assert s.crowd_tokens_turned == 0
    s2 = show(runout_grace_s=2.0)
    s2.flip(32.01, "red")
    assert s2.runouts == [{"timer": "red", "t": 32.0}]


def test_laying_an_empty_glass_down_within_grace_saves_it():
    s = show(runout_grace_s=3.0)
    s.pose(31.0, "red", "side")
    s.advance(100.0)
    assert all(r["timer"] != "red" for r in s.runouts)


def test_third_runout_loses_and_nothing_after_changes_the_result():
    s = show()
    s.advance(80.0)  # red at 30, yellow at 50, purple at 80: nobody turned anything
    assert s.outcome == "loss" and s.ended_at == 80.0 and s.stars == 0
    before = s.result()
    s.flip(81.0, "orange")
    s.advance(500.0)
    assert s.result() == before


def test_stars_count_tokens_still_star_side_up():
    s = show(event=parse_event({"id": "x", "countdown": "purple", "running": ["purple", "red"], "countdown_start": 1}))
    s.advance(31.0)  # red ran out at 30
    s.flip(31.0, "red")  # turned a second late: out again at 61
    s.advance(70.0)
    s.flip(80.0, "purple")
    assert s.outcome == "win" and s.stars == 1


def test_line_about_a_timer_out_of_play_is_a_warning_only():
    s = show(event=parse_event({"id": "x", "countdown": "red", "running": ["red"]}))
    s.flip(5.0, "blue")
    s.pose(6.0, "green", "a_up")
    assert [w["kind"] for w in s.warnings] == ["not_in_play", "not_in_play"]
    assert s.result()["timers"]["blue"] == {"pose": None, "top_s": None, "state": "out_of_play"}


def test_repeated_pose_reports_change_nothing():
    s = show()
    s.pose(5.0, "red", "a_up")
    assert s.timers["red"].glass.since == 0.0


def test_calibrated_durations_and_nominal_table_are_data():
    s = show(durations={"red": 33.0}, nominal={"red": 30, "orange": 40, "yellow": 50, "green": 60, "blue": 70, "purple": 90})
    assert s.timers["red"].glass.duration == 33.0 and s.timers["purple"].glass.duration == 90.0


def test_challenge_mode_in_a_show():
    s = show(challenge=True)
    assert s.event.countdown == "yellow"
    s.advance(45.0)
    assert [r["timer"] for r in s.runouts] == ["red", "orange"]


def test_next_due_lists_warning_empty_and_runout():
    s = show(event=parse_event({"id": "x", "countdown": "orange", "running": ["orange", "red"]}),
             runout_grace_s=1.0, warn_lead_s=10.0)
    seen = []
    while (due := s.next_due()) is not None and due < 45:
        s.advance(due)
        seen += [(n["t"], n["kind"], n["timer"]) for n in s.drain_notices()]
    assert seen == [(20.0, "low_sand", "red"), (30.0, "empty", "red"), (31.0, "runout", "red"),
                    (40.0, "empty", "orange")]


def test_no_deadlines_after_the_end():
    s = show()
    s.advance(80.0)
    assert s.next_due() is None


def test_time_never_goes_backwards():
    s = show()
    s.advance(10.0)
    with pytest.raises(ValueError):
        s.flip(5.0, "red")


def test_bad_setup_values():
    from companion.errors import BadInput
    with pytest.raises(BadInput, match="runout_grace_s"):
        Setup(TRAINING, runout_grace_s=-1)


def test_a_glass_with_less_sand_than_is_reported_reads_empty_not_running_with_none():
    """A lost show reported red "running" with 0 s on top: the sand left at the show's end was float noise
    (under a millisecond). What is reported agrees with itself: no sand shown is an empty glass."""
    s = show()
    s.advance(30.0 - 1e-9)
    red = s.result()["timers"]["red"]
    assert (red["top_s"], red["state"]) == (0.0, "empty")
