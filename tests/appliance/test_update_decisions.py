"""`companion update`'s decisions, on a machine in memory (companion.appliance.update.FakeSystem): it keeps a
new release that serves steadily, goes back by itself from one that does not within the named timeout, and
puts the database back only when the new version changed it."""

import pytest
from hypothesis import given, strategies as st

from companion.appliance.update import (HEALTH_TIMEOUT_S, POLL_S, STEADY_S, FakeSystem, Health, NotInstalled,
                                        update, wait_until_serving)

OLD, NEW = "0.1.0-aaa", "0.2.0-bbb"


def test_a_new_release_that_serves_is_kept_and_the_old_one_is_previous():
    system = FakeSystem(OLD, healthy_release=NEW)
    outcome = update(system, "companion-0.2.0.whl")
    assert (outcome.release, outcome.switched, outcome.rolled_back) == (NEW, True, False)
    assert system.current() == NEW and system.previous() == OLD
    assert system.backups == [outcome.backup] and system.restored == []
    assert system.lines[0].startswith("backed the table's data up to ")
    assert "the update is done" in system.lines[-1]


def test_a_release_that_never_serves_is_undone_within_the_timeout():
    system = FakeSystem(OLD, healthy_release=OLD)
    outcome = update(system, "broken.whl")
    assert (outcome.release, outcome.switched, outcome.rolled_back) == (OLD, False, True)
    assert system.current() == OLD and system.running == OLD
    assert str(outcome.reason) == f"it was not ready within {HEALTH_TIMEOUT_S:g} s"
    assert outcome.restored_database is False and system.restored == []  # nothing migrated: nothing put back
    assert f"{OLD} is serving again" == system.lines[-1]
    # It gave up at the timeout, not later, and then waited for the old release alone.
    assert system.now <= HEALTH_TIMEOUT_S + STEADY_S + 2 * POLL_S + POLL_S


def test_after_going_back_previous_is_still_the_last_release_that_served():
    system = FakeSystem(OLD, previous="0.0.9-zzz", healthy_release=OLD)
    assert update(system, "broken.whl").rolled_back
    assert (system.current(), system.previous()) == (OLD, "0.0.9-zzz")  # never the release that failed


def test_a_release_that_migrated_the_database_then_failed_gets_the_backups_database_back():
    system = FakeSystem(OLD, healthy_release=OLD, migrates_to=5)
    outcome = update(system, "migrates-then-fails.whl")
    assert outcome.rolled_back and outcome.restored_database
    assert system.restored == [outcome.backup] and system.database == 4
    assert any("had changed the database" in line for line in system.lines)


def test_a_unit_that_failed_is_given_up_on_at_once():
    def serves(release, since):
        return Health(ready=False, failed=release == NEW) if release == NEW else Health(True, 7, True)
    system = FakeSystem(OLD, serves=serves)
    outcome = update(system, "x.whl")
    assert outcome.rolled_back and str(outcome.reason) == "systemd gave up on it (the unit failed)"
    assert system.now < HEALTH_TIMEOUT_S  # no waiting out the timeout


def test_a_daemon_ready_whose_page_never_answers_is_undone_naming_the_page():
    def serves(release, since):
        return Health(ready=True, pid=3, page=release == OLD)
    outcome = update(FakeSystem(OLD, serves=serves), "x.whl")
    assert outcome.rolled_back and str(outcome.reason) == f"its page did not answer within {HEALTH_TIMEOUT_S:g} s"


def test_a_daemon_that_falls_over_after_its_ready_is_undone():
    """Ready, then gone, then restarted by systemd (a new process): never steady, so not kept."""
    def serves(release, since):
        if release == OLD:
            return Health(True, 1, True)
        return Health(True, pid=int(since // 3), page=True)  # a new main process every 3 s
    outcome = update(FakeSystem(OLD, serves=serves), "x.whl")
    assert outcome.rolled_back and str(outcome.reason) == f"it did not stay up for {STEADY_S:g} s"


def test_the_same_release_again_changes_nothing():
    system = FakeSystem(OLD, healthy_release=OLD, new_release=OLD)
    outcome = update(system, "same.whl")
    assert outcome == type(outcome)(release=OLD) and system.backups == [] and system.starts == 0


def test_nothing_installed_is_refused():
    with pytest.raises(NotInstalled, match="install.sh"):
        update(FakeSystem(None), "x.whl")


@given(st.floats(0, 200), st.floats(0, 30))
def test_a_daemon_is_kept_exactly_when_it_serves_steadily_by_the_timeout(up_after, stays_for):
    """Whatever its timing: kept iff some poll by the timeout finds it serving, as did every poll STEADY_S before."""
    def serves(release, since):
        if release == OLD:
            return Health(True, 1, True)
        on = up_after <= since < up_after + stays_for
        return Health(on, 2, on)
    outcome = update(FakeSystem(OLD, serves=serves), "x.whl")
    polls = [n * POLL_S for n in range(int(HEALTH_TIMEOUT_S / POLL_S) + 1)]
    serving = {t for t in polls if up_after <= t < up_after + stays_for}
    window = int(STEADY_S / POLL_S)
    kept = any(all(t - k * POLL_S in serving for k in range(window + 1)) for t in polls)
    assert outcome.switched == kept and outcome.rolled_back == (not kept)


def test_waiting_polls_without_passing_time_itself():
    system = FakeSystem(OLD, healthy_release=OLD)
    system.start()
    assert wait_until_serving(system) is None and system.now == pytest.approx(STEADY_S)
