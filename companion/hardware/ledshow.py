"""The LED show: keeps a strip drawing the latest show snapshot, 30 frames a second while it moves.

The runtime hands every new snapshot to `update`, which only swaps a reference
and wakes the drawing thread, so the core never waits for the LEDs. The strip
draws at most `fps` frames a second however often the table changes: a
snapshot that comes sooner than a frame's time after the last frame waits
for that time (`next_frame_in`) and shows in that frame, so a burst of
changes costs the frames of the burst, not a render each. The thread
draws what the snapshot shows (`companion.leds.strip_inputs`: the rest of a
snapshot, such as the sensors' readings, draws nothing): a new snapshot that
shows the same draws nothing new, and a frame equal to the last one is not
sent to the strip again. It animates while a show runs and for `linger_s` of
wall time after a win or loss (so the celebration shows), then holds the
frame of that instant and sleeps until the next snapshot: with no show the
strip costs nothing.

What it draws is also handed out as a picture (`picture`): the inputs, and
the show time from which the frame holds still (None while it moves). A page
draws the same frames from it with the same look (`companion.leds.LOOK`), so
the strip on screen needs one message a change, not a stream of frames.

>>> from companion.hardware.strip import FakeStrip
>>> strip, now = FakeStrip(104), [0.0]
>>> leds = LedShow(strip, StripLayout(), show_clock=lambda: now[0])
>>> leds.update({"outcome": "idle"}); leds.step() is None, len(strip.frames)
(True, 1)
>>> leds.update({"outcome": "idle", "sensors": {}}); leds.step() is None, len(strip.frames)
(True, 1)
>>> leds.picture(0, 0)["state"], leds.picture(0, 0)["hold"]
({'outcome': 'idle'}, 0.0)
"""

import itertools
import logging
import math
import threading
import time
from collections.abc import Callable

from companion.bells import Bells
from companion.errors import BadInput
from companion.hardware.strip import Strip
from companion.leds import LOOK, OFF, StripLayout, render, strip_inputs

log = logging.getLogger(__name__)

ENDED = ("win", "loss")
# Picture numbers rise across every LED show of the process: one made afresh (new settings) counts on, so a page
# following the strip is never left holding a number ahead of the new show's.
_numbers = itertools.count(1)


def drawn_by_page(layout: StripLayout, flash_s: float) -> dict:
    """The layout as a page needs it to draw the strip as `render` does: where everything sits, and the look."""
    return {"segment_len": layout.segment_len, "colours": list(layout.colours), "countdown_leds": layout.countdown_leds,
            "token_leds": layout.token_leds, "markers": layout.markers, "flash_s": flash_s, "look": LOOK}


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
        self._linger_s = linger_s
        self._unused = [OFF] * (strip.n - layout.total)  # LEDs past the layout stay dark
        self._state: dict | None = None  # the only thing shared with the caller
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._closing = False
        self._framed_at = -math.inf  # the wall time (monotonic) of the thread's last frame
        self._thread: threading.Thread | None = None
        self._drawn: dict | None = None  # the snapshot the last step looked at
        # What it shows, and from which show time it holds still (None: it moves): no show, dark, to begin with.
        self._inputs: dict = strip_inputs(None)
        self._hold: float | None = 0.0
        self._drawn_at: float | None = None  # the show time of the frame last sent to the strip, and its pixels
        self._shown: list | None = None
        self._pictured = threading.Condition()
        self._bells = Bells()  # rung at each new picture, and at the end (`ring_on_picture`)
        self._picture = {"n": next(_numbers), "state": self._inputs, "hold": self._hold}
        self._layout_json = drawn_by_page(layout, flash_s)

    def update(self, state: dict | None) -> None:
        """Show this snapshot from now on (never blocks)."""
        self._state = state
        self._wake.set()

    def frame(self, now: float) -> list[tuple[int, int, int]]:
        """Render the latest snapshot at show time `now` onto the strip; returns the layout's pixels."""
        return self._draw(self._state, now, again=True)

    def step(self) -> float | None:
        """Draw one frame at the show clock's time; returns seconds until the next, or None to await an update."""
        state, now = self._state, self._show_clock()
        if state is not self._drawn:
            self._drawn = state
            inputs = strip_inputs(state)
            if inputs != self._inputs:
                self._inputs, self._hold, self._drawn_at = inputs, self._holds_from(inputs, now), None
                self._show_picture()
        hold = self._hold
        at = now if hold is None else min(now, hold)
        if at != self._drawn_at:
            self._drawn_at = at
            self._draw(state, at)
        return self._period if hold is None or now < hold else None

    def next_frame_in(self, now: float) -> float:
        """Seconds from `now` (monotonic) before the thread's next frame may be drawn: a frame's time after the last.

        >>> from companion.hardware.strip import FakeStrip
        >>> leds = LedShow(FakeStrip(104), StripLayout(), show_clock=lambda: 0.0, fps=10)
        >>> leds.next_frame_in(5.0), leds.framed(5.0), round(leds.next_frame_in(5.04), 3), leds.next_frame_in(5.1)
        (0.0, None, 0.06, 0.0)
        """
        return max(0.0, self._framed_at + self._period - now)

    def framed(self, now: float) -> None:
        """The thread draws a frame at `now` (monotonic): the next waits a frame's time from here."""
        self._framed_at = now

    def picture(self, after: int, timeout: float) -> dict:
        """What the strip shows, as soon as it is newer than picture `after` (or as it is after `timeout`): its
        number `n`, the snapshot's `state` as the strip reads it, the show time it `hold`s still from (None: it
        moves), and the `layout` with the look a page draws it by."""
        with self._pictured:
            self._pictured.wait_for(lambda: self._picture["n"] > after, timeout)
            return {**self._picture, "layout": self._layout_json}

    def ring_on_picture(self, bell: threading.Event) -> Callable[[], None]:
        """Set `bell` at each new picture and when this LED show ends (at once if it has): a page's stream sleeps
        until then. Returns the call that stops it."""
        return self._bells.add(bell)

    def start(self) -> "LedShow":
        """Start the drawing thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="led-show", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop the drawing thread; the strip keeps its last frame (closing the strip turns it off)."""
        self._closing = True
        self._bells.end()  # a stream following this show learns it is gone
        self._closed.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()

    def _holds_from(self, inputs: dict, now: float) -> float | None:
        """The show time from which a picture first seen at `now` holds still: never while the show runs; after
        `linger_s` of wall time once it is won or lost; at once otherwise."""
        outcome = inputs.get("outcome")
        if outcome == "running":
            return None
        if outcome in ENDED:
            return now + self._linger_s * (inputs.get("speed") or 1.0)
        return now

    def _show_picture(self) -> None:
        with self._pictured:
            self._picture = {"n": next(_numbers), "state": self._inputs, "hold": self._hold}
            self._pictured.notify_all()
        self._bells.ring()

    def _draw(self, state: dict | None, now: float, *, again: bool = False) -> list[tuple[int, int, int]]:
        pixels = render(state, now, self.layout, flash_s=self.flash_s)
        if again or pixels != self._shown:  # the same frame again is not sent: the strip holds it
            self._shown = pixels
            self.strip.show(pixels + self._unused)
        return pixels

    def _run(self) -> None:
        while True:
            if early := self.next_frame_in(time.monotonic()):
                self._closed.wait(early)  # a change sooner than a frame after the last shows in the next frame
            self._wake.clear()  # before reading the snapshot, so an update during the frame is not lost
            if self._closing:
                return
            started = time.monotonic()
            self.framed(started)
            try:
                delay = self.step()
            except Exception:
                log.exception("LED strip failed; the LEDs stop here")
                return
            self._wake.wait(None if delay is None else max(0.0, delay - (time.monotonic() - started)))
