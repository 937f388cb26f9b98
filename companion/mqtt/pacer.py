"""At most so many messages a second, the newest winning: pure arithmetic on the times given.

A table's changes come as people turn glasses: mostly seconds apart, and
sometimes two or three at once (a turn, the run-out it causes, the
countdown's advance). So the pace is a bucket, not a gap: after a quiet
moment `burst` messages go out at once, and over any longer while never
more than one every `interval_s`.

>>> pacer = Pacer(0.1, burst=2)
>>> pacer.wait_s(5.0); pacer.sent(5.0); pacer.wait_s(5.01); pacer.sent(5.01); pacer.wait_s(5.02)
0.0
0.0
0.08
"""


class Pacer:
    """How long to hold the next message: `burst` at once, then one every `interval_s`."""

    def __init__(self, interval_s: float, *, burst: int = 1):
        self.interval_s, self.burst = interval_s, burst
        self._tokens, self._at = float(burst), None

    def _refill(self, now: float) -> None:
        if self._at is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._at) / self.interval_s)
        self._at = now

    def wait_s(self, now: float) -> float:
        self._refill(now)
        return round(max(0.0, (1 - self._tokens) * self.interval_s), 9)

    def sent(self, now: float) -> None:
        self._refill(now)
        self._tokens -= 1
