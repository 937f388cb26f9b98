"""The serial sensor hub as a sensor source: glasses read by a microcontroller, over USB serial.

A `HubSource` plugs into the rig like tilt pairs do (companion/hardware/source.py).
Its `HubLink` thread hands it raw lines; here, on the runtime thread, they
become the same `PoseChange`s a tilt pair makes, plus `BeamChange`s from the
light beams at the glasses' necks. Sequence numbers catch duplicates (dropped)
and gaps: the hub keeps its last frames, so the lost ones are asked for again
by number, again and again (waiting longer each time) until they come, and
used in order, each with the hub's instant; the frames that arrived after a
hole are kept aside meanwhile, so each answer need only fill the holes. Only the hub decides they are
gone: it answers with a snapshot when it no longer keeps them, and then the
snapshot's differences arrive flagged `resync` (a hub that keeps no frames
is asked for a snapshot at once). An unplugged, silent or garbled hub marks
its glasses faulty until it is back; after every (re)connect the snapshot's
differences arrive once, flagged `resync`. Channel k is the k-th colour.

>>> hub = HubSource({"red": 0}, link=None, t0=0.0)
>>> hub.take(HubItem("hub", "line", b"0 hello fw=1.0.0 proto=1 timers=1 ms=100*9F68\\n", 5.0))
>>> hub.take(HubItem("hub", "line", b"1 snap ms=100 pose=b_up beam=none*F177\\n", 5.0))
>>> [type(c).__name__ for c in hub.update(5.0)]
['FaultChange', 'FaultChange', 'PoseChange']
>>> hub.pose["red"]
<Pose.B_UP: 'b_up'>
"""

from dataclasses import dataclass

from companion.errors import BadInput
from companion.hardware.hub_frames import MS_WRAP, PROTOCOL, SEQ_MOD, Message, read_message
from companion.hardware.hub_link import BAUD, HubItem, HubLink
from companion.hardware.sensors import PageField
from companion.hardware.source import BeamChange, Change, Fault, FaultChange, PoseChange
from companion.skyrockets.colours import COLOURS
from companion.skyrockets.hourglass import Pose

DEVICE = "hub"
BAUDS = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)
WAITING = Fault("waiting for the serial hub", "faults.hub.waiting")
UNREADABLE = Fault("the hub cannot read this glass's sensor", "faults.hub.sensor")
# The wait for frames asked for again before asking once more: doubling from the first to the longest. There
# is no last try: the hub keeps them or says they are gone, and the longest wait is far shorter than the time
# its window covers, so a line that loses the asks and the answers again and again still gets them in time.
RESEND_WAIT_S = (0.25, 1.0)


# The one setting of [hub] the setup page offers: where the hub is plugged in.
PORT = PageField("port", "setup.hub_port", help="setup.hub_help", placeholder="/dev/serial/by-id/…")


@dataclass(frozen=True)
class HubConfig:
    """The `[hub]` config section: where the hub is plugged in."""

    port: str
    baud: int = BAUD


def hub_config(section) -> HubConfig | None:
    """Read and check the `[hub]` section (a companion.section.Section); None if the file has none."""
    if not section.keys():
        return None
    port = PORT.read(section)
    baud = section.number("baud", BAUD, 1, 1e7, whole=True)
    section.done()  # a mistyped key is named, not the port it seems to leave out
    if not port:
        raise BadInput(f"{section.name}.port", "missing: the hub's serial device, e.g. /dev/serial/by-id/usb-...",
                       code="errors.setup.hub_port")
    if baud not in BAUDS:
        raise BadInput(f"{section.name}.baud", f"{baud} is not a serial speed ({', '.join(map(str, BAUDS))})",
                       code="errors.choice")
    return HubConfig(port=port, baud=int(baud))


def channels_for(colours) -> dict[str, int]:
    """Each hub colour's channel on the hub: its place in table order."""
    return {colour: COLOURS.index(colour) for colour in colours}


class HubSource:
    """The glasses whose colours map to hub channels (`channels`: colour -> channel), fed by a `HubLink`."""

    device = DEVICE

    def __init__(self, channels: dict[str, int], link, *, t0: float = 0.0):
        self.channels = dict(channels)
        self.colour_of = {ch: colour for colour, ch in self.channels.items()}
        self.link = link
        self.pose = {colour: Pose.SIDE for colour in self.channels}
        self.beam = {colour: "none" for colour in self.channels}
        self.fault: dict[str, str | None] = {colour: WAITING for colour in self.channels}
        self.hello: dict | None = None  # fw, proto, timers of the hub on the line
        # "gone": gaps the hub no longer kept the frames of (its window overflowed): a snapshot stood in for them
        self.counts = {"frames": 0, "bad": 0, "duplicates": 0, "gaps": 0, "resends": 0, "snapshots": 0, "gone": 0}
        self._changes: list[Change] = [FaultChange(c, WAITING, t0) for c in self.channels]
        self._synced_once = False
        self._last_seq: int | None = None
        self._asked: tuple[float, float] | None = None  # while frames are missing: when last asked for, the wait since
        self._early: dict[int, tuple[Message, float]] = {}  # frames after a hole, by number, with their arrival
        self._anchor: tuple[float, int] | None = None  # (host instant, hub ms) the hub clock is read against
        self._last_t = t0

    @classmethod
    def open(cls, config: HubConfig, colours, sink, clock) -> "HubSource":
        """A source for `colours` reading the hub at `config.port` (the link thread starts at once)."""
        source = cls(channels_for(colours), link=None, t0=clock())
        source.link = HubLink(config.port, sink, clock, device=DEVICE, baud=config.baud)
        return source

    # ---- the Source interface -----------------------------------------------

    def poses(self) -> dict[str, Pose | None]:
        """How each hub glass stands, as last read (None until the hub's first snapshot)."""
        return {c: self.pose[c] if self._synced_once else None for c in self.channels}

    def take(self, item: HubItem) -> None:
        if item.what == "line":
            self._line(item.data, item.t)
        elif item.what == "lost":
            self._lost(str(item.data), item.t)
        elif item.what == "open":
            self.hello, self._last_seq, self._asked, self._early = None, None, None, {}

    def update(self, t: float) -> list[Change]:
        if self._asked is not None and t >= self._asked[0] + self._asked[1]:
            self._ask(t, min(self._asked[1] * 2, RESEND_WAIT_S[1]))  # not back yet: ask once more
        changes, self._changes = self._changes, []
        return changes

    def next_due(self) -> float | None:
        """While frames are missing, when to ask for them again; else None (everything else arrives as lines)."""
        return None if self._asked is None else self._asked[0] + self._asked[1]

    def close(self) -> None:
        if self.link is not None:
            self.link.close()

    # ---- what the lines mean ------------------------------------------------

    def _line(self, line: bytes, t: float) -> None:
        timers = self.hello["timers"] if self.hello else None
        message = read_message(line, timers) if timers else read_message(line)
        if message is None:
            self.counts["bad"] += 1
            return
        self.counts["frames"] += 1
        if message.kind == "hello":
            self._hello(message, t)
            return
        if self.hello is None:
            return  # from before the hello we sent: the hub says hello again first
        ahead = (message.seq - self._last_seq) % SEQ_MOD
        if ahead == 0 or ahead >= SEQ_MOD // 2:
            self.counts["duplicates"] += 1
            return
        if ahead > 1 and message.kind != "snap":  # a snapshot says everything: it closes any gap
            if self.hello["resend"]:
                if ahead <= self.hello["resend"]:  # kept aside: the answers then need to fill only the holes
                    self._early.setdefault(message.seq, (message, t))
                self._missing(t)
                return  # used in order, once the missing ones are back
            self.counts["gaps"] += 1
            self._request_snapshot()
        elif ahead > 1 and self.hello["resend"]:
            self.counts["gone"] += 1  # the hub's answer to frames it no longer keeps: they are lost
        self._use(message, t)
        while (self._last_seq + 1) % SEQ_MOD in self._early:
            self._use(*self._early.pop((self._last_seq + 1) % SEQ_MOD))
        self._early = {seq: kept for seq, kept in self._early.items()
                       if 0 < (seq - self._last_seq) % SEQ_MOD < SEQ_MOD // 2}  # a snapshot may pass some by
        self._asked = None  # the next frame past a hole, if any is left, asks for it at once

    def _use(self, message: Message, t: float) -> None:
        self._last_seq = message.seq
        at = self._instant(message.ms, t)
        handle = {"snap": self._snapshot, "pose": self._pose, "beam": self._beam, "fault": self._sensor}
        if message.kind in handle:
            handle[message.kind](message, at)

    def _hello(self, message: Message, t: float) -> None:
        hello = message.fields
        if hello["proto"] != PROTOCOL:
            reason = Fault(f"the hub speaks protocol {hello['proto']}, this program speaks {PROTOCOL}: "
                           "flash the firmware that came with this program", "faults.hub.protocol",
                           hub=hello["proto"], ours=PROTOCOL)
            self._set_faults(reason, t)
            if self.link is not None:
                self.link.refuse(reason)
            return
        self.hello, self._last_seq, self._asked, self._early = hello, message.seq, None, {}  # a new sequence
        self._anchor = (t, message.ms)

    def _snapshot(self, message: Message, t: float) -> None:
        self.counts["snapshots"] += 1
        timers = self.hello["timers"]
        for colour, ch in self.channels.items():
            if ch >= timers:
                self._set_fault(colour, Fault(f"the hub has only {timers} channels", "faults.hub.channels",
                                              timers=timers), t)
                continue
            self._set_fault(colour, None, t)
            self.beam[colour] = message.fields["beams"][ch]
            self._set_pose(colour, Pose(message.fields["poses"][ch]), t, resync=self._synced_once)
        self._synced_once = True

    def _pose(self, message: Message, t: float) -> None:
        colour = self.colour_of.get(message.fields["ch"])
        if colour is not None:
            self._set_pose(colour, Pose(message.fields["pose"]), t)

    def _beam(self, message: Message, t: float) -> None:
        colour = self.colour_of.get(message.fields["ch"])
        state = message.fields["state"]
        if colour is not None and self.beam[colour] != state:
            self.beam[colour] = state
            self._changes.append(BeamChange(colour, state == "flowing", t))

    def _sensor(self, message: Message, t: float) -> None:
        colour = self.colour_of.get(message.fields["ch"])
        if colour is not None:
            bad = message.fields["why"] == "sensor"
            self._set_fault(colour, UNREADABLE if bad else None, t)

    def _lost(self, reason: str, t: float) -> None:
        self.hello, self._last_seq, self._asked, self._early = None, None, None, {}
        if self.link is not None and self.link.refusal is not None:
            return  # the refusal stays the reason
        if all(self.fault[c] not in (None, WAITING) for c in self.channels):
            return  # already marked lost: the first reason (unplugged, silent) says most
        self._set_faults(Fault(f"serial hub {reason}", "faults.hub.lost"), t)  # the page need not tell why

    def _missing(self, t: float) -> None:
        """Frames after `_last_seq` are missing: ask the hub for them, at once for a new gap."""
        if self._asked is None:
            self.counts["gaps"] += 1
            self._ask(t, RESEND_WAIT_S[0])
        elif t >= self._asked[0] + self._asked[1]:
            self._ask(t, min(self._asked[1] * 2, RESEND_WAIT_S[1]))

    def _ask(self, t: float, wait: float) -> None:
        self._asked = (t, wait)
        if self.link is not None:
            self.counts["resends"] += 1
            self.link.request_resend((self._last_seq + 1) % SEQ_MOD)

    def _request_snapshot(self) -> None:
        if self.link is not None:
            self.link.request_snapshot()

    # ---- bookkeeping ----------------------------------------------------------

    def _instant(self, ms: int, t: float) -> float:
        """The host instant of hub clock `ms`: the hub's timing, never later than the line's arrival."""
        base_t, base_ms = self._anchor
        at = base_t + ((ms - base_ms) % MS_WRAP) / 1000
        if at > t:  # this line came quicker than the one the clock was read against
            self._anchor, at = (t, ms), t
        at = max(at, self._last_t)  # changes stay in order even if the hub clock stumbles
        self._last_t = at
        return at

    def _set_pose(self, colour: str, pose: Pose, t: float, resync: bool = False) -> None:
        if self.pose[colour] is not pose:
            self.pose[colour] = pose
            self._changes.append(PoseChange(colour, pose, t, resync=resync))

    def _set_faults(self, reason: Fault, t: float) -> None:
        for colour in self.channels:
            self._set_fault(colour, reason, t)

    def _set_fault(self, colour: str, reason: Fault | None, t: float) -> None:
        if self.fault[colour] != reason:
            self.fault[colour] = reason
            self._changes.append(FaultChange(colour, reason, max(t, self._last_t)))
