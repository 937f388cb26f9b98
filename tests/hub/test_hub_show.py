"""A whole show read through the hub on a real pty ends exactly as the replay of its journal, across an unplug."""

import json

import pytest

from companion.clock import FakeClock
from companion.config import Config, TiltConfig, TimerConfig
from companion.hardware.hub import HubConfig
from companion.hardware.hub_fake import FakeHub
from companion.hardware.mock import mock_pin_factory
from companion.skyrockets import replay
from companion.skyrockets.colours import COLOURS
from companion.records import Store
from companion.table import Table

WAIT_S = 15.0  # for the hub's lines to cross the pty and the table to take them: generous, never a timing test
STEP_S = 0.25


@pytest.fixture
def hub_table(tmp_path):
    clock = FakeClock()
    fake = FakeHub(6, beams=range(6), link=tmp_path / "hub", clock=clock,
                   poses=["a_up", "a_up", "a_up", "side", "side", "a_up"])  # the training event's start
    config = Config(database=tmp_path / "table.sqlite3", timers={c: TimerConfig(source="hub") for c in COLOURS},
                    hub=HubConfig(str(tmp_path / "hub")), tilt=TiltConfig(start_window_s=0.0, remind_every_s=600))
    table = Table(config, Store(config.database), mock_pin_factory(), clock=clock, pin="1234").start()
    yield table, fake, clock
    table.stop()
    fake.close()


def wait_for(table, done, what):
    """The table's snapshot once `done(snapshot)` holds (blocking on its publisher, not sleeping)."""
    snap = table.desk.snapshot()
    while not done(snap):
        later = table.desk.wait_for_change(snap["seq"], WAIT_S)
        if later["seq"] == snap["seq"]:
            pytest.fail(f"gave up waiting for {what}")
        snap = later
    return snap


def journaled(table) -> list[dict]:
    """The show's journal, once its writer has saved every line queued so far."""
    assert table.journal.wait_for(table.journal.mark(), WAIT_S), "the journal was never written"
    return [json.loads(line) for line in table.ledger.show_log(table.live.show_id)]


def hub_ready(snap):
    return "timers" in snap and all(snap["timers"][c]["fault"] is None for c in COLOURS)


def turn(table, fake, colour, physical, *, seen=None):
    """A player turns a glass on the hub; the table has taken it when this returns."""
    before = table.desk.snapshot()["timers"][colour]["pose"]
    physical[colour] = "b_up" if physical[colour] == "a_up" else "a_up"
    fake.turn(colour, physical[colour])
    wait_for(table, seen or (lambda s: s["timers"][colour]["pose"] != before), f"{colour} turned")


def beam(table, fake, colour, state):
    """A neck beam reports; the table has journaled it (and so published) when this returns."""
    seq = table.desk.snapshot()["seq"]
    fake.beam(colour, state)
    wait_for(table, lambda s: s["seq"] > seq, f"{colour}'s beam {state}")


def play(table, fake, clock, *, unplug_at: float, replug_at: float, beam_red_at: float):
    """Players who turn each running glass shortly before it runs dry, and the countdown when it is about to.

    Red they forget once: its neck beam sees it run dry, and they turn it when the table says it ran out.
    """
    physical = {c: p for c, p in zip(COLOURS, fake.core.poses)}
    beam(table, fake, "red", "flowing")
    unplugged, red_forgotten = False, True
    while (snap := table.desk.current())["outcome"] == "running":
        t = snap["t"]
        if not unplugged and unplug_at <= t < replug_at:
            fake.unplug()
            wait_for(table, lambda s: s["timers"]["red"]["fault"] == "serial hub unplugged", "the unplug")
            fake.turn("purple", "b_up")  # turned while nobody could see it
            physical["purple"] = "b_up"
            unplugged = True
        if unplugged and t >= replug_at:
            fake.plug()
            wait_for(table, lambda s: hub_ready(s) and s["timers"]["purple"]["changed_while_down"], "the replug")
            unplugged = False
            continue
        if beam_red_at is not None and t >= beam_red_at:
            beam(table, fake, "red", "stopped")  # the beam sees the last grain, a little before the model
            beam_red_at = None
            continue
        if red_forgotten and snap["runouts"]:
            turn(table, fake, "red", physical, seen=lambda s: not s["timers"]["red"]["awaiting_turn"])
            red_forgotten = False
            continue
        for colour, timer in snap["timers"].items():
            if unplugged or timer["state"] != "running" or (colour == "red" and red_forgotten):
                continue
            if timer["top_s"] <= (1.0 if timer["role"] == "countdown" else 3.0):
                turn(table, fake, colour, physical)
        clock.advance(STEP_S)
        table.pump()
    return table.desk.current()


def test_a_show_through_the_hub_ends_exactly_as_its_replay_across_an_unplug(hub_table):
    table, fake, clock = hub_table
    table.desk.start_show("training")  # an idle table shows no glasses: wait for the hub's snapshot in the show
    wait_for(table, hub_ready, "the hub's first snapshot")
    end = play(table, fake, clock, unplug_at=50.0, replug_at=53.0, beam_red_at=29.5)  # the model empties red at 30

    lines = journaled(table)
    result = replay(json.dumps(line) for line in lines).result()
    live = {k: end[k] for k in result if k != "timers"}
    assert {k: result[k] for k in live} == live
    assert {c: {k: end["timers"][c][k] for k in ("pose", "top_s", "state")} for c in COLOURS} == result["timers"]
    assert end["outcome"] == "win" and len(end["advances"]) == 4 and end["stars"] == 2, (end, lines)
    journal = lines
    beams = [line for line in journal if line["type"] == "beam"]
    assert [(b["timer"], b["state"]) for b in beams] == [("red", "flowing"), ("red", "stopped")]
    assert end["runouts"] == [{"timer": "red", "t": 30.5}]  # the beam's instant and the grace, not the model's 31
    durations = {c: t.duration for c, t in table.configured.now.timers.items()}
    assert durations == dict.fromkeys(COLOURS, None) | {"red": 29.9}  # its beam-timed full run, 29.5 s, refined it
    purple = [line for line in journal if line.get("timer") == "purple" and line["type"] == "pose"]
    assert purple and 53.0 <= purple[0]["t"] < 54.0  # learnt from the snapshot at the replug


def pump_until(table, done, what):
    """Pump a table that has no runtime thread until `done(current state)`: the hub's lines come on their own thread."""
    import time

    deadline = time.monotonic() + WAIT_S
    while not done(table.desk.current()):
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.002)  # a line crossing the pty; no show time passes meanwhile
        table.pump()


def test_hub_tilt_and_emulated_glasses_share_one_table(tmp_path):
    from companion.config import default_timers
    from companion.hardware.mock import Hands

    clock = FakeClock()
    fake = FakeHub(6, link=tmp_path / "hub", clock=clock, poses=["a_up"] * 6)
    timers = dict(default_timers("tilt"), red=TimerConfig(source="hub"), orange=TimerConfig(source="hub"))
    timers["purple"] = TimerConfig(source="emulated", pins=timers["purple"].pins)
    config = Config(database=tmp_path / "table.sqlite3", timers=timers, hub=HubConfig(str(tmp_path / "hub")),
                    tilt=TiltConfig(start_window_s=0.0, remind_every_s=600))
    table = Table(config, Store(config.database), mock_pin_factory(), clock=clock, pin="1234")  # pumped by hand
    hands = Hands(table)
    try:
        hands.set("yellow", "a_up")
        table.desk.start_show("training")
        pump_until(table, lambda s: s["timers"]["red"]["fault"] is None, "the hub's first snapshot")
        hands.wait(5.0)
        fake.turn("red", "b_up")
        pump_until(table, lambda s: s["timers"]["red"]["pose"] == "b_up", "red turned on the hub")
        # The setup page's status box shows the hub in the lines it gives, in codes every language has.
        hello, red, orange = table.setup.wiring()["hub"]["lines"]
        assert hello["code"] == "setup.hub_hello" and hello["params"]["timers"] == 6
        assert set(hello["params"]) == {"firmware", "protocol", "timers"}
        assert red == {"code": "setup.hub_channel", "params": {"channel": 0, "timer": "red"},
                       "words": {"pose": "setup.pose.b_up"}, "fault": None, "fault_code": None, "fault_params": {}}
        assert orange["params"] == {"channel": 1, "timer": "orange"}
        hands.set("yellow", "b_up")
        hands.press("purple")
        snap = table.desk.current()
        assert {c: snap["timers"][c]["source"] for c in ("red", "yellow", "purple")} == \
            {"red": "hub", "yellow": "tilt", "purple": "emulated"}
        assert {c: snap["timers"][c]["sensed"] for c in ("red", "yellow", "purple")} == \
            {"red": True, "yellow": True, "purple": False}
        assert {c: snap["timers"][c]["pose"] for c in ("red", "yellow", "purple")} == \
            {"red": "b_up", "yellow": "b_up", "purple": "b_up"}
        lines = journaled(table)
        assert [(line["type"], line["timer"]) for line in lines[1:]] == [("pose", "red"), ("pose", "yellow"),
                                                                        ("flip", "purple")]
    finally:
        table.stop()
        fake.close()
