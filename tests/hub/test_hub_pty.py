"""The hub over a real pseudo-terminal, the firmware's own core playing the board in a thread.

Nothing here waits for time to pass: each wait is for an item to arrive,
bounded generously so a busy machine is never a failure.
"""

import queue
import time

import pytest

from companion.cli import main
from companion.hardware.hub import HubConfig, HubSource
from companion.hardware.firmware import firmware_module
from companion.hardware.hub_fake import FakeHub
from companion.hardware.source import PoseChange

WAIT_S = 15.0


class Line:
    """A fake hub on a pty and the Pi's source reading it; `until` pumps items until a condition holds."""

    def __init__(self, tmp_path, colours=("red", "orange", "yellow"), clock=time.monotonic, **fake):
        self.items = queue.SimpleQueue()
        if "clock_of_board" in fake:
            fake["clock"] = fake.pop("clock_of_board")
        self.fake = FakeHub(6, link=tmp_path / "hub", poses=["a_up", "a_up", "side", "a_up", "a_up", "a_up"], **fake)
        self.source = HubSource.open(HubConfig(self.fake.path), colours, self.items.put, clock)
        self.changes = []

    def until(self, done, what):
        deadline = time.monotonic() + WAIT_S
        while not done():
            try:
                item = self.items.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"gave up waiting for {what}; saw {self.changes}")
            self.source.take(item)
            self.changes += self.source.update(time.monotonic())

    def poses(self):
        return [(c.name, c.pose.value, c.resync) for c in self.changes if isinstance(c, PoseChange)]

    def close(self):
        self.source.close()
        self.fake.close()


@pytest.fixture
def line(tmp_path):
    line = Line(tmp_path)
    line.until(lambda: line.source.counts["snapshots"] >= 1, "the first snapshot")
    yield line
    line.close()


def test_the_handshake_and_first_snapshot_over_a_pty(line):
    assert line.source.hello == {"fw": "1.2.0", "proto": 1, "timers": 6, "resend": 128}
    assert line.poses() == [("red", "a_up", False), ("orange", "a_up", False)]
    assert line.source.fault == {"red": None, "orange": None, "yellow": None}
    assert any(b" hello proto=1*" in sent for sent in line.fake.received)


def test_turns_arrive_once_each_in_order(line):
    for pose in ("b_up", "side", "a_up", "b_up"):
        line.fake.turn("red", pose)
    line.fake.turn("green", "b_up")  # not a hub glass of this table
    line.until(lambda: len(line.poses()) == 6, "four turns")
    assert line.poses()[2:] == [("red", p, False) for p in ("b_up", "side", "a_up", "b_up")]
    times = [c.t for c in line.changes]
    assert times == sorted(times)


def test_unplug_and_replug_with_glasses_turned_meanwhile(line):
    line.fake.unplug()
    line.until(lambda: line.source.fault["red"] is not None, "the unplug")
    assert line.source.fault == dict.fromkeys(("red", "orange", "yellow"), "serial hub unplugged")
    line.fake.turn("orange", "b_up")  # unseen: the cable is out
    line.fake.turn("yellow", "a_up")
    line.fake.plug()
    line.until(lambda: line.source.fault["red"] is None, "the replug")
    assert line.poses()[2:] == [("orange", "b_up", True), ("yellow", "a_up", True)]
    line.fake.turn("red", "b_up")
    line.until(lambda: len(line.poses()) == 5, "a turn after the replug")
    assert line.poses()[-1] == ("red", "b_up", False)


def test_corrupt_truncated_and_duplicated_frames_change_nothing_and_a_gap_is_filled(line):
    hubframe = firmware_module("hubframe")
    core = line.fake.core
    good = hubframe.encode(core._seq, "pose", (("ms", line.fake.ms()), ("ch", 0), ("pose", "b_up")))
    line.fake.inject(good.replace(b"b_up", b"side"))  # corrupted
    line.fake.inject(good[:20] + b"\n")  # truncated
    line.fake.inject(b"\x00\xff garbage \x1b[2J\n")
    line.fake.turn("orange", "side")  # the next real frame
    line.fake.turn("orange", "side")  # no change: nothing sent
    line.until(lambda: len(line.poses()) == 3, "orange lying")
    assert line.source.counts["bad"] == 3
    core._seq -= 1  # the board sends its last frame again
    line.fake.inject(hubframe.encode(core._seq, "pose", (("ms", line.fake.ms()), ("ch", 1), ("pose", "side"))))
    core._seq += 1
    core._seq += 2  # and then two frames go missing that the board never kept
    core._held.clear()
    line.fake.turn("red", "b_up")
    line.until(lambda: line.source.counts["snapshots"] >= 2, "the snapshot a gap it cannot resend is answered with")
    assert line.source.counts["duplicates"] == 1 and line.source.counts["gaps"] == 1
    assert line.source.counts["resends"] == 1
    assert line.poses() == [("red", "a_up", False), ("orange", "a_up", False), ("orange", "side", False),
                            ("red", "b_up", True)]


def test_dropped_frames_are_resent_and_arrive_in_order_with_the_hub_instants(tmp_path, clock):
    """Frames lost on the wire: the Pi asks for them by number and gets them, with the board's own times.

    The board's clock stands at 0 and the Pi's is moved on by 20 s after the
    hello, so every turn below happened before its line arrived, as in life.
    """
    line = Line(tmp_path, clock=clock, clock_of_board=lambda: 0.0)
    try:
        line.until(lambda: line.source.counts["snapshots"] >= 1, "the first snapshot")
        clock.advance(20.0)
        dropped_frames_come_back(line)
    finally:
        line.close()


def dropped_frames_come_back(line):
    line.fake.lose_next(3)
    line.fake.turn("red", "b_up", ms=10_000)
    line.fake.beam("red", "flowing", ms=10_050)  # the hub has no beam on red: nothing sent, nothing lost
    line.fake.turn("orange", "side", ms=10_400)
    line.fake.turn("red", "a_up", ms=11_000)
    line.fake.turn("yellow", "b_up", ms=11_500)  # arrives, and shows the gap
    line.until(lambda: len(line.poses()) == 6, "the resent turns")
    assert line.poses()[2:] == [("red", "b_up", False), ("orange", "side", False), ("red", "a_up", False),
                                ("yellow", "b_up", False)]
    t = [c.t for c in line.changes if isinstance(c, PoseChange)][2:]
    assert [round((later - t[0]) * 1000) for later in t] == [0, 400, 1000, 1500]
    assert line.source.counts["resends"] >= 1 and line.source.counts["snapshots"] == 1
    assert any(b" resend from=" in sent for sent in line.fake.received)


def test_a_flip_and_back_comes_through_when_the_resend_answer_is_lost_twice(line):
    line.fake.lose_next(2)  # the flip and the flip back
    line.fake.lose_answers(2)  # and the board's answers to the first two asks for them
    line.fake.turn("red", "b_up")
    line.fake.turn("red", "a_up")
    line.fake.turn("yellow", "a_up")  # arrives, and shows the gap
    line.until(lambda: len(line.poses()) == 5, "the flip and back, asked for a third time")
    assert line.poses()[2:] == [("red", "b_up", False), ("red", "a_up", False), ("yellow", "a_up", False)]
    assert line.source.counts["resends"] >= 3 and line.source.counts["snapshots"] == 1
    assert sum(b" resend from=" in sent for sent in line.fake.received) >= 3


def test_a_flood_of_garbage_faults_the_glasses_then_the_hub_is_read_again(line):
    line.fake.inject(b"\x55\xaa" * 4000)  # no newline at all
    line.until(lambda: line.source.fault["red"] == "serial hub garbage", "the garbage fault")
    line.until(lambda: line.source.fault["red"] is None, "the reconnect")
    assert [p for p in line.poses() if p[0] == "red"] == [("red", "a_up", False)]


def test_check_prints_the_hello_and_the_snapshot(capsys):
    fake = FakeHub(6, poses=["a_up", "a_up", "side", "a_up", "a_up", "a_up"])
    fake.turn("blue", "side")
    try:
        assert main(["hub", "check", fake.path, "--once"]) == 0  # the only reader of that pty
    finally:
        fake.close()
    out = capsys.readouterr().out.splitlines()
    assert out == ["hello: firmware 1.2.0, protocol 1, 6 timers",
                   "snapshot: red a_up, orange a_up, yellow side, green a_up, blue side, purple a_up"]


def test_check_refuses_another_protocol_version_with_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(firmware_module("hubcore"), "PROTOCOL_VERSION", 9)
    fake = FakeHub(6)
    try:
        assert main(["hub", "check", fake.path, "--once"]) == 2
    finally:
        fake.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "protocol 9" in err[0] and "speaks 1" in err[0]


def test_check_exits_1_when_the_port_cannot_be_opened(tmp_path, capsys):
    assert main(["hub", "check", str(tmp_path / "nothing"), "--once"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot open" in err[0] and "nothing" in err[0]


def test_check_exits_1_when_nothing_answers(tmp_path, monkeypatch, capsys):
    import os

    from companion.cli import hub as hub_cli

    master, slave = os.openpty()  # a serial device with no hub behind it
    monkeypatch.setattr(hub_cli, "ANSWER_S", 0.5)
    try:
        assert main(["hub", "check", os.ttyname(slave), "--once"]) == 1
    finally:
        os.close(master)
        os.close(slave)
    assert "does not answer" in capsys.readouterr().err


def test_the_fake_command_serves_a_hub_and_takes_turns_from_stdin(cli, tmp_path):
    import subprocess
    import sys

    from conftest import ROOT

    import os

    fake = subprocess.Popen([sys.executable, "-m", "companion", "hub", "fake", "--seed", "4"], cwd=ROOT,
                            env={**os.environ, "TMPDIR": str(tmp_path)},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = fake.stdout.readline().split()
        assert first == ["hub", "on", str(tmp_path / "companion-hub")]
        fake.stdin.write("red b_up\nred upside\n")
        fake.stdin.flush()
        assert "upside" in fake.stderr.readline()  # a bad line is named, the fake goes on
        done = cli("hub", "check", first[2], "--once")
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[1].startswith("snapshot: red b_up, ")
    finally:
        fake.terminate()
        fake.wait(timeout=10)


def test_check_says_when_the_hub_no_longer_kept_the_frames_it_was_asked_for():
    import subprocess
    import sys

    from conftest import ROOT

    fake = FakeHub(6, poses=["a_up"] * 6)
    fake.core.window = 2  # a hub that keeps only its last two frames
    check = subprocess.Popen([sys.executable, "-m", "companion", "hub", "check", fake.path], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert check.stdout.readline().startswith("hello: ")
        assert check.stdout.readline().startswith("snapshot: red a_up")
        fake.lose_next(4)
        for pose in ("b_up", "a_up", "b_up", "side"):
            fake.turn("red", pose)  # all lost on the wire, and more than the hub keeps
        fake.turn("orange", "b_up")  # arrives, and shows the gap
        out = [check.stdout.readline().strip() for _ in range(3)]
    finally:
        check.terminate()
        check.wait(timeout=10)
        fake.close()
    assert out[0] == "frames lost: the hub no longer kept them; its snapshot stands in"
    assert sorted(out[1:]) == ["orange b_up (from a snapshot)", "red side (from a snapshot)"]
