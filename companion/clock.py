"""Clocks for the shells: the real one, and a fake that tests move by hand.

The rules never read a clock; the runtime asks one for "now" and passes the
show time in. Two readings are needed: a monotonic one for time within a run
(immune to the clock being set), and the wall clock to carry a show across a
restart.
"""

import threading
import time
from datetime import datetime, timezone
from typing import Callable

# A simulated clock's speed (the demo's --speed): at 100 times, a show still draws every tick.
MIN_SPEED, MAX_SPEED = 0.1, 100.0


def iso(wall: float) -> str:
    """A wall-clock instant as the records keep it and the pages show it: UTC, to the second.

    >>> iso(0)
    '1970-01-01T00:00:00Z'
    """
    return datetime.fromtimestamp(wall, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class SystemClock:
    """The machine's clocks."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def on_change(self, listener: Callable[[], None]) -> None:
        """Real time needs no announcement: nothing to register."""


class FakeClock:
    """A clock that moves only when told, and tells listeners when it does.

    >>> clock = FakeClock(wall=1_700_000_000.0)
    >>> clock.advance(2.5); clock.monotonic()
    2.5
    """

    def __init__(self, *, wall: float = 1_700_000_000.0):
        self._now = 0.0
        self._wall0 = wall
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []

    def monotonic(self) -> float:
        with self._lock:
            return self._now

    def wall(self) -> float:
        with self._lock:
            return self._wall0 + self._now

    def __call__(self) -> float:
        return self.monotonic()

    def on_change(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds
        for listener in list(self._listeners):
            listener()
