"""Which end of a glass is up, from an accelerometer on its cradle, with hysteresis.

The accelerometer's z axis runs along the glass, from end B to end A. A glass
counts as upright once it is within `enter_deg` of vertical and stays so
until it leans past `exit_deg`, so a glass held near the threshold does not
flicker between upright and lying. Readings far from one g (the cradle being
knocked or carried) change nothing.

>>> glass = Orientation()
>>> glass.read(0.0, 0.0, 9.8), glass.read(6.0, 0.0, 7.0), glass.read(9.8, 0.0, 0.5)
('a_up', 'a_up', 'side')
"""

import math

GRAVITY = 9.80665  # m/s^2: what the LIS3DH driver reports for one g
TRUSTED_G = (0.6, 1.4)  # a reading outside this many g is a knock, not a pose


class Orientation:
    """The pose of one glass from its accelerometer readings (m/s^2)."""

    def __init__(self, enter_deg=30, exit_deg=45, pose="side"):
        if not 0 < enter_deg < exit_deg < 90:
            raise ValueError("need 0 < enter_deg < exit_deg < 90")
        self._enter = math.cos(math.radians(enter_deg))
        self._exit = math.cos(math.radians(exit_deg))
        self.pose = pose

    def read(self, x, y, z):
        """The pose after one reading."""
        g = math.sqrt(x * x + y * y + z * z)
        if not TRUSTED_G[0] * GRAVITY <= g <= TRUSTED_G[1] * GRAVITY:
            return self.pose
        along = z / g  # cosine of the angle between the glass and the vertical
        if self.pose == "a_up" and along >= self._exit or self.pose == "b_up" and -along >= self._exit:
            return self.pose
        if along >= self._enter:
            self.pose = "a_up"
        elif -along >= self._enter:
            self.pose = "b_up"
        elif self.pose != "side" and abs(along) < self._exit:
            self.pose = "side"
        return self.pose
