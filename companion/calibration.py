"""Timing a real hourglass: turn it, turn it again the moment its top runs dry, repeat.

Each run is the time between two turns; the median of the runs is the glass's
calibrated duration (one fumbled turn cannot drag it far).
"""

import statistics

from companion.errors import BadInput

MIN_RUN_S = 5.0  # a quicker "run" is a turn fumbled through its side, not a run


class Calibration:
    """Collects turn instants of one glass and turns them into runs.

    >>> c = Calibration(runs=2)
    >>> [c.turned(t) for t in (0.0, 31.0, 61.5)]
    [None, 31.0, 30.5]
    >>> c.durations, c.done, c.median()
    ([31.0, 30.5], True, 30.75)
    """

    def __init__(self, runs: int = 3):
        if not 1 <= runs <= 20:
            raise BadInput("runs", f"{runs} is out of range (1-20)")
        self.runs = runs
        self.durations: list[float] = []
        self._last: float | None = None

    def turned(self, t: float) -> float | None:
        """Record a turn at t; returns the run it ended, if any."""
        if self.done:
            return None
        if self._last is not None and t - self._last < MIN_RUN_S:
            return None
        run = None if self._last is None else t - self._last
        if run is not None:
            self.durations.append(run)
        self._last = t
        return run

    @property
    def done(self) -> bool:
        return len(self.durations) >= self.runs

    def median(self) -> float:
        return statistics.median(self.durations)
