"""The demo table turns its own LED glasses after a run-out, and its journal replays to the live show."""

import json
import math

import pytest

from companion.clock import FakeClock
from companion.skyrockets import replay
from companion.table import demo_table

CONTRACT_KEYS = ("outcome", "t", "stars", "countdown", "crowd_tokens_turned", "runouts", "advances", "warnings")


@pytest.fixture
def demo(tmp_path):
    table = demo_table(tmp_path / "demo.sqlite3", clock=FakeClock())
    yield table
    table.stop()


def let_time_pass(table, seconds: float, step: float = 0.5) -> None:
    while seconds > 1e-9:
        table.clock.advance(min(step, seconds))
        table.pump()
        seconds -= step


def journal(table) -> list[dict]:
    return [json.loads(line) for line in table.ledger.show_log(table.desk.show_id)]


def contract_part(snapshot: dict) -> dict:
    result = {k: snapshot[k] for k in CONTRACT_KEYS}
    result["timers"] = {c: {k: v[k] for k in ("pose", "top_s", "state")} for c, v in snapshot["timers"].items()}
    return result


def test_an_untouched_emulated_glass_runs_out_and_the_table_turns_it(demo):
    demo.desk.start_show("training")
    let_time_pass(demo, 35.0)
    flips = [line for line in journal(demo) if line["type"] == "flip"]
    assert flips == [{"t": math.nextafter(30.0, math.inf), "type": "flip", "timer": "red"}]
    red = demo.desk.current()["timers"]["red"]
    assert red["state"] == "running" and red["pose"] == "b_up" and red["awaiting_turn"] is False
    assert red["top_s"] == pytest.approx(25.0, abs=0.01)
    now = demo.desk.current()
    lines = demo.ledger.show_log(demo.desk.show_id) + [json.dumps({"t": demo.desk.show_time(), "type": "end"})]
    assert replay(lines).result() == contract_part(now)


def test_an_untouched_demo_show_is_lost_exactly_as_its_journal_replays(demo):
    demo.desk.start_show("training")
    let_time_pass(demo, 200.0, step=7.3)  # a runtime that wakes late still turns each glass at its instant
    snap = demo.desk.snapshot()
    assert snap["outcome"] == "loss" and [r["timer"] for r in snap["runouts"]] == ["red", "yellow", "red"]
    assert snap["t"] == 60.0
    assert replay(demo.ledger.show_log(demo.desk.show_id)).result() == contract_part(snap)
    assert [line["t"] for line in journal(demo)] == sorted(line["t"] for line in journal(demo))


def test_the_setup_line_carries_every_parameter_of_the_show(tmp_path):
    from dataclasses import replace

    from companion.config import demo_config
    from companion.hardware.mock import mock_pin_factory
    from companion.records import Store
    from companion.table import Table

    config = replace(demo_config(tmp_path / "t.sqlite3"), warn_lead_s=3.0)
    first = Table(config, Store(config.database), mock_pin_factory(), clock=FakeClock(), pin="1234")
    first.desk.start_show("training")
    setup = journal(first)[0]
    assert setup["warn_lead_s"] == 3.0 and setup["runout_grace_s"] == 0.0 and setup["advance_tolerance_s"] == 0.0
    assert setup["durations"]["purple"] == 80.0
    first.rig.close()
    # A table restarted with another warning lead resumes the show with the one it started with.
    again = Table(replace(config, warn_lead_s=10.0), Store(config.database), mock_pin_factory(), clock=FakeClock(),
                  pin="1234")
    try:
        assert again.desk.snapshot()["warn_lead_s"] == 3.0
    finally:
        again.stop()


class Buzz:
    """Stands in for the buzzer and keeps what it was asked to play."""

    muted = False

    def __init__(self):
        self.kinds = []

    def notice(self, n: dict) -> None:
        self.kinds.append((n["kind"], n.get("timer")))

    def close(self) -> None:
        pass


def test_a_physical_glass_is_reminded_until_turned_and_runs_from_the_real_turn(tmp_path):
    from companion.config import Config, TiltConfig, default_timers
    from companion.hardware.mock import Hands, mock_pin_factory
    from companion.records import Store
    from companion.table import Table

    config = Config(database=tmp_path / "t.sqlite3", timers=default_timers("tilt"), runout_grace_s=1.0,
                    tilt=TiltConfig(start_window_s=5.0, remind_every_s=4.0))
    table = Table(config, Store(config.database), mock_pin_factory(), clock=FakeClock(), pin="1234")
    try:
        table.rig.buzzer = buzz = Buzz()
        hands = Hands(table)
        table.desk.start_show("training")
        for colour in ("red", "orange", "yellow", "purple"):
            hands.set(colour, "a_up")
        hands.wait(31.0)  # red empty at 30, out at 31 (grace)
        assert [k for k in buzz.kinds if k[1] == "red"] == [("low_sand", "red"), ("empty", "red"), ("runout", "red")]
        hands.wait(9.0)  # nobody turns it: a reminder at 35 and at 39
        assert buzz.kinds.count(("turn_reminder", "red")) == 2
        assert table.desk.snapshot()["timers"]["red"]["awaiting_turn"] is True
        hands.turn("red")
        turned = [line for line in journal(table) if line["type"] == "pose" and line["timer"] == "red"]
        assert len(turned) == 1 and turned[0]["pose"] == "b_up"
        hands.wait(12.0)
        assert buzz.kinds.count(("turn_reminder", "red")) == 2  # turned: no more reminders
        red = table.desk.current()["timers"]["red"]
        assert red["awaiting_turn"] is False
        assert red["top_s"] == pytest.approx(30.0 - (table.desk.show_time() - turned[0]["t"]), abs=0.002)
        assert [r["timer"] for r in table.desk.snapshot()["runouts"]].count("red") == 1
    finally:
        table.stop()


def test_a_show_that_would_outrun_the_longest_log_ends_there_as_aborted(demo):
    from companion.skyrockets.log import MAX_SHOW_S

    demo.desk.start_show({"id": "endless", "countdown": "purple", "running": ["purple"]})
    show_id = demo.desk.show_id
    demo.clock.advance(MAX_SHOW_S + 30.0)
    demo.pump()
    assert demo.desk.snapshot()["outcome"] == "idle"
    assert demo.ledger.show_record(show_id)["outcome"] == "aborted"
    log = demo.ledger.show_log(show_id)
    assert json.loads(log[-1]) == {"t": MAX_SHOW_S, "type": "end"}
    assert replay(log).result()["t"] == MAX_SHOW_S
