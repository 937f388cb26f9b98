import pytest
from hypothesis import given, strategies as st

from companion.skyrockets.hourglass import Hourglass, Pose

durations = st.floats(min_value=1, max_value=120)
poses = st.sampled_from(list(Pose))


def test_standing_glass_drains_one_second_per_second():
    g = Hourglass.standing(30.0, t=0.0)
    assert g.top(0) == 30 and g.top(12) == 18 and g.top(30) == 0 and g.top(45) == 0
    assert g.empties_at() == 30


def test_flip_puts_what_ran_down_on_top():
    g = Hourglass.standing(30.0).flipped(12.0)
    assert g.pose is Pose.B_UP
    assert g.top(12.0) == 12.0
    assert g.empties_at() == 24.0


def test_lying_glass_keeps_its_sand_and_reports_the_fuller_bulb():
    g = Hourglass.standing(30.0).posed(Pose.SIDE, 10.0)  # 20 s in A, 10 s in B
    assert g.top(10) == 20 and g.top(500) == 20
    assert g.empties_at() is None
    assert g.sand_in_a(500) == 20


def test_standing_a_lying_glass_up_puts_the_fuller_bulb_on_top():
    lying_mostly_b = Hourglass(30.0, 8.0, Pose.SIDE, 0.0)
    assert lying_mostly_b.flipped(5.0).pose is Pose.B_UP
    assert lying_mostly_b.flipped(5.0).top(5.0) == 22.0
    lying_mostly_a = Hourglass(30.0, 22.0, Pose.SIDE, 0.0)
    assert lying_mostly_a.flipped(5.0).pose is Pose.A_UP


def test_b_up_fills_a_until_full():
    g = Hourglass(30.0, 25.0, Pose.B_UP, 0.0)
    assert g.sand_in_a(3) == 28 and g.sand_in_a(10) == 30 and g.top(10) == 0


@given(durations, st.floats(0, 1), poses, st.lists(st.tuples(st.floats(0, 100), poses), max_size=12))
def test_sand_is_conserved(duration, fraction, pose, moves):
    g = Hourglass(duration, duration * fraction, pose, 0.0)
    t = 0.0
    for dt, new_pose in moves:
        t += dt
        a = g.sand_in_a(t)
        assert 0.0 <= a <= duration
        below = duration - g.top(t) if g.pose.upright else min(a, duration - a)
        assert g.top(t) + below == pytest.approx(duration)
        g = g.posed(new_pose, t)


@given(durations, st.floats(0, 1), st.sampled_from([Pose.A_UP, Pose.B_UP]), st.floats(0, 200))
def test_two_flips_in_a_row_restore_the_glass(duration, fraction, pose, t):
    g = Hourglass(duration, duration * fraction, pose, 0.0)
    assert g.flipped(t).flipped(t) == g.at(t)


@given(durations, st.floats(0, 1), poses, st.lists(st.floats(0, 50), max_size=8), st.floats(0, 300))
def test_asking_about_time_never_changes_the_answer(duration, fraction, pose, cuts, t_end):
    """Re-anchoring at any instants along the way gives the same glass at the end."""
    g = Hourglass(duration, duration * fraction, pose, 0.0)
    sliced = g
    for cut in sorted(cuts):
        if cut <= t_end:
            sliced = sliced.at(cut)
    assert sliced.sand_in_a(t_end) == pytest.approx(g.sand_in_a(t_end), abs=1e-9)
