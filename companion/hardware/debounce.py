"""The debouncer that turns a switch's raw edges into stable levels."""

from typing import Generic, TypeVar

Level = TypeVar("Level")


def earliest(*dues: float | None) -> float | None:
    """The earliest of the instants given, None ones left out (None if none is left).

    >>> earliest(None, 2.5, 1.0), earliest(None)
    (1.0, None)
    """
    found = None
    for due in dues:
        if due is not None and (found is None or due < found):
            found = due
    return found


class StableLevel(Generic[Level]):
    """One digital input whose level counts only once it has held still for `settle_s`.

    Ball switches chatter in bursts near 45 degrees, so a change is not
    believed on its first edge but once no further edge has come for
    `settle_s` seconds; a level that flickers back in time changes nothing.
    The level is a bool, or any value compared with ``==`` (a tilt pair
    debounces its two switches as one tuple).

    >>> switch = StableLevel(False)
    >>> switch.edge(True, 1.00); switch.edge(False, 1.01); switch.edge(True, 1.02)
    >>> switch.next_due(), switch.update(1.05), switch.update(1.10)
    (1.1, None, True)
    """

    def __init__(self, level: Level, settle_s: float = 0.08):
        self.level = level
        self.raw = level
        self.settle_s = settle_s
        self._since = 0.0  # time of the last raw edge: the raw level is stable since then

    def edge(self, level: Level, t: float) -> Level | None:
        """Record that the raw level is `level` from time `t` on.

        Returns what `update(t)` would have returned first, so that a level
        which settled before this edge is never lost.
        """
        settled = self.update(t)
        if level != self.raw:
            self.raw, self._since = level, t
        return settled

    def next_due(self) -> float | None:
        """When the pending raw level will settle if nothing changes, or None if none is pending."""
        return None if self.raw == self.level else self._since + self.settle_s

    def update(self, t: float) -> Level | None:
        """The new stable level if the pending one has settled by `t`, else None."""
        due = self.next_due()
        if due is None or t < due:
            return None
        self.level = self.raw
        return self.level
