"""Tilt pairs: two ball switches in an hourglass's cradle that tell which end is up."""

from dataclasses import dataclass

from companion.hardware.debounce import StableLevel, earliest
from companion.hardware.pins import SwitchInputs
from companion.hardware.source import Change, Fault, FaultChange, PoseChange  # noqa: F401  (re-exported)
from companion.skyrockets.hourglass import Pose


@dataclass(frozen=True)
class TiltConfig:
    """The [tilt] section: how tilt cradles are debounced and judged."""

    settle_ms: float = 80.0
    both_closed_fault_s: float = 3.0
    remind_every_s: float = 10.0  # a glass that ran out: the buzzer reminds the players this often until turned
    start_window_s: float = 5.0  # glasses turned this soon after the start are the start itself

    @classmethod
    def read(cls, s) -> "TiltConfig":
        """Read and check the [tilt] section (a companion.section.Section)."""
        d = cls()
        return cls(settle_ms=s.number("settle_ms", d.settle_ms, 1, 2000),
                   both_closed_fault_s=s.seconds("both_closed_fault_s", d.both_closed_fault_s, positive=True),
                   remind_every_s=s.seconds("remind_every_s", d.remind_every_s, positive=True),
                   start_window_s=s.seconds("start_window_s", d.start_window_s, limit=60))


class TiltPair:
    """One hourglass in a cradle with two ball switches mounted in opposite directions.

    Switch 0 closed means end A is up, switch 1 closed means end B is up.
    A glass lying on its side reads both open; both closed is a passing
    state while the balls roll, so it reads "side" too, but if it lasts
    `both_closed_fault_s` the pair reports a fault until it next reads a
    clean upright pose. With `single=True` only switch 0 is fitted: closed
    is A up, open is B up, and the glass is never seen lying.

    The two switches are debounced together: a turn makes both chatter at
    once, and the pose changes once neither has moved for `settle_s`.

    >>> red = TiltPair("red", initial=(True, False))
    >>> red.edge(0, False, 5.0); red.edge(1, True, 5.0)
    >>> red.update(5.1)
    [PoseChange(name='red', pose=<Pose.B_UP: 'b_up'>, t=5.08, resync=False)]
    """

    def __init__(self, name: str, *, settle_s: float = 0.08, both_closed_fault_s: float = 3.0,
                 single: bool = False, initial: tuple[bool, ...] = (False, False), t0: float = 0.0):
        count = 1 if single else 2
        if len(initial) < count:
            raise ValueError(f"{name}: a tilt pair needs {count} initial switch levels, got {initial!r}")
        self.name = name
        self.single = single
        self.both_closed_fault_s = both_closed_fault_s
        self._reading = StableLevel(tuple(initial[:count]), settle_s)
        self.pose = self._pose()
        self.fault: str | None = None
        # The initial levels were read at t0, so a pair that starts both closed is timed from then.
        self._both_closed_since = t0 if self._reading.level == (True, True) else None
        self._changes: list[Change] = []

    @property
    def raw(self) -> tuple[bool, ...]:
        """The switch levels as last reported, before debouncing."""
        return self._reading.raw

    def take(self, edge) -> None:
        """Take a raw edge from the pair's switches (a companion.hardware.pins.RawEdge)."""
        self.edge(edge.switch, edge.closed, edge.t)

    def edge(self, switch: int, closed: bool, t: float) -> None:
        """Record that switch 0 or 1 opened or closed at time `t`."""
        self._catch_up(t)
        raw = list(self._reading.raw)
        raw[switch] = closed
        self._reading.edge(tuple(raw), t)

    def update(self, t: float) -> list[Change]:
        """The pose and fault changes that became true up to time `t`, each stamped with its own instant."""
        self._catch_up(t)
        changes, self._changes = self._changes, []
        return changes

    def next_due(self) -> float | None:
        """When the next change may become true if no edge comes first, or None if none can."""
        return earliest(self._reading.next_due(), self._fault_due())

    def _fault_due(self) -> float | None:
        if self._both_closed_since is None or self.fault is not None:
            return None
        return self._both_closed_since + self.both_closed_fault_s

    def _catch_up(self, t: float) -> None:
        # Deadlines are handled in time order at their own instants, so the result
        # does not depend on how often or when update() is called.
        while (due := self.next_due()) is not None and due <= t:
            if due == self._fault_due():
                self._set_fault(Fault(f"both tilt switches closed for {self.both_closed_fault_s:g} s: "
                                      "shorted wire or stuck switch?", "faults.tilt.both_closed",
                                      seconds=self.both_closed_fault_s), due)
            else:
                self._reading.update(due)
                self._settled(due)

    def _settled(self, t: float) -> None:
        pose = self._pose()
        if pose != self.pose:
            self.pose = pose
            self._changes.append(PoseChange(self.name, pose, t))
        self._both_closed_since = t if self._reading.level == (True, True) else None
        if self.fault is not None and pose is not Pose.SIDE:
            self._set_fault(None, t)

    def _pose(self) -> Pose:
        if self.single:
            return Pose.A_UP if self._reading.level[0] else Pose.B_UP
        return {(True, False): Pose.A_UP, (False, True): Pose.B_UP}.get(self._reading.level, Pose.SIDE)

    def _set_fault(self, fault: str | None, t: float) -> None:
        self.fault = fault
        self._changes.append(FaultChange(self.name, fault, t))


class GpioTiltPair(SwitchInputs):
    """A tilt pair's switches on one or two GPIO pins, each wired to GND.

    It only hands raw edges to `sink`; a `TiltPair` makes sense of them::

        edges = queue.SimpleQueue()
        sensors = GpioTiltPair("red", (4, 5), edges.put, time.monotonic)
        red = TiltPair("red", initial=sensors.levels(), t0=time.monotonic())
    """

    def __init__(self, name: str, pins: tuple[int, int] | tuple[int], sink, clock, pin_factory=None):
        from gpiozero import DigitalInputDevice

        def make_input(number):
            return DigitalInputDevice(number, pull_up=True, pin_factory=pin_factory)

        super().__init__(name, pins, sink, clock, make_input)
