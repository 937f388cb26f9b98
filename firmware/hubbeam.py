"""The light beam across a glass's neck: when sand really starts and stops flowing.

Falling grains break an infrared beam again and again; between grains it is
clear for a moment. The sand has stopped once the beam has stayed clear for
`stop_ms`, and it stopped at the last instant a grain broke the beam, which
is what a `stopped` report carries: the true instant the top bulb ran dry.

>>> neck = NeckBeam(stop_ms=250)
>>> neck.sample(True, 1000), neck.sample(False, 1004), neck.sample(True, 1010)
(('flowing', 1000), None, None)
>>> neck.update(1200), neck.sample(False, 1012), neck.update(1262)
(None, None, ('stopped', 1012))
"""

from hubframe import ms_since


class NeckBeam:
    """One beam: `sample(blocked, ms)` per reading, `update(ms)` to notice the sand has stopped."""

    def __init__(self, stop_ms=250):
        self.stop_ms = stop_ms
        self.state = "stopped"
        self._blocked = False
        self._clear_since = None  # the instant the beam last came clear while sand flowed

    def sample(self, blocked, ms):
        """The beam read `blocked` at `ms`; returns ("flowing", ms) when sand starts, else None."""
        event = self.update(ms)
        if blocked:
            self._clear_since = None
            if self.state == "stopped":
                self.state = "flowing"
                event = ("flowing", ms)
        elif self._blocked and self.state == "flowing":
            self._clear_since = ms
        self._blocked = blocked
        return event

    def update(self, ms):
        """("stopped", instant the last grain crossed) once the beam has been clear for `stop_ms`."""
        if self.state != "flowing" or self._clear_since is None:
            return None
        if ms_since(ms, self._clear_since) < self.stop_ms:
            return None
        self.state = "stopped"
        return ("stopped", self._clear_since)

    def due_ms(self):
        """When `update` may next report (a hub clock instant), or None."""
        if self.state != "flowing" or self._clear_since is None:
            return None
        return self._clear_since + self.stop_ms
