"""The hub's protocol state machine: what it sends when a glass moves, a beam changes, or the Pi asks.

Pure: the board's `code.py` (or the host's fake hub) feeds it readings and
received lines with the hub's millisecond clock, and writes out the frames
it returns. See PROTOCOL.md.

>>> hub = HubCore(2)
>>> [line.split(b"*")[0] for line in hub.start(100)]
[b'0 hello fw=1.2.0 proto=1 timers=2 ms=100 resend=128', b'1 snap ms=100 pose=side,side beam=none,none']
>>> [line.split(b"*")[0] for line in hub.set_pose(0, "a_up", 150)]
[b'2 pose ms=150 ch=0 pose=a_up']
>>> hub.set_pose(0, "a_up", 160)     # no change, nothing to say
[]
>>> lost = hub.set_pose(0, "b_up", 165)   # the Pi never sees frame 3 ...
>>> [line.split(b"*")[0] for line in hub.resend(2, 170)]   # ... and asks again from 2
[b'2 pose ms=150 ch=0 pose=a_up', b'3 pose ms=165 ch=0 pose=b_up']
"""

from hubframe import BEAM_STATES, POSES, PROTOCOL_VERSION, SEQ_MOD, decode, encode, ms_since

FIRMWARE_VERSION = "1.2.0"
# Frames kept for the Pi to ask for again: 64 s of heartbeats, or 14 s of glasses turned nine times a second,
# about 8 KB. Long enough that a line losing a fifth of the frames each way never outruns the Pi's asking.
RESEND_WINDOW = 128
BEAT_MS = 500  # a heartbeat when nothing else was sent for this long
HOST_SILENT_MS = 3000  # the Pi sends a beat every second; this long without one: not listening

# The status LED: (on ms, period ms) per state, so each state blinks its own rhythm.
LED_PATTERNS = {
    "waiting": (500, 1000),  # even slow blink: no Pi listening
    "connected": (60, 2000),  # a short flash every two seconds: all well
    "fault": (100, 250),  # fast blink: a sensor does not answer
}


class HubCore:
    """The hub's side of the protocol for `timers` channels; `beams` lists the channels with a neck beam."""

    def __init__(self, timers, beams=(), firmware=FIRMWARE_VERSION, window=RESEND_WINDOW):
        self.timers = timers
        self.firmware = firmware
        self.window = window  # 0: a hub that keeps nothing (as firmware 1.0 did)
        self._held = []  # the last `window` frames sent, oldest first
        self._held_first = 0  # the sequence number of _held[0]: they are consecutive
        self.poses = ["side"] * timers
        self.beams = ["stopped" if ch in beams else "none" for ch in range(timers)]
        self.faulty = [False] * timers
        self._seq = 0
        self._sent_ms = None
        self._heard_ms = None

    def start(self, ms):
        """The frames to send at start, and again whenever the Pi says hello: hello, then a snapshot."""
        self._seq = 0
        self._held = []
        fields = [("fw", self.firmware), ("proto", PROTOCOL_VERSION), ("timers", self.timers), ("ms", ms)]
        if self.window:
            fields.append(("resend", self.window))
        return [self._frame("hello", fields, ms), self.snapshot(ms)]

    def snapshot(self, ms):
        return self._frame("snap", (("ms", ms), ("pose", ",".join(self.poses)), ("beam", ",".join(self.beams))), ms)

    def set_pose(self, ch, pose, ms):
        """Channel `ch` settled into `pose` at `ms`: the frames to send (none if it was already so)."""
        if pose not in POSES:
            raise ValueError("not a pose: %r" % (pose,))
        if self.poses[ch] == pose:
            return []
        self.poses[ch] = pose
        return [self._frame("pose", (("ms", ms), ("ch", ch), ("pose", pose)), ms)]

    def set_beam(self, ch, state, ms):
        """The neck beam of `ch` saw sand start ("flowing") or stop ("stopped") at `ms`."""
        if state not in BEAM_STATES[:2]:
            raise ValueError("not a beam state: %r" % (state,))
        if self.beams[ch] == state:
            return []
        self.beams[ch] = state
        return [self._frame("beam", (("ms", ms), ("ch", ch), ("state", state)), ms)]

    def set_fault(self, ch, faulty, ms):
        """The sensor of `ch` stopped answering (True) or answers again (False)."""
        if self.faulty[ch] == faulty:
            return []
        self.faulty[ch] = faulty
        return [self._frame("fault", (("ms", ms), ("ch", ch), ("why", "sensor" if faulty else "ok")), ms)]

    def receive(self, line, ms):
        """One line from the Pi: the frames to answer with. A bad line is ignored (the Pi asks again)."""
        frame = decode(line)
        if frame is None:
            return []
        self._heard_ms = ms
        kind = frame[1]
        if kind == "hello":
            return self.start(ms)
        if kind == "snap":
            return [self.snapshot(ms)]
        if kind == "resend" and self.window:
            first = frame[2].get("from", "")
            if first.isdigit() and len(first) <= 5 and int(first) < SEQ_MOD:
                return self.resend(int(first), ms)
        return []

    def resend(self, first, ms):
        """Every frame from sequence number `first` on, exactly as first sent; a snapshot if `first` is no longer kept."""
        at = (first - self._held_first) % SEQ_MOD
        if at < len(self._held):
            self._sent_ms = ms
            return self._held[at:]
        if first == self._seq:
            return []  # the Pi has every frame already
        return [self.snapshot(ms)]

    def tick(self, ms):
        """A heartbeat if nothing was sent for BEAT_MS."""
        if self._sent_ms is not None and ms_since(ms, self._sent_ms) < BEAT_MS:
            return []
        return [self.beat(ms)]

    def beat(self, ms):
        return self._frame("beat", (("ms", ms),), ms)

    def status(self, ms):
        """What the status LED shows: fault, connected or waiting."""
        if True in self.faulty:
            return "fault"
        if self._heard_ms is not None and ms_since(ms, self._heard_ms) < HOST_SILENT_MS:
            return "connected"
        return "waiting"

    def _frame(self, kind, fields, ms):
        line = encode(self._seq, kind, fields)
        if self.window:
            if not self._held:
                self._held_first = self._seq
            self._held.append(line)
            if len(self._held) > self.window:
                self._held.pop(0)
                self._held_first = (self._held_first + 1) % SEQ_MOD
        self._seq = (self._seq + 1) % SEQ_MOD
        self._sent_ms = ms
        return line


def led_on(status, ms):
    """Whether the status LED is lit at `ms` in `status`.

    >>> [led_on("connected", ms) for ms in (0, 59, 60, 1999, 2000)]
    [True, True, False, False, True]
    """
    on, period = LED_PATTERNS[status]
    return ms % period < on
