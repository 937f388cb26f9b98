"""Flip buttons: one push button per LED-emulated hourglass."""

from dataclasses import dataclass

from companion.hardware.debounce import StableLevel, earliest
from companion.hardware.pins import SwitchInputs
from companion.hardware.source import ButtonAction  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class ButtonConfig:
    """The [buttons] section: how flip buttons are debounced and when a press is a long one."""

    settle_ms: float = 30.0
    hold_s: float = 0.8

    @classmethod
    def read(cls, s) -> "ButtonConfig":
        d = cls()
        return cls(settle_ms=s.number("settle_ms", d.settle_ms, 1, 500),
                   hold_s=s.seconds("hold_s", d.hold_s, positive=True, limit=10))


class FlipButton:
    """The push button of one emulated hourglass: a short press flips it, a long one lays it down.

    A press released within `hold_s` is a "flip" when released; a press held
    for `hold_s` is a "lay" at that instant and nothing more on release
    (whether that lays the glass down or stands it up is the runtime's call).

    >>> red = FlipButton("red")
    >>> red.edge(True, 2.0); red.edge(False, 2.2)
    >>> red.update(3.0)
    [ButtonAction(name='red', action='flip', t=2.23)]
    """

    def __init__(self, name: str, *, settle_s: float = 0.03, hold_s: float = 0.8):
        self.name = name
        self.hold_s = hold_s
        self._button = StableLevel(False, settle_s)
        self._pressed_at: float | None = None  # while a press has not yet become an action
        self._actions: list[ButtonAction] = []

    @property
    def pressed(self) -> bool:
        """Whether the button is (stably) held down."""
        return self._button.level

    def take(self, edge) -> None:
        """Take a raw edge from the button's pin (a companion.hardware.pins.RawEdge)."""
        self.edge(edge.closed, edge.t)

    def edge(self, pressed: bool, t: float) -> None:
        """Record that the button went down or up at time `t`."""
        self._catch_up(t)
        self._button.edge(pressed, t)

    def update(self, t: float) -> list[ButtonAction]:
        """The actions that happened up to time `t`, each stamped with its own instant."""
        self._catch_up(t)
        actions, self._actions = self._actions, []
        return actions

    def next_due(self) -> float | None:
        """When the next action may happen if no edge comes first, or None if none can."""
        return earliest(self._button.next_due(), self._hold_due())

    def _hold_due(self) -> float | None:
        return None if self._pressed_at is None else self._pressed_at + self.hold_s

    def _catch_up(self, t: float) -> None:
        # Press and release are timed from when they settled, so both carry the same debounce delay.
        while (due := self.next_due()) is not None and due <= t:
            if due == self._hold_due():
                self._act("lay", due)
            elif self._button.update(due):
                self._pressed_at = due
            elif self._pressed_at is not None:
                self._act("flip", due)

    def _act(self, action: str, t: float) -> None:
        self._pressed_at = None
        self._actions.append(ButtonAction(self.name, action, t))


class GpioFlipButton(SwitchInputs):
    """A flip button on a GPIO pin, wired to GND; it only hands raw edges (switch 0) to `sink`.

    gpiozero's own debouncing is off (and mock pins ignore it anyway), so a
    `FlipButton` fed with the edges is the only debounce::

        edges = queue.SimpleQueue()
        button = GpioFlipButton("red", 4, edges.put, time.monotonic)
    """

    def __init__(self, name: str, pin: int, sink, clock, pin_factory=None):
        # A plain input, as a tilt switch's is: gpiozero's Button adds a thread that wakes ten times a second to
        # time a hold, which the table never asks of it (a hold is FlipButton's to time), and that every close
        # waits for.
        from gpiozero import DigitalInputDevice

        def make_input(number):
            return DigitalInputDevice(number, pull_up=True, bounce_time=None, pin_factory=pin_factory)

        super().__init__(name, (pin,), sink, clock, make_input)
