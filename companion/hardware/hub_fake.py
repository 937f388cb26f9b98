"""A hub without hardware: the firmware's own core behind a pseudo-terminal.

The fake runs `firmware/hubcore.py`, exactly as the board does, in a thread
that serves the master side of a pty; the Pi's client opens the other side
(`path`) like any serial port. Glasses are turned with `turn`, beams with
`beam`; `unplug` and `plug` close and reopen the line; `inject` writes raw
bytes (corrupt, duplicated or reordered frames); `lose_next` drops frames on
the wire (the core still keeps them, as the board does, to send again). With `link`, a symlink
there always points at the current pty, as /dev/serial/by-id/... does::

    hub = FakeHub(timers=6, link="/tmp/hub")
    hub.turn("red", "b_up")
"""

import os
import random
import select
import threading
import time
import tempfile
import tty
from pathlib import Path

from companion.hardware.firmware import firmware_module
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
        self._lose = 0
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
                    self._write(self.core.receive(line + b"\n", self.ms()))
                # Beats keep real time even when the board's clock is a test's fake one, which may stand still.
                if time.monotonic() - self._beaten >= BEAT_S:
                    self._beaten = time.monotonic()
                    self._write([self.core.beat(self.ms())])
