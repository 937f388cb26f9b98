"""A tilt pair read on the hub: two debounced switches that settle into a pose.

The board's `keypad` module already debounces each switch (a level must hold
for a few scans); ball switches still chatter in bursts near 45 degrees, so
the pair's pose counts only once neither switch has moved for `settle_ms`.

>>> pair = TiltReader(settle_ms=80)
>>> pair.switch(0, True, 1000); pair.update(1050), pair.update(1080)
(None, 'a_up')
"""

from hubframe import ms_since

POSE_OF_LEVELS = {(True, False): "a_up", (False, True): "b_up"}  # anything else: lying


class TiltReader:
    """Switch 0 closed means end A is up, switch 1 closed means end B is up."""

    def __init__(self, settle_ms=80, levels=(False, False)):
        self.settle_ms = settle_ms
        self.levels = list(levels)
        self.pose = POSE_OF_LEVELS.get(tuple(levels), "side")
        self._moved_ms = None  # when a switch last moved, while a change is pending

    def switch(self, index, closed, ms):
        """Switch `index` (0 or 1) closed or opened at `ms`."""
        if self.levels[index] != closed:
            self.levels[index] = closed
            self._moved_ms = ms

    def update(self, ms):
        """The new pose if the switches have held still for `settle_ms` by `ms`, else None."""
        if self._moved_ms is None or ms_since(ms, self._moved_ms) < self.settle_ms:
            return None
        self._moved_ms = None
        pose = POSE_OF_LEVELS.get(tuple(self.levels), "side")
        if pose == self.pose:
            return None
        self.pose = pose
        return pose
