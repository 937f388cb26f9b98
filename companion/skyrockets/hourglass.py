"""One sand hourglass: two bulbs, a duration each way, and a pose.

An `Hourglass` is a value. It is anchored at an instant (`since`) with `a`
seconds of sand in bulb A; its state at any later instant follows from the
pose alone, so asking about time never changes it and how a quiet stretch is
sliced into questions cannot matter.

Real glasses often run a little differently one way and the other, so a
glass may have a second duration for standing B up (sand flowing B to A).
Sand is counted in seconds of the A-up flow; standing B up it drains at the
other rate, and everything reported (sand on top) is in seconds of the way
the glass would run.

>>> g = Hourglass.standing(30.0, t=0.0)          # all sand in A, A up
>>> g.top(12.0), g.flipped(12.0).top(12.0)
(18.0, 12.0)
>>> h = Hourglass.standing(30.0, duration_b_up=36.0).flipped(30.0)  # all sand now in B, on top
>>> h.top(30.0), h.empties_at()
(36.0, 66.0)
"""

from dataclasses import dataclass
from enum import StrEnum


class Pose(StrEnum):
    A_UP = "a_up"
    B_UP = "b_up"
    SIDE = "side"

    @property
    def upright(self) -> bool:
        return self is not SIDE

    @property
    def turned(self) -> "Pose":
        """The other upright pose (a lying glass stays lying)."""
        return _TURNED[self]


# The poses as module names: a member looked up on its enum class costs several times a plain name, and a replay
# asks for them at every line.
A_UP, B_UP, SIDE = Pose.A_UP, Pose.B_UP, Pose.SIDE
_TURNED = {A_UP: B_UP, B_UP: A_UP, SIDE: SIDE}
_new = object.__new__


@dataclass(frozen=True)
class Hourglass:
    """A glass of `duration` seconds A up (`duration_b_up` B up, if different) with `a` in bulb A at `since`."""

    duration: float
    a: float
    pose: Pose
    since: float = 0.0
    duration_b_up: float | None = None

    @classmethod
    def standing(cls, duration: float, t: float = 0.0, duration_b_up: float | None = None) -> "Hourglass":
        """Upright with all the sand on top (bulb A up): running from `t`."""
        return cls(duration, duration, A_UP, t, duration_b_up)

    @classmethod
    def lying(cls, duration: float, t: float = 0.0, duration_b_up: float | None = None) -> "Hourglass":
        """On its side with all the sand in bulb A: not running."""
        return cls(duration, duration, SIDE, t, duration_b_up)

    @property
    def _b_rate(self) -> float:
        """Seconds of B-up running per second of A-up sand."""
        return 1.0 if self.duration_b_up is None else self.duration_b_up / self.duration

    def duration_for(self, pose: Pose) -> float:
        """The seconds a full glass runs standing in `pose` (a lying glass: the A-up figure)."""
        return self.duration * self._b_rate if pose is B_UP else self.duration

    def sand_in_a(self, t: float) -> float:
        """Sand in bulb A at time t (>= since), in seconds of the A-up flow."""
        elapsed = t - self.since
        if self.pose is A_UP:
            return max(0.0, self.a - elapsed)
        if self.pose is B_UP:
            if elapsed >= self._in_b(self.a):  # run dry: exactly full, whatever the division rounds to
                return self.duration
            return min(self.duration, self.a + elapsed / self._b_rate)
        return self.a

    def top(self, t: float) -> float:
        """Sand on top at t; for a lying glass, the sand in its fuller bulb."""
        a = self.sand_in_a(t)
        if self.pose is A_UP:
            return a
        if self.pose is B_UP:
            return self._in_b(a)
        return a if a >= self.duration - a else self._in_b(a)

    def _in_b(self, a: float) -> float:
        """The sand in bulb B, in seconds of the B-up flow, when A holds `a`."""
        return (self.duration - a) * self._b_rate

    def sand_under(self, upper: Pose, t: float) -> float:
        """Sand at t in the bulb that is on top in pose `upper` (an upright pose)."""
        a = self.sand_in_a(t)
        return a if upper is A_UP else self._in_b(a)

    def empties_at(self) -> float | None:
        """When the top bulb is (or was) empty while upright; None when lying."""
        if self.pose is SIDE:
            return None
        return self.since + self.top(self.since)

    def at(self, t: float) -> "Hourglass":
        """The same glass re-anchored at t."""
        return Hourglass(self.duration, self.sand_in_a(t), self.pose, t, self.duration_b_up)

    def posed(self, pose: Pose, t: float) -> "Hourglass":
        """The glass put into `pose` at t (sand stays where it is)."""
        # Built field by field rather than through the frozen dataclass's __init__ (one object.__setattr__ call a
        # field): a chattering sensor moves glasses at every line of a replay. The value is the same, equal and
        # hashed alike.
        glass = _new(Hourglass)
        fields = glass.__dict__
        fields["duration"] = self.duration
        fields["a"] = self.sand_in_a(t)
        fields["pose"] = pose if type(pose) is Pose else Pose(pose)
        fields["since"] = t
        fields["duration_b_up"] = self.duration_b_up
        return glass

    def flipped(self, t: float) -> "Hourglass":
        """Turned over at t; a lying glass is stood up with the fuller bulb on top."""
        return self.posed(self.flipped_pose(t), t)

    def flipped_pose(self, t: float) -> Pose:
        """The pose turning the glass over at t leaves it in."""
        if self.pose is not SIDE:
            return _TURNED[self.pose]
        a = self.sand_in_a(t)
        return A_UP if a >= self.duration - a else B_UP
