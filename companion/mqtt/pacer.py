"""At most so many messages a second, the newest winning: pure arithmetic on the times given.

>>> pacer = Pacer(0.1)
>>> pacer.wait_s(5.0); pacer.sent(5.0); pacer.wait_s(5.04)
0.0
0.06
"""

import math


class Pacer:
    """How long to hold the next message so that two are never closer than `interval_s`."""

    def __init__(self, interval_s: float):
        self.interval_s = interval_s
        self._last = -math.inf

    def wait_s(self, now: float) -> float:
        return round(max(0.0, self._last + self.interval_s - now), 9)

    def sent(self, now: float) -> None:
        self._last = now
