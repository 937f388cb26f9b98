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
        self.resends: list[int] = []

    def request_snapshot(self):
        self.snapshots += 1

    def request_resend(self, first):
        self.resends.append(first)

    def refuse(self, reason):
        self.refusal = reason

    def close(self):
        self.closed = True


class Bench:
    """A firmware core and a source joined by hand: every line goes exactly where the test says."""

    def __init__(self, colours=("red", "orange"), timers=6, beams=(), window=hubcore.RESEND_WINDOW):
        self.core = hubcore.HubCore(timers, beams=beams, window=window)
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


def test_a_hub_that_keeps_no_frames_is_asked_for_a_snapshot_and_the_lost_pose_comes_back_flagged_once():
    bench = Bench(window=0)  # as firmware 1.0 was: no resend window in its hello
    bench.connect()
    assert bench.source.hello["resend"] == 0
    lost = bench.core.set_pose(0, "b_up", 1100)
    kept = bench.core.set_pose(1, "a_up", 1200)
    assert lost and poses(bench.deliver(kept, 2.0)) == [("orange", "a_up", False)]
    assert bench.link.snapshots == 1 and bench.link.resends == []
    again = bench.deliver([bench.core.snapshot(1300)], 2.1)
    assert poses(again) == [("red", "b_up", True)]
    assert poses(bench.deliver([bench.core.snapshot(1400)], 2.2)) == []  # never twice


def test_a_gap_is_asked_for_by_number_and_the_lost_frames_come_back_in_order_with_their_instants():
    bench = Bench(beams=(0,))
    bench.connect(t=1.0, ms=1000)
    lost = bench.core.set_pose(0, "b_up", 1100) + bench.core.set_beam(0, "flowing", 1150) + \
        bench.core.set_beam(0, "stopped", 1400) + bench.core.set_pose(0, "a_up", 1450)
    kept = bench.core.set_pose(1, "a_up", 1500)
    assert len(lost) == 4
    assert bench.deliver(kept, 2.0) == []  # held back until the missing frames are in
    assert bench.link.resends == [2] and bench.link.snapshots == 0
    changes = bench.deliver(bench.core.resend(2, 1510), 2.05)
    assert [(type(c).__name__, c.name, getattr(c, "pose", getattr(c, "flowing", None)), round(c.t, 3))
            for c in changes] == [("PoseChange", "red", Pose.B_UP, 1.1), ("BeamChange", "red", True, 1.15),
                                  ("BeamChange", "red", False, 1.4), ("PoseChange", "red", Pose.A_UP, 1.45),
                                  ("PoseChange", "orange", Pose.A_UP, 1.5)]
    assert not any(c.resync for c in changes if isinstance(c, PoseChange))
    assert bench.source.counts["gaps"] == 1 and bench.source.counts["resends"] == 1


def test_frames_after_a_hole_are_kept_aside_so_an_answer_need_only_fill_the_hole():
    bench = Bench()
    bench.connect()
    first, hole = bench.core.set_pose(0, "b_up", 1100), bench.core.set_pose(0, "a_up", 1200)
    after = bench.core.set_pose(1, "b_up", 1300) + bench.core.set_pose(0, "side", 1400)
    assert poses(bench.deliver(first + after, 2.0)) == [("red", "b_up", False)]  # the hole held the rest back
    answer = bench.core.resend(bench.link.resends[0], 1500)
    assert len(answer) == 3
    assert poses(bench.deliver(answer[:1], 2.1)) == [  # the rest of the answer is lost: nothing is missing
        ("red", "a_up", False), ("orange", "b_up", False), ("red", "side", False)]
    assert bench.link.resends == [3] and bench.source.next_due() is None


def test_a_lost_flip_and_back_is_not_lost():
    """Turned and turned back between two frames the Pi saw: a snapshot would show nothing; the resend shows both."""
    bench = Bench()
    bench.core.poses[0] = "a_up"
    bench.connect()
    bench.core.set_pose(0, "b_up", 1100), bench.core.set_pose(0, "a_up", 1300)
    beat = [bench.core.beat(1600)]
    assert bench.deliver(beat, 2.0) == []
    assert poses(bench.deliver(bench.core.resend(bench.link.resends[0], 1610), 2.1)) == [
        ("red", "b_up", False), ("red", "a_up", False)]


def test_a_resend_that_does_not_come_is_asked_for_again_and_again_never_given_up_for_a_snapshot():
    """The hub still keeps the frame: however often the ask or the answer is lost, the Pi asks again, further apart."""
    bench = Bench()
    bench.connect()
    bench.core.set_pose(0, "b_up", 1100)  # lost
    asked = []
    for tenth in range(20, 300, 5):  # half a minute of heartbeats after the gap (all kept); no answer arrives
        t = tenth / 10
        assert bench.deliver([bench.core.beat(int(t * 1000))], t) == []
        asked += [t] * (len(bench.link.resends) - len(asked))
    assert set(bench.link.resends) == {2} and bench.link.snapshots == 0
    assert asked[:4] == [2.0, 2.5, 3.0, 4.0]  # waits of 0.25 s (met by the next beat), 0.5 s, 1 s ...
    assert {round(b - a, 1) for a, b in zip(asked[3:], asked[4:])} == {1.0}  # ... and never longer than 1 s
    assert poses(bench.deliver(bench.core.resend(2, 30000), 30.0)) == [("red", "b_up", False)]
    assert bench.source.next_due() is None


def test_the_ask_is_repeated_when_due_even_if_no_frame_arrives():
    bench = Bench()
    bench.connect(t=1.0)
    bench.core.set_pose(0, "b_up", 1100)  # lost
    bench.deliver(bench.core.set_pose(1, "a_up", 1200), 1.2)
    assert bench.link.resends == [2] and bench.source.next_due() == pytest.approx(1.45)
    assert bench.source.update(1.44) == [] and bench.link.resends == [2]
    bench.source.update(1.45)
    assert bench.link.resends == [2, 2] and bench.source.next_due() == pytest.approx(1.95)


def test_a_hub_that_starts_again_while_frames_are_missing_ends_the_wait():
    bench = Bench()
    bench.connect()
    bench.core.set_pose(0, "b_up", 1100)  # lost
    bench.deliver([bench.core.beat(1200)], 2.0)
    assert bench.source.next_due() is not None
    assert poses(bench.deliver(bench.core.start(1300), 2.1)) == [("red", "b_up", True)]  # its watchdog, say
    assert bench.source.next_due() is None and bench.link.resends == [2]


def test_a_gap_older_than_the_window_is_answered_with_a_snapshot():
    bench = Bench(window=4)
    bench.connect()
    for ms in range(1100, 1800, 100):
        bench.core.set_pose(0, ("b_up", "a_up")[ms // 100 % 2], ms)  # seven turns, all lost
    bench.deliver([bench.core.beat(1900)], 2.0)
    answer = bench.core.resend(bench.link.resends[0], 1910)
    assert [line.split(b" ")[1] for line in answer] == [b"snap"]  # the hub says they are gone
    assert poses(bench.deliver(answer, 2.1)) == [("red", "a_up", True)]  # flagged: it may have moved unseen
    assert bench.source.counts["gone"] == 1 and bench.link.snapshots == 0 and bench.source.next_due() is None


def test_reordered_frames_are_used_in_order():
    bench = Bench()
    bench.connect()
    a, b = bench.core.set_pose(0, "b_up", 1100), bench.core.set_pose(1, "a_up", 1150)
    changes = bench.deliver(b + a, 2.0) + bench.deliver(bench.core.resend(bench.link.resends[0], 1200), 2.1)
    assert poses(changes) == [("red", "b_up", False), ("orange", "a_up", False)]
    assert bench.source.counts["duplicates"] == 2  # a and b, once more in the resend (b was kept aside)


def test_unplug_faults_every_hub_glass_once_and_the_replug_resyncs_what_moved():
    bench = Bench()
    bench.connect()
    bench.source.take(HubItem("hub", "lost", "unplugged", 5.0))
    bench.source.take(HubItem("hub", "lost", "cannot open it (No such file or directory)", 5.1))
    faults = bench.source.update(5.1)
    assert faults == [FaultChange("red", "serial hub unplugged", 5.0), FaultChange("orange", "serial hub unplugged", 5.0)]
    assert all(f.fault.code == "faults.hub.lost" and f.fault.params == {} for f in faults)  # the page's words
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
    assert changes[2].fault.code == "faults.hub.protocol" and changes[2].fault.params == {"hub": 2, "ours": 1}
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
