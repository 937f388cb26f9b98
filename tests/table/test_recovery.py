"""A table that dies mid-show (SIGKILL, power cut) resumes it from the journal on the next start."""

import json
import os
import signal
import subprocess
import sys

import pytest

from companion.clock import FakeClock
from companion.hardware.mock import mock_pin_factory
from companion.table import demo_table
from conftest import ROOT
from tabletop import Hands, journal, live, near, replayed, tilt_table

WALL = 1_700_000_000.0
DOWN_S = 3.0

# The daemon runs its real runtime thread on a clock only it moves, so what has
# happened by the time it prints (and is killed) never depends on how busy the
# machine is: every line acknowledged is in the journal before the answer.
DAEMON = f"""
import json, sys, threading
from companion.clock import FakeClock
from companion.table import demo_table
clock = FakeClock(wall={WALL})
table = demo_table(sys.argv[1], speed=4.0, clock=clock).start()
table.desk.start_show("training")
table.desk.flip("yellow")   # at t = 0 all its sand goes to the bottom: it runs out at once, and the table turns it
table.desk.flip("green")    # stood up, sand on top
clock.advance(3.0)     # 12 s of show time at speed 4
print(json.dumps(table.desk.set_muted(False)), flush=True)
threading.Event().wait()
"""


def test_sigkill_mid_show_and_restart_resumes_it(tmp_path):
    db = tmp_path / "table.sqlite3"
    daemon = subprocess.Popen([sys.executable, "-c", DAEMON, str(db)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        before = json.loads(daemon.stdout.readline())
    finally:
        daemon.send_signal(signal.SIGKILL)
        daemon.wait(timeout=10)
    assert daemon.returncode == -signal.SIGKILL
    assert before["t"] == 12.0 and before["crowd_tokens_turned"] == 1
    assert before["timers"]["green"]["state"] == "running" and before["timers"]["yellow"]["state"] == "running"

    table = demo_table(db, speed=4.0, clock=FakeClock(wall=WALL + 3.0 + DOWN_S))
    try:
        after = table.desk.snapshot()
        assert after["id"] == before["id"] and after["outcome"] == "running"
        assert after["t"] == 12.0 + DOWN_S * 4.0
        assert after["countdown"] == before["countdown"]
        assert after["crowd_tokens_turned"] == before["crowd_tokens_turned"]
        elapsed = after["t"] - before["t"]
        for colour, timer in before["timers"].items():
            if timer["state"] == "running":
                assert after["timers"][colour]["state"] == "running", colour
                assert after["timers"][colour]["top_s"] == pytest.approx(timer["top_s"] - elapsed, abs=0.002), colour
            assert after["timers"][colour]["changed_while_down"] is False
        assert live(table) == near(replayed(table, at=after["t"]))
    finally:
        table.stop()


def test_glasses_turned_while_the_table_was_down_are_read_afresh_and_flagged(tmp_path):
    clock = FakeClock()
    first = tilt_table(tmp_path, clock)
    hands = Hands(first)
    first.desk.start_show("training")
    for colour in ("red", "orange", "yellow", "purple"):
        hands.set(colour, "a_up")
    hands.wait(10)
    hands.turn("red")
    show_id, t_down = first.desk.show_id, first.desk.show_time()
    red_before = first.desk.snapshot()["timers"]["red"]["top_s"]
    first.rig.close()  # the power goes: nothing more is written

    clock.advance(6.0)  # the table is down for 6 s; meanwhile someone turns yellow over
    pins = mock_pin_factory()
    closed = {"red": 1, "orange": 0, "yellow": 1, "purple": 0}  # which switch is closed in each cradle
    for colour, switch in closed.items():
        pins.pin(first.configured.now.timers[colour].pins[switch]).close_switch()
    second = tilt_table(tmp_path, clock, pin_factory=pins)
    try:
        snap = second.desk.snapshot()
        assert snap["id"] == show_id and snap["t"] == pytest.approx(t_down + 6.0)
        assert {c: t["changed_while_down"] for c, t in snap["timers"].items()} == {
            "red": False, "orange": False, "yellow": True, "green": False, "blue": False, "purple": False}
        assert snap["timers"]["yellow"]["pose"] == "b_up"
        assert snap["timers"]["red"]["top_s"] == pytest.approx(red_before - 6.0, abs=0.05)
        assert journal(second)[-1].startswith('{"t": ') and '"yellow"' in journal(second)[-1]
        assert live(second) == near(replayed(second, at=snap["t"]))
    finally:
        second.stop()


def test_a_loss_while_down_is_recorded_on_restart(tmp_path):
    clock = FakeClock()
    first = demo_table(tmp_path / "t.sqlite3", clock=clock)
    first.desk.start_show("training")
    show_id = first.desk.show_id
    first.rig.close()
    clock.advance(120)
    second = demo_table(tmp_path / "t.sqlite3", clock=clock)
    try:
        assert second.desk.snapshot()["outcome"] == "loss"
        assert second.store.show(show_id)["outcome"] == "loss"
        assert json.loads(journal(second, show_id)[-1]) == {"t": 60.0, "type": "end"}
    finally:
        second.stop()


def test_a_wall_clock_set_back_never_rewinds_the_show(tmp_path):
    clock = FakeClock()
    first = demo_table(tmp_path / "t.sqlite3", clock=clock)
    first.desk.start_show("training")
    Hands(first).wait(20)
    first.desk.flip("red")
    first.rig.close()
    second = demo_table(tmp_path / "t.sqlite3", clock=FakeClock(wall=clock.wall() - 3600))
    try:
        assert second.desk.snapshot()["t"] == pytest.approx(20.0)
    finally:
        second.stop()
