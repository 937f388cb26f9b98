"""The hub as a sensor source, line by line on the runtime thread: sequence, faults, resync, time, config."""

import pytest

from companion.section import Section
from companion.errors import BadInput
from companion.hardware.hub import WAITING, HubConfig, HubSource, hub_config
from companion.hardware.firmware import firmware_module
from companion.hardware.hub_link import HubItem
from companion.hardware.source import BeamChange, FaultChange, PoseChange, Source
from companion.skyrockets.hourglass import Pose

hubcore = firmware_module("hubcore")


class Link:
    """What the source asks of its link, recorded."""

    def __init__(self):
        self.snapshots, self.refusal, self.closed = 0, None, False

    def request_snapshot(self):
        self.snapshots += 1

    def refuse(self, reason):
        self.refusal = reason

    def close(self):
        self.closed = True


class Bench:
    """A firmware core and a source joined by hand: every line goes exactly where the test says."""

    def __init__(self, colours=("red", "orange"), timers=6, beams=()):
        self.core = hubcore.HubCore(timers, beams=beams)
        self.link = Link()
        self.source = HubSource({c: i for i, c in enumerate(("red", "orange", "yellow")) if c in colours}, self.link)

    def deliver(self, lines, t):
        for line in lines:
            self.source.take(HubItem("hub", "line", line, t))
        return self.source.update(t)

    def connect(self, t=1.0, ms=1000):
        self.source.take(HubItem("hub", "open", "pty", t))
        return self.deliver(self.core.start(ms), t)


def poses(changes):
    return [(c.name, c.pose.value, c.resync) for c in changes if isinstance(c, PoseChange)]


def test_it_is_a_source_and_its_glasses_wait_for_the_hub():
    bench = Bench()
    assert isinstance(bench.source, Source)
    assert bench.source.update(0.0) == [FaultChange("red", WAITING, 0.0), FaultChange("orange", WAITING, 0.0)]
    bench.source.close()
    assert bench.link.closed


def test_the_first_snapshot_gives_every_pose_unflagged_and_clears_the_wait():
    bench = Bench()
    bench.core.poses[:2] = ["a_up", "b_up"]
    changes = bench.connect()
    assert poses(changes) == [("red", "a_up", False), ("orange", "b_up", False)]
    assert [c.fault for c in changes if isinstance(c, FaultChange)] == [WAITING, WAITING, None, None]


def test_a_duplicated_frame_is_dropped_and_a_late_one_too():
    bench = Bench()
    bench.connect()
    first, second = bench.core.set_pose(0, "a_up", 1100), bench.core.set_pose(0, "b_up", 1200)
    assert poses(bench.deliver(first + first, 2.0)) == [("red", "a_up", False)]
    assert poses(bench.deliver(second + first, 3.0)) == [("red", "b_up", False)]
    assert bench.source.counts["duplicates"] == 2 and bench.link.snapshots == 0


def test_a_gap_asks_for_a_snapshot_and_the_lost_pose_comes_back_flagged_once():
    bench = Bench()
    bench.connect()
    lost = bench.core.set_pose(0, "b_up", 1100)
    kept = bench.core.set_pose(1, "a_up", 1200)
    assert lost and poses(bench.deliver(kept, 2.0)) == [("orange", "a_up", False)]
    assert bench.link.snapshots == 1
    again = bench.deliver([bench.core.snapshot(1300)], 2.1)
    assert poses(again) == [("red", "b_up", True)]
    assert poses(bench.deliver([bench.core.snapshot(1400)], 2.2)) == []  # never twice


def test_reordered_frames_lose_nothing():
    bench = Bench()
    bench.connect()
    a, b = bench.core.set_pose(0, "b_up", 1100), bench.core.set_pose(1, "a_up", 1150)
    changes = bench.deliver(b + a, 2.0) + bench.deliver([bench.core.snapshot(1200)], 2.1)
    assert sorted(poses(changes)) == [("orange", "a_up", False), ("red", "b_up", True)]


def test_unplug_faults_every_hub_glass_once_and_the_replug_resyncs_what_moved():
    bench = Bench()
    bench.connect()
    bench.source.take(HubItem("hub", "lost", "unplugged", 5.0))
    bench.source.take(HubItem("hub", "lost", "cannot open it (No such file or directory)", 5.1))
    faults = bench.source.update(5.1)
    assert faults == [FaultChange("red", "serial hub unplugged", 5.0), FaultChange("orange", "serial hub unplugged", 5.0)]
    bench.core.set_pose(1, "b_up", 6000)  # moved while unplugged: nobody heard it
    changes = bench.connect(t=7.0, ms=7000)
    assert poses(changes) == [("orange", "b_up", True)]
    assert {c.name: c.fault for c in changes if isinstance(c, FaultChange)} == {"red": None, "orange": None}


def test_another_protocol_version_is_refused_with_both_versions_named(monkeypatch):
    bench = Bench()
    monkeypatch.setattr(hubcore, "PROTOCOL_VERSION", 2)
    changes = bench.connect()
    assert "protocol 2" in bench.link.refusal and "speaks 1" in bench.link.refusal
    assert poses(changes) == []
    assert all(c.fault == bench.link.refusal for c in changes[2:])
    bench.source.take(HubItem("hub", "lost", "closed", 2.0))
    assert bench.source.fault["red"] == bench.link.refusal  # the refusal stays the reason


def test_lines_before_the_hello_are_ignored():
    bench = Bench()
    bench.source.take(HubItem("hub", "open", "pty", 0.5))
    assert poses(bench.deliver(bench.core.set_pose(0, "b_up", 10), 1.0)) == []


def test_events_are_stamped_with_the_hubs_timing_never_after_their_arrival():
    bench = Bench()
    bench.connect(t=10.0, ms=5000)
    [change] = bench.deliver(bench.core.set_pose(0, "b_up", 5250), 10.4)  # 150 ms on the USB
    assert change.t == pytest.approx(10.25)
    [change] = bench.deliver(bench.core.set_pose(0, "a_up", 6000), 10.9)  # quicker than the hello was
    assert change.t == 10.9
    [change] = bench.deliver(bench.core.set_pose(0, "b_up", 6100), 11.5)
    assert change.t == pytest.approx(11.0)


def test_beams_and_sensor_faults_become_changes():
    bench = Bench(beams=(0,))
    bench.connect()
    changes = bench.deliver(bench.core.set_beam(0, "flowing", 1100) + bench.core.set_beam(0, "stopped", 1400)
                            + bench.core.set_fault(1, True, 1500), 3.0)
    assert changes == [BeamChange("red", True, 1.1), BeamChange("red", False, pytest.approx(1.4)),
                       FaultChange("orange", "the hub cannot read this glass's sensor", 1.5)]


def test_a_hub_with_too_few_channels_faults_the_glasses_it_lacks():
    bench = Bench(colours=("red", "yellow"), timers=2)
    changes = bench.connect()
    assert bench.source.fault == {"red": None, "yellow": "the hub has only 2 channels"}
    assert poses(changes) == [] and bench.source.pose["red"] is Pose.SIDE


def test_the_hub_section_is_read_and_checked_by_its_owner():
    assert hub_config(Section({}, "hub")) is None
    assert hub_config(Section({"port": "/dev/ttyACM0"}, "hub")) == HubConfig("/dev/ttyACM0", 115200)
    assert hub_config(Section({"port": "/dev/ttyACM0", "baud": 9600}, "hub")).baud == 9600
    for data, field in [({"baud": 9600}, "hub.port"), ({"port": "/dev/x", "baud": 1234}, "hub.baud"),
                        ({"port": "/dev/x", "speed": 9600}, "hub.speed"), ({"port": 5}, "hub.port")]:
        with pytest.raises(BadInput) as caught:
            hub_config(Section(data, "hub"))
        assert caught.value.field == field
