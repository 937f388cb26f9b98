"""Show time: the monotonic clock since the show's start, times the show's speed.

A show's seconds run from its start (or from where a resumed show picks up)
at `speed` times real time (the demo can run faster). The monotonic clock
is immune to the wall clock being set; the wall clock only carries a show
across a restart.

>>> from companion.clock import FakeClock
>>> clock = FakeClock()
>>> base = TimeBase(clock, speed=2.0)
>>> clock.advance(3.0); base.now()
6.0
>>> base.to_mono(8.0)
4.0
"""

from companion.clock import MAX_SPEED, MIN_SPEED
from companion.errors import BadInput


def check_speed(speed: float) -> float:
    """A table's show speed, if it is one the show clock runs at (the demo's --speed)."""
    if not MIN_SPEED <= speed <= MAX_SPEED:  # NaN fails too
        raise BadInput("speed", f"{speed:g} is out of range ({MIN_SPEED:g}-{MAX_SPEED:g})",
                       code="errors.range", params={"low": MIN_SPEED, "high": MAX_SPEED})
    return speed


class TimeBase:
    """Converts between the clock's monotonic seconds and the show's seconds."""

    def __init__(self, clock, speed: float = 1.0):
        self.clock = clock
        self.speed = speed
        self.restart(0.0)

    def restart(self, t: float, speed: float | None = None) -> None:
        """From now on, show time runs on from `t` (at `speed`, if given)."""
        if speed is not None:
            self.speed = speed
        self._t_base, self._mono_base = t, self.clock.monotonic()

    def now(self) -> float:
        """Show seconds now."""
        return self.to_show(self.clock.monotonic())

    def to_show(self, mono: float) -> float:
        return self._t_base + (mono - self._mono_base) * self.speed

    def to_mono(self, t: float) -> float:
        return self._mono_base + (t - self._t_base) / self.speed
