"""A hub without hardware: the firmware's own core behind a pseudo-terminal.

The fake runs `firmware/hubcore.py`, exactly as the board does, in a thread
that serves the master side of a pty; the Pi's client opens the other side
(`path`) like any serial port. Glasses are turned with `turn`, beams with
`beam`; `unplug` and `plug` close and reopen the line; `inject` writes raw
bytes (corrupt, duplicated or reordered frames); `lose_next` drops frames on
the wire (the core still keeps them, as the board does, to send again), and
`lose_answers` the hub's answers to the Pi's resend requests. With `link`, a
symlink there always points at the current pty, as /dev/serial/by-id/... does::

    hub = FakeHub(timers=6, link="/tmp/hub")
    hub.turn("red", "b_up")

`lossy_run` is the other fake: no pty, no thread, no real time. It joins the
firmware's core and the Pi's `HubSource` through a `LossyLine` each way, on a
simulated clock, turns glasses a few times a second and counts the turns the
Pi never saw.
"""

import os
import random
from dataclasses import dataclass, field
import select
import threading
import time
import tempfile
import tty
from pathlib import Path

from companion.hardware.firmware import firmware_module
from companion.hardware.hub_frames import frame
from companion.hardware.hub_link import BACKOFF_S, HubItem, LineWatch
from companion.skyrockets.colours import COLOURS

BEAT_S = 0.5  # as the board's core beats
DEMO_LINK = Path(tempfile.gettempdir()) / "companion-hub"  # where `companion hub fake` puts its device


def channel_of(glass: str | int) -> int:
    return glass if isinstance(glass, int) else COLOURS.index(glass)


class FakeHub:
    """The firmware core with `timers` channels on a pty; `beams`: channels with a neck beam.

    `clock` (seconds) runs the board's millisecond clock: a test hands it the
    table's fake clock, so the hub stamps turns in the table's own time.
    """

    def __init__(self, timers: int = 6, *, beams=(), seed: int | None = None, link: str | Path | None = None,
                 clock=time.monotonic, poses=None):
        core = firmware_module("hubcore")
        self.core = core.HubCore(timers, beams=tuple(channel_of(b) for b in beams))
        rng = random.Random(seed)
        for ch in range(timers):
            pose = poses[ch] if poses is not None else rng.choice(("a_up", "b_up", "side")) if seed is not None else "a_up"
            self.core.poses[ch] = pose
        self._clock, self._t0 = clock, clock() - (rng.randrange(1, 10_000) / 1000 if seed is not None else 0)
        self.link = Path(link) if link else None
        self.received: list[bytes] = []  # the Pi's lines, for tests
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._master = self._slave = None
        self.plugged = threading.Event()
        self._beaten = time.monotonic()
        self._lose = self._lose_answers = 0
        self.plug()
        self._thread = threading.Thread(target=self._serve, name="fake hub", daemon=True)
        self._thread.start()

    def ms(self) -> int:
        """The fake board's millisecond clock."""
        return int((self._clock() - self._t0) * 1000) % (1 << 29)

    # ---- the glasses -----------------------------------------------------------

    def turn(self, glass: str | int, pose: str, ms: int | None = None) -> None:
        """Glass `glass` (a colour or a channel) now stands in `pose`."""
        with self._lock:
            self._write(self.core.set_pose(channel_of(glass), pose, self.ms() if ms is None else ms))

    def beam(self, glass: str | int, state: str, ms: int | None = None) -> None:
        """The neck beam of `glass` saw sand start ("flowing") or stop ("stopped")."""
        with self._lock:
            self._write(self.core.set_beam(channel_of(glass), state, self.ms() if ms is None else ms))

    def inject(self, data: bytes) -> None:
        """Write raw bytes on the line, as a broken cable or a confused board might."""
        with self._lock:
            self._write([data], raw=True)

    def lose_next(self, frames: int) -> None:
        """The next `frames` frames the board sends never reach the Pi (heartbeats included)."""
        with self._lock:
            self._lose = frames

    def lose_answers(self, answers: int) -> None:
        """The board's answers to the next `answers` resend requests never reach the Pi, whole."""
        with self._lock:
            self._lose_answers = answers

    # ---- the cable -------------------------------------------------------------

    @property
    def path(self) -> str:
        """The serial device to open: the symlink if there is one, else the pty itself."""
        return str(self.link) if self.link else self._pty_path

    def plug(self) -> None:
        """Plug the hub in (a fresh pty, as the kernel makes a fresh device); it says hello at once."""
        with self._lock:
            self._master, self._slave = os.openpty()
            tty.setraw(self._slave)
            self._pty_path = os.ttyname(self._slave)
            if self.link:
                temporary = self.link.with_name(self.link.name + ".new")
                temporary.unlink(missing_ok=True)
                temporary.symlink_to(self._pty_path)
                temporary.replace(self.link)
            self._buffer = b""
            self._write(self.core.start(self.ms()))
            self.plugged.set()

    def unplug(self) -> None:
        """Pull the cable: the Pi's side sees the device fail; what moves meanwhile goes unseen."""
        with self._lock:
            self.plugged.clear()
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)
        self.unplug()
        if self.link:
            self.link.unlink(missing_ok=True)

    # ---- the board's loop --------------------------------------------------------

    def _write(self, frames, raw: bool = False) -> None:
        if self._master is None:
            return
        for data in frames:
            if self._lose and not raw:
                self._lose -= 1
                continue
            try:
                os.write(self._master, data)
            except OSError:
                return

    def _serve(self) -> None:
        while not self._stop.is_set():
            master = self._master
            if master is None:
                self._stop.wait(0.02)
                continue
            try:
                ready, _, _ = select.select([master], [], [], BEAT_S / 2)
                data = os.read(master, 4096) if ready else b""
            except (OSError, ValueError):
                continue  # unplugged meanwhile
            with self._lock:
                if master != self._master:
                    continue
                self._buffer += data
                *lines, self._buffer = self._buffer.split(b"\n")
                for line in lines:
                    self.received.append(line + b"\n")
                    answer = self.core.receive(line + b"\n", self.ms())
                    if self._lose_answers and b" resend " in line:
                        self._lose_answers -= 1
                        continue
                    self._write(answer)
                # Beats keep real time even when the board's clock is a test's fake one, which may stand still.
                if time.monotonic() - self._beaten >= BEAT_S:
                    self._beaten = time.monotonic()
                    self._write([self.core.beat(self.ms())])


# ---- a lossy line, on a simulated clock -------------------------------------------

STEP_MS = 5  # the simulated board's loop, and the Pi's reading of the line
LINE_DELAY_MS = 2  # each way, as over USB
FLIP_EVERY_MS = (20, 207)  # a glass turns this often (uniform): about 530 turns a minute across the table
DRAIN_MS = 10_000  # after the last turn: time for the last gaps to be filled before counting


class LossyLine:
    """One direction of a serial line that spoils frames: each write, with probability `rate`, is lost whole,
    loses one byte (perhaps its newline, so it runs into the next frame) or has one byte changed. Seeded.

    >>> line = LossyLine(0.0, random.Random(1))
    >>> line.write(b"0 beat ms=5*ABCD\\n", 100); line.read(101), line.read(102)
    (b'', b'0 beat ms=5*ABCD\\n')
    """

    def __init__(self, rate: float, rng: random.Random, delay_ms: int = LINE_DELAY_MS):
        self.rate, self._rng, self._delay = rate, rng, delay_ms
        self._flight: list[tuple[int, bytes]] = []
        self.spoilt = 0

    def write(self, data: bytes, ms: int) -> None:
        if self._rng.random() < self.rate:
            self.spoilt += 1
            how, at = self._rng.randrange(3), self._rng.randrange(len(data))
            if how == 0:
                return
            data = data[:at] + (b"" if how == 1 else bytes((self._rng.randrange(256),))) + data[at + 1:]
        self._flight.append((ms + self._delay, data))

    def read(self, ms: int) -> bytes:
        if not self._flight or self._flight[0][0] > ms:  # in order of arrival: every write waits as long
            return b""
        arrived = [data for due, data in self._flight if due <= ms]
        self._flight = self._flight[len(arrived):]
        return b"".join(arrived)

    def clear(self) -> None:
        self._flight = []


class _LineLink:
    """What a HubSource asks of its link, written onto a LossyLine."""

    def __init__(self, line: LossyLine):
        self.line, self.ms, self.refusal, self._seq = line, 0, None, 0

    def send(self, kind: str, **fields) -> None:
        self.line.write(frame(self._seq, kind, **fields), self.ms)
        self._seq += 1

    def request_resend(self, first: int) -> None:
        self.send("resend", **{"from": first})

    def request_snapshot(self) -> None:
        self.send("snap")

    def refuse(self, reason: str) -> None:
        self.refusal = reason

    def close(self) -> None:
        """Nothing to close."""


@dataclass
class LossyResult:
    """What a `lossy_run` saw: turns made, turns the Pi never saw, poses it got that never happened."""

    flips: int
    lost: int
    wrong: int
    reconnects: int
    counts: dict = field(default_factory=dict)


def lossy_run(to_pi: float, to_hub: float, *, minutes: float = 10, seed: int = 1, timers: int = 6,
              source_class=None, core_class=None) -> LossyResult:
    """Turn glasses on the firmware's core for `minutes` simulated minutes, the Pi's source reading it over
    lines that spoil `to_pi` and `to_hub` of the frames; deterministic for a `seed`. The turns start once the
    Pi has the hub's first snapshot; then the lines are left `DRAIN_MS` to deliver the last ones.

    `source_class` and `core_class` stand in for HubSource and the firmware's HubCore (an older version, say).
    """
    from companion.hardware.hub import HubSource

    rng = random.Random(seed)
    core = (core_class or firmware_module("hubcore").HubCore)(timers)
    down, up = LossyLine(to_pi, random.Random(seed + 1)), LossyLine(to_hub, random.Random(seed + 2))
    link = _LineLink(up)
    source = (source_class or HubSource)({ch: ch for ch in range(timers)}, link)
    truth: list[list[str]] = [[] for _ in range(timers)]
    seen: list[list[str]] = [[] for _ in range(timers)]
    watch, hub_buffer, reconnects, open_at = None, b"", 0, 0
    end = next_flip = None  # the glasses start turning once the Pi has the hub's first snapshot
    ms = 0
    while end is None or ms < end + DRAIN_MS:
        ms += STEP_MS
        t, link.ms = ms / 1000, ms
        out = []
        if end is None and source.counts["snapshots"]:
            end, next_flip = ms + int(minutes * 60_000), ms
        if next_flip is not None and next_flip <= ms < end:  # a glass turns
            ch = rng.randrange(timers)
            pose = rng.choice([p for p in ("a_up", "b_up", "side") if p != core.poses[ch]])
            out += core.set_pose(ch, pose, ms)
            truth[ch].append(pose)
            next_flip = ms + rng.randrange(*FLIP_EVERY_MS)
        hub_buffer += up.read(ms)
        *lines, hub_buffer = hub_buffer.split(b"\n")
        for line in lines:
            out += core.receive(line + b"\n", ms)
        if len(hub_buffer) > 160:
            hub_buffer = b""  # as code.py drops a line with no newline in sight
        out += core.tick(ms)
        for data in out:
            down.write(data, ms)
        if watch is None and ms >= open_at:  # the Pi opens the port
            watch = LineWatch(t)
            source.take(HubItem("hub", "open", "lossy", t))
            for kind in watch.opened(t):
                link.send(kind, **({"proto": 1} if kind == "hello" else {}))
        arrived = down.read(ms)
        reason = None
        if watch is not None:
            lines, reason = watch.received(arrived, t)
            for line in lines:
                source.take(HubItem("hub", "line", line, t))
            if reason is None:
                send, reason = watch.due(t)
                for kind in send:
                    link.send(kind, **({"proto": 1} if kind == "hello" else {}))
        if reason is not None:  # the Pi gives the connection up and opens it again after its back-off
            source.take(HubItem("hub", "lost", reason, t))
            watch, reconnects, open_at = None, reconnects + 1, ms + int(BACKOFF_S[0] * 1000)
            down.clear()
            up.clear()
        for change in source.update(t):
            pose = getattr(change, "pose", None)
            if pose is not None:
                seen[change.name].append(pose.value)
    lost = wrong = 0
    for made, got in zip(truth, seen):
        at = 0
        for pose in got:
            while at < len(made) and made[at] != pose:
                at, lost = at + 1, lost + 1
            if at == len(made):
                wrong += 1
            else:
                at += 1
        lost += len(made) - at
    return LossyResult(sum(map(len, truth)), lost, wrong, reconnects, dict(source.counts))
