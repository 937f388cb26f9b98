"""The journal: always a log `companion replay` takes, nothing acknowledged lost, the runtime never waits for it."""

import json
import sqlite3
import threading
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.clock import FakeClock
from companion.errors import Conflict
from companion.skyrockets import COLOURS, replay
from companion.skyrockets.log import MAX_SHOW_S
from companion.records import Store
from companion.table import Table, demo_table
from companion.config import demo_config
from companion.hardware.mock import mock_pin_factory

ONLY_RED = {"id": "only-red", "name": "Only red", "hand_size": 4, "countdown": "purple", "countdown_start": 4,
            "running": ["red"], "lying": ["purple"], "rules": ""}


def lines(table) -> list[dict]:
    return [json.loads(line) for line in table.ledger.show_log(table.desk.snapshot()["id"])]


def test_a_flip_stamped_after_the_loss_instant_is_not_journaled(tmp_path, clock):
    table = demo_table(tmp_path / "t.sqlite3", clock=clock)
    try:
        table.desk.start_show(ONLY_RED)
        clock.advance(90.5)  # red ran out at 30, 60 and 90 (the table turning it each time): lost at 90,
        assert table.live.input(None, "flip", "red") is False  # though the runtime has not looked yet
        table.pump()
        log = lines(table)
        end = log[-1]["t"]  # each turn the table made lies just after its run-out: a few ulps past 90
        assert log[-1]["type"] == "end" and 90.0 <= end < 90.001 and all(line["t"] <= end for line in log)
        assert [line["type"] for line in log] == ["setup", "flip", "flip", "end"]
        assert replay(table.ledger.show_log(table.desk.show_id)).result()["outcome"] == "loss"
    finally:
        table.stop()


class BusyClock(FakeClock):
    """A clock that moves on a little at every reading, as time passes between two steps on a busy machine."""

    def monotonic(self) -> float:
        self.advance(0.003)
        return super().monotonic()


@settings(max_examples=12, deadline=None)
@given(steps=st.lists(st.tuples(st.floats(0.0, 12.0), st.sampled_from(COLOURS)), min_size=1, max_size=15))
def test_a_journal_always_replays_to_the_live_result(tmp_path_factory, steps):
    table = demo_table(tmp_path_factory.mktemp("j") / "t.sqlite3", clock=BusyClock())
    try:
        table.desk.start_show("training")
        for wait, colour in steps:
            table.clock.advance(wait)
            try:
                table.desk.flip(colour)
            except Conflict:
                pass  # not in play, or the show is over: refused, and nothing journaled
        table.pump()
        log = table.ledger.show_log(table.desk.snapshot()["id"])
        times = [json.loads(line)["t"] for line in log]
        assert times == sorted(times)
        snapshot, replayed = table.desk.snapshot(), replay(log + [json.dumps({"t": table.desk.show.now, "type": "end"})])
        assert replayed.result()["outcome"] == snapshot["outcome"]
        assert replayed.result()["crowd_tokens_turned"] == snapshot["crowd_tokens_turned"]
    finally:
        table.stop()


def test_a_show_left_running_past_a_logs_length_is_ended_as_aborted(tmp_path, clock):
    table = demo_table(tmp_path / "t.sqlite3", clock=clock)
    try:
        table.desk.start_show({**ONLY_RED, "id": "idle", "running": [], "lying": ["purple", "red"]})
        clock.advance(MAX_SHOW_S + 60)
        table.pump()
        assert table.desk.snapshot()["outcome"] == "idle" and table.ledger.shows()[0]["outcome"] == "aborted"
        log = table.ledger.show_log(table.ledger.shows()[0]["id"])
        assert json.loads(log[-1]) == {"t": MAX_SHOW_S, "type": "end"}
        replay(log)  # accepted
    finally:
        table.stop()


def test_a_flip_on_a_locked_database_is_kept_retried_and_never_lost(tmp_path, monkeypatch):
    import companion.table

    monkeypatch.setattr(companion.table, "DURABLE_WAIT_S", 3600.0)  # a read that waited for the writer would hang
    db = tmp_path / "t.sqlite3"
    table = demo_table(db, clock=FakeClock()).start()
    blocker = sqlite3.connect(db, isolation_level=None, timeout=0)
    try:
        table.desk.start_show("training")
        blocker.execute("BEGIN EXCLUSIVE")  # another process holds the database
        answer = table.desk.flip("green")  # lying at the start: stood up with its sand on top
        assert answer["saved"] is False and answer["timers"]["green"]["state"] == "running"
        assert table.desk.wait_for_change(answer["seq"], 20)["journal_problem"]
        assert table.ledger.shows()[0]["outcome"] == "running"  # read as it stands while the writes fail
        blocker.execute("ROLLBACK")
        assert table.journal.wait_for(table.journal.mark(), 30)
        assert [line for line in lines(table) if line["type"] == "flip"][0]["timer"] == "green"
    finally:
        blocker.close()
        table.stop()
    again = demo_table(db, clock=FakeClock())
    try:
        assert again.desk.snapshot()["timers"]["green"]["state"] == "running"  # resumed with the flip
    finally:
        again.stop()


class HeldStore(Store):
    """A store whose journal writes wait until released: an SD card stalling on fsync."""

    def __init__(self, path):
        super().__init__(path)
        self.release = threading.Event()

    def write(self, ops):
        self.release.wait(30)
        super().write(ops)


@pytest.fixture
def stalled(tmp_path):
    """A running table whose training show has started, on a store whose writes now stall until released."""
    store = HeldStore(tmp_path / "t.sqlite3")
    table = Table(demo_config(tmp_path / "t.sqlite3"), store, mock_pin_factory(), clock=FakeClock(), pin="1234")
    table.start()
    store.release.set()
    try:
        table.desk.start_show("training")
        store.release.clear()  # from now on every write stalls
        yield SimpleNamespace(table=table, release=store.release)
    finally:
        store.release.set()
        table.stop()


def test_the_runtime_never_waits_for_the_disk(stalled):
    table = stalled.table
    first = table.runtime.submit(table.live.input, None, "flip", "red")
    seen = table.desk.wait_for_change(table.desk.snapshot()["seq"] - 1, 5)
    second = table.runtime.submit(table.live.input, None, "flip", "yellow")
    assert first and second  # both applied while the first write still waits
    assert table.desk.wait_for_change(seen["seq"], 5)["timers"]["yellow"]["pose"] == "b_up"
    assert table.journal.pending >= 1
    stalled.release.set()
    assert table.journal.wait_for(table.journal.mark(), 30)
    assert [line["timer"] for line in lines(table) if line["type"] == "flip"] == ["red", "yellow"]


def test_a_read_of_the_shows_waits_for_what_the_phones_were_told(stalled):
    """A past show's page opened the moment the show is lost shows the run-out that lost it."""
    table = stalled.table
    table.runtime.submit(table.live.input, None, "flip", "red")
    table.desk.wait_for_change(table.desk.snapshot()["seq"] - 1, 5)  # the phones have the flip
    read = []
    reader = threading.Thread(target=lambda: read.append(table.ledger.show_log(table.desk.snapshot()["id"])))
    reader.start()
    reader.join(0.2)
    assert reader.is_alive()  # not read while the flip is still on its way to the card
    stalled.release.set()
    reader.join(30)
    assert [json.loads(line)["timer"] for line in read[0] if '"flip"' in line] == ["red"]
