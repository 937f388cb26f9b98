"""Timing a real hourglass both ways: turn it, turn it again the moment its top runs dry, repeat.

Each run is the time between two turns, in the direction the glass stood
during it (real glasses often run a few seconds differently A up and B up);
the median of each direction's runs is its calibrated duration, so one
fumbled turn cannot drag it far. A measured duration far from the glass's
nominal seconds is a miscount or the wrong glass, and is refused.
"""

import statistics

from companion.errors import BadInput
from companion.skyrockets.beams import MAX_RUNS  # a calibration by hand asks no more runs than one remembers
from companion.skyrockets.colours import DIRECTIONS

MIN_RUN_S = 5.0  # a quicker "run" is a turn fumbled through its side, not a run
CALIBRATION_BAND = 0.25  # a calibrated glass runs within this fraction of its nominal seconds


def check_calibrated(seconds: float, nominal: float, field: str) -> float:
    """`seconds` if it is a plausible measurement of a `nominal`-second glass, else BadInput naming `field`.

    >>> check_calibrated(31.5, 30.0, "seconds")
    31.5
    >>> check_calibrated(100.0, 30.0, "seconds")
    Traceback (most recent call last):
    companion.errors.BadInput: seconds: 100 s is not a 30 s glass (a calibration lies within 22.5-37.5 s)
    """
    low, high = nominal * (1 - CALIBRATION_BAND), nominal * (1 + CALIBRATION_BAND)
    if not low <= seconds <= high:
        raise BadInput(field, f"{seconds:g} s is not a {nominal:g} s glass (a calibration lies within "
                              f"{low:g}-{high:g} s)",
                              code="errors.setup.calibration",
                              params={"seconds": round(seconds, 1), "nominal": nominal,
                                      "low": round(low, 1), "high": round(high, 1)})
    return seconds


class Calibration:
    """Collects the turns of one glass and times each run in the direction it ran.

    `turned(t, pose)` takes the instant and the way the glass stands after the
    turn ("a_up" or "b_up"); a glass timed with a button (no sensors) gives no
    pose, and its runs alternate, the first counted as A up.

    >>> c = Calibration(runs=1)
    >>> [c.turned(t, pose) for t, pose in ((0.0, "a_up"), (31.0, "b_up"), (63.5, "a_up"))]
    [None, 31.0, 32.5]
    >>> c.done, c.result()
    (True, (31.0, 32.5))
    """

    def __init__(self, runs: int = 2):
        if not 1 <= runs <= MAX_RUNS:
            raise BadInput("runs", f"{runs} is out of range (1-{MAX_RUNS})",
                           code="errors.range", params={"low": 1, "high": MAX_RUNS})
        self.runs = runs  # per direction
        self.by_direction: dict[str, list[float]] = {d: [] for d in DIRECTIONS}
        self._last: float | None = None
        self._standing: str | None = None
        self._dry = False  # a neck beam already ended the run in progress

    @property
    def durations(self) -> list[float]:
        """Every run so far, both directions."""
        return [run for runs in self.by_direction.values() for run in runs]

    def turned(self, t: float, pose: str | None = None) -> float | None:
        """Record a turn at t (the glass now standing in `pose`); returns the run it ended, if any."""
        if self.done:
            return None
        if self._last is not None and t - self._last < MIN_RUN_S:
            return None
        run = None
        if self._last is not None and not self._dry:
            run = t - self._last
            self.by_direction[self._standing].append(run)
        self._dry = False
        if pose is None:
            pose = DIRECTIONS[0] if self._standing is None else _other(self._standing)
        self._last, self._standing = t, pose
        return run

    def ran_dry(self, t: float) -> float | None:
        """A neck beam saw the top run dry at t: that ends the run (the turn after it only starts the next).

        >>> c = Calibration(runs=1)
        >>> c.turned(0.0, "a_up"), c.ran_dry(30.2), c.turned(33.0, "b_up"), c.ran_dry(64.0)
        (None, 30.2, None, 31.0)
        """
        if self.done or self._last is None or self._dry or t - self._last < MIN_RUN_S:
            return None
        run = t - self._last
        self.by_direction[self._standing].append(run)
        self._dry = True
        return run

    @property
    def done(self) -> bool:
        return all(len(runs) >= self.runs for runs in self.by_direction.values())

    def result(self) -> tuple[float, float]:
        """The median seconds A up and B up (a direction not yet timed takes the other's)."""
        medians = [statistics.median(runs) if runs else None for runs in self.by_direction.values()]
        if medians[0] is None and medians[1] is None:
            raise BadInput("runs", "no run was timed", code="errors.setup.no_run")
        a_up, b_up = (m if m is not None else medians[1 - i] for i, m in enumerate(medians))
        return a_up, b_up


def _other(direction: str) -> str:
    return DIRECTIONS[1 - DIRECTIONS.index(direction)]
