"""The journal's checkpoints: a restart from one reaches exactly what a replay of the whole journal reaches."""

import json
import logging
import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.records import Store
from companion.records.shows import JournalLine
from companion.skyrockets import COLOURS, TRAINING, replay
from companion.table.checkpoints import CheckpointKeeper
from companion.table.journal import Journal
from companion.table.recovery import from_checkpoint, resume

WALL = 1_700_000_000.0


@st.composite
def journals(draw, max_lines=40):
    """A setup line, then the lines a table journals (poses, flips, beams) at non-decreasing times."""
    setup = {"t": 0, "type": "setup", "event": "training",
             "runout_grace_s": draw(st.sampled_from([0, 1])), "advance_tolerance_s": draw(st.sampled_from([0, 1.5])),
             "warn_lead_s": draw(st.sampled_from([0, 10])),
             "durations": draw(st.dictionaries(st.sampled_from(COLOURS), st.sampled_from([20, 30.5]), max_size=2))}
    lines, t = [], 0.0
    for _ in range(draw(st.integers(0, max_lines))):
        t += draw(st.sampled_from([0.0, 0.5, 3.0, 12.0, 29.5]))
        timer = draw(st.sampled_from(COLOURS))
        kind = draw(st.sampled_from(["flip", "pose", "beam"]))
        line = {"t": t, "type": kind, "timer": timer}
        if kind == "pose":
            line["pose"] = draw(st.sampled_from(["a_up", "b_up", "side"]))
        elif kind == "beam":
            line["state"] = draw(st.sampled_from(["flowing", "stopped"]))
        lines.append(line)
    return setup, lines


def journaled(setup: dict, lines: list[dict], every_lines: int, batch: int, store=None) -> tuple[Store, int]:
    """`lines` written through a journal (no thread: each flush is one batch) that checkpoints every few lines."""
    store = store or Store(":memory:")
    show_id = store.begin_show(TRAINING, False, setup, WALL, 1.0)
    journal = Journal(store, checkpoints=CheckpointKeeper(store, every_lines=every_lines, clock=lambda: 0.0))
    journal.begin(show_id)
    for i, line in enumerate(lines):
        journal.add(line)
        if (i + 1) % batch == 0:
            journal.flush()
    journal.flush()
    return store, show_id


@settings(max_examples=150, deadline=None)
@given(journals(), st.integers(1, 7), st.integers(1, 5))
def test_a_resume_from_the_checkpoint_reaches_what_a_whole_replay_reaches(log, every_lines, batch):
    setup, lines = log
    store, show_id = journaled(setup, lines, every_lines, batch)
    whole = replay(store.show_log(show_id))
    kept = store.checkpoint(show_id)
    if len(lines) >= every_lines + batch:
        assert kept is not None and kept["lines"] >= every_lines + 1
    if kept is not None:
        show = from_checkpoint(store, show_id, store.events())
        assert show.result() == whole.result()
        assert show.checkpoint() == whole.checkpoint()
    resumed = resume(store, WALL)
    assert resumed.show.result() == whole.result() and resumed.show.checkpoint() == whole.checkpoint()


def long_journal() -> tuple[Store, int, dict]:
    setup = {"t": 0, "type": "setup", "event": "training"}
    lines = [{"t": 0.5 * i, "type": "flip", "timer": "red"} for i in range(1, 60)]
    store, show_id = journaled(setup, lines, every_lines=10, batch=4)
    return store, show_id, replay(store.show_log(show_id)).result()


def spoil(store: Store, show_id: int, state: str) -> None:
    with store.database.transaction() as db:
        db.execute("UPDATE checkpoints SET state = ? WHERE show_id = ?", (state, show_id))


def test_only_the_tail_after_the_checkpoint_is_read(monkeypatch):
    store, show_id, expected = long_journal()
    kept = store.checkpoint(show_id)
    assert 50 <= kept["lines"] < 60
    asked = []
    real = store.show_log
    monkeypatch.setattr(store, "show_log", lambda i, after=0: asked.append(after) or real(i, after=after))
    assert resume(store, WALL).show.result() == expected
    assert asked == [kept["lines"]]


def test_a_damaged_checkpoint_is_passed_over_with_one_log_line(caplog):
    store, show_id, expected = long_journal()
    spoil(store, show_id, '{"lines": 40, "setup": ')
    with caplog.at_level(logging.WARNING, logger="companion.table.recovery"):
        assert resume(store, WALL).show.result() == expected
    assert len(caplog.records) == 1 and "replaying its whole journal" in caplog.records[0].getMessage()


def test_a_checkpoint_of_another_version_is_passed_over_with_one_log_line(caplog):
    store, show_id, expected = long_journal()
    state = json.loads(store.checkpoint(show_id)["state"])
    state["show"]["version"] = 999
    spoil(store, show_id, json.dumps(state))
    with caplog.at_level(logging.WARNING, logger="companion.table.recovery"):
        assert resume(store, WALL).show.result() == expected
    assert len(caplog.records) == 1 and "version 999" in caplog.records[0].getMessage()


def test_a_checkpoint_that_disagrees_with_its_row_is_passed_over(caplog):
    store, show_id, expected = long_journal()
    state = json.loads(store.checkpoint(show_id)["state"])
    state["lines"] -= 3
    spoil(store, show_id, json.dumps(state))
    with caplog.at_level(logging.WARNING, logger="companion.table.recovery"):
        assert resume(store, WALL).show.result() == expected
    assert len(caplog.records) == 1


def test_a_finished_show_keeps_no_checkpoint():
    store, show_id, _ = long_journal()
    journal = Journal(store)
    journal.begin(show_id)
    journal.finish(40.0, "aborted", 0, WALL)
    journal.flush()
    assert store.checkpoint(show_id) is None and store.unfinished_show() is None


class FlakyStore(Store):
    """Every third write fails, as a full card would."""

    writes = 0

    def write(self, writes):
        self.writes += 1
        if self.writes % 3 == 0:
            raise sqlite3.OperationalError("disk I/O error")
        super().write(writes)


def test_checkpoints_stay_true_when_writes_fail_and_are_retried():
    setup = {"t": 0, "type": "setup", "event": "training"}
    lines = [{"t": 0.7 * i, "type": "flip", "timer": COLOURS[i % 4]} for i in range(1, 40)]
    store = FlakyStore(":memory:")
    show_id = store.begin_show(TRAINING, False, setup, WALL, 1.0)
    journal = Journal(store, checkpoints=CheckpointKeeper(store, every_lines=3, clock=lambda: 0.0))
    journal.begin(show_id)
    for i, line in enumerate(lines):
        journal.add(line)
        if i % 2:
            journal.flush()  # a failed batch stays queued and goes again with the next
    while journal.pending:
        journal.flush()
    assert len(store.show_log(show_id)) == len(lines) + 1
    assert store.checkpoint(show_id) is not None
    whole = replay(store.show_log(show_id))
    assert from_checkpoint(store, show_id, store.events()).checkpoint() == whole.checkpoint()


def test_keeper_needs_no_thread_and_follows_a_resumed_show():
    store, show_id, _ = long_journal()
    keeper = CheckpointKeeper(store, every_lines=5, clock=lambda: 0.0)  # a restarted table's writer
    more = [JournalLine(show_id, {"t": 40.0 + i, "type": "flip", "timer": "red"}) for i in range(5)]
    store.write(more + keeper.follow(more))
    assert store.checkpoint(show_id)["lines"] == 65
    assert from_checkpoint(store, show_id, store.events()).result() == replay(store.show_log(show_id)).result()
