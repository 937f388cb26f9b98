"""Bells: events a sleeping thread waits on, set all at once by what it follows.

A live stream sleeps on its own threading.Event until something happens: the
LED show rings its followers at each new picture, the server at its closing.
Once what they follow has ended, a bell added later is set at once.

>>> import threading
>>> bells, bell = Bells(), threading.Event()
>>> stop = bells.add(bell)
>>> bells.ring(); bell.is_set()
True
>>> bell.clear(); stop(); bells.ring(); bell.is_set()
False
>>> bells.end(); late = threading.Event(); _ = bells.add(late); late.is_set()
True
"""

import threading
from collections.abc import Callable


class Bells:
    """The events to set when something happens (`ring`), and for good when it ends (`end`)."""

    def __init__(self):
        self._bells: set[threading.Event] = set()
        self._lock = threading.Lock()
        self._ended = False

    def add(self, bell: threading.Event) -> Callable[[], None]:
        """Set `bell` at each ring and at the end (at once if it has come); returns the call that stops it."""
        with self._lock:
            self._bells.add(bell)
            if self._ended:
                bell.set()
        return lambda: self._discard(bell)

    def _discard(self, bell: threading.Event) -> None:
        with self._lock:
            self._bells.discard(bell)

    def ring(self) -> None:
        with self._lock:
            for bell in self._bells:
                bell.set()

    def end(self) -> None:
        with self._lock:
            self._ended = True
            for bell in self._bells:
                bell.set()
