"""The LED show: keeps a strip drawing the latest show snapshot, 30 frames a second while it moves.

The runtime hands every new snapshot to `update`, which only swaps a reference
and wakes the drawing thread, so the core never waits for the LEDs. The thread
animates while a show runs and for `linger_s` after a win or loss (so the
celebration shows), then draws one still frame and sleeps until the next
snapshot: with no show the strip costs nothing.

>>> from companion.hardware.strip import FakeStrip
>>> leds = LedShow(FakeStrip(104), StripLayout(), show_clock=lambda: 0.0)
>>> leds.update({"outcome": "idle"}); leds.step() is None
True
"""

import logging
import threading
import time
from collections.abc import Callable

from companion.errors import BadInput
from companion.hardware.strip import Strip
from companion.leds import OFF, StripLayout, render

log = logging.getLogger(__name__)

ENDED = ("win", "loss")


class LedShow:
    """Draws show snapshots on `strip` laid out as `layout`, at the time `show_clock()` returns.

    `start()` runs the drawing thread; tests call `frame(now)` or `step()` instead.
    """

    def __init__(self, strip: Strip, layout: StripLayout, show_clock: Callable[[], float], *,
                 fps: float = 30.0, linger_s: float = 5.0, flash_s: float = 3.0):
        if strip.n < layout.total:
            raise BadInput("strip.n", f"the layout needs {layout.total} LEDs but the strip has {strip.n}",
                           code="errors.strip.too_short", params={"need": layout.total, "n": strip.n})
        self.strip = strip
        self.layout = layout
        self.flash_s = flash_s
        self._show_clock = show_clock
        self._period = 1.0 / fps
        self._linger_frames = round(linger_s * fps)
        self._unused = [OFF] * (strip.n - layout.total)  # LEDs past the layout stay dark
        self._state: dict | None = None  # the only thing shared with the caller
        self._wake = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None
        self._drawn: dict | None = None  # the snapshot the last step drew, and frames left to linger on it
        self._frames_left = 0

    def update(self, state: dict | None) -> None:
        """Show this snapshot from now on (never blocks)."""
        self._state = state
        self._wake.set()

    def frame(self, now: float) -> list[tuple[int, int, int]]:
        """Render the latest snapshot at show time `now` onto the strip; returns the layout's pixels."""
        return self._draw(self._state, now)

    def step(self) -> float | None:
        """Draw one frame at the show clock's time; returns seconds until the next, or None to await an update."""
        state = self._state
        if state is not self._drawn:
            self._drawn, self._frames_left = state, self._linger_frames
        self._draw(state, self._show_clock())
        self._frames_left -= 1
        outcome = (state or {}).get("outcome")
        if outcome == "running" or (outcome in ENDED and self._frames_left > 0):
            return self._period
        return None

    def start(self) -> "LedShow":
        """Start the drawing thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="led-show", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop the drawing thread; the strip keeps its last frame (closing the strip turns it off)."""
        self._closing = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join()

    def _draw(self, state: dict | None, now: float) -> list[tuple[int, int, int]]:
        pixels = render(state, now, self.layout, flash_s=self.flash_s)
        self.strip.show(pixels + self._unused)
        return pixels

    def _run(self) -> None:
        while True:
            self._wake.clear()  # before reading the snapshot, so an update during the frame is not lost
            if self._closing:
                return
            started = time.monotonic()
            try:
                delay = self.step()
            except Exception:
                log.exception("LED strip failed; the LEDs stop here")
                return
            self._wake.wait(None if delay is None else max(0.0, delay - (time.monotonic() - started)))
