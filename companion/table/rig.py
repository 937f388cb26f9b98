"""The table's hardware, assembled from its config: sensor sources, LED strip, buzzer.

Every sensor source (a tilt pair, a flip button, and any source that sends
whole poses) plugs in through the one interface of
companion.hardware.source: its devices hand raw items to the rig's `sink`
(the runtime's queue), and the runtime thread gives them back with `take`,
asks `update(now)` for what changed, and sleeps until `next_due()`. The rig
knows nothing of what a source means, nor of its kinds: each kind
(companion.hardware.sensors) opens its own sources on it; the table reads
their changes. With
gpiozero's mock pin factory the same rig runs on a laptop, in the demo and
in the tests.
"""

from contextlib import contextmanager

from companion.config import Config
from companion.errors import BadInput
from companion.hardware import sensors
from companion.hardware.buttons import FlipButton
from companion.hardware.debounce import earliest
from companion.hardware.buzzer import Buzzer, NullBuzzer
from companion.hardware.source import Change, Source
from companion.hardware.tilt import TiltPair
from companion.skyrockets.hourglass import Pose

_UNSETTLED = object()  # an item was taken since the sources were last asked: they may have changes


class Wired:
    """Pure input logic (a TiltPair, a FlipButton) and the device that feeds it, as one Source."""

    def __init__(self, logic, device):
        self.logic, self.device_io = logic, device
        self.device = logic.name

    def take(self, item) -> None:
        self.logic.take(item)

    def poses(self) -> dict[str, Pose | None]:
        return {self.device: self.logic.pose} if isinstance(self.logic, TiltPair) else {}

    def update(self, t: float) -> list[Change]:
        return self.logic.update(t)

    def next_due(self) -> float | None:
        return self.logic.next_due()

    def close(self) -> None:
        self.device_io.close()


class Rig:
    """Every input and output device of one table."""

    def __init__(self, config: Config, pin_factory, sink, clock, *, show_clock=None, leds: bool = True):
        self.config = config
        self.pin_factory = pin_factory
        self.sources: dict[str, Source] = {}
        # Filled by their kinds' modules (companion.hardware.sensors): timing a glass and the mock hands read them.
        self.tilts: dict[str, TiltPair] = {}
        self.buttons: dict[str, FlipButton] = {}
        self.layout = config.strip.layout  # where things sit on a strip, fitted or not
        self.strip = None
        self.leds = None
        self.buzzer = NullBuzzer()
        # A source changes only when it takes an item or time reaches its next instant, so once updated its next
        # instant holds until an item comes: every command and every step asks for it, and asking six sources
        # each time was half of a command's own cost (a flip from a phone waited on it).
        self._due: object = _UNSETTLED
        try:
            self._open_inputs(sink, clock)
            self._open_buzzer()
            if config.strip.enabled:
                self._open_strip(show_clock if leds else None)
        except BaseException:
            self.close()
            raise

    # ---- the one input interface ----------------------------------------------

    def take(self, item) -> None:
        """Hand a raw item to the source it came from."""
        self._due = _UNSETTLED  # first: a source that fails on an item may still have changed
        self.sources[item.device].take(item)

    def update(self, now: float) -> list[Change]:
        """Every source's changes up to `now`, in the order they happened."""
        if self._due is not _UNSETTLED and (self._due is None or self._due > now):
            return []  # nothing taken since the last update, and nothing come due
        changes = [change for source in self.sources.values() for change in source.update(now)]
        self._due = self._sources_due()
        return sorted(changes, key=lambda change: change.t)

    def next_due(self) -> float | None:
        """The earliest instant at which any source may change without a new raw item."""
        return self._sources_due() if self._due is _UNSETTLED else self._due

    def _sources_due(self) -> float | None:
        return earliest(*(source.next_due() for source in self.sources.values()))

    def poses(self) -> dict[str, Pose | None]:
        """How each sensor-read glass stands right now, as its source last settled it.

        A source that reads glasses offers `poses()` ({colour: Pose or None}); buttons have none.
        """
        poses = {}
        for source in self.sources.values():
            poses.update(source.poses() if hasattr(source, "poses") else {})
        return poses

    def physical(self) -> list[str]:
        """The colours whose glasses are real and read by sensors."""
        return [c for c, timer in self.config.timers.items() if sensors.physical(timer)]

    # ---- opening the devices ------------------------------------------------------

    def _open_inputs(self, sink, clock) -> None:
        """Each kind of source opens its own, on the colours the config gives it."""
        for kind in sensors.kinds():
            kind.open(self, [c for c, timer in self.config.timers.items() if timer.source == kind.name], sink, clock)
        # In the table's order, then the sources of many glasses: changes at one instant come in that order.
        ordered = {c: self.sources.pop(c) for c in self.config.timers if c in self.sources}
        self.sources = {**ordered, **self.sources}

    def wire(self, logic, device) -> None:
        """Add a source made of pure input logic and the device that feeds it (a kind's `open` calls it)."""
        self.sources[logic.name] = Wired(logic, device)

    def _open_buzzer(self) -> None:
        if self.config.buzzer.enabled:
            from gpiozero import TonalBuzzer

            with self.opening("buzzer.pin"):
                device = TonalBuzzer(self.config.buzzer.pin, pin_factory=self.pin_factory)
            self.buzzer = Buzzer(device, muted=self.config.buzzer.muted)

    def _open_strip(self, show_clock) -> None:
        from companion.hardware.strip import open_strip

        strip = self.config.strip
        self.strip = open_strip(strip.driver, self.layout.total, order=strip.order, brightness=strip.brightness)
        if show_clock is not None:
            from companion.hardware.ledshow import LedShow

            self.leds = LedShow(self.strip, self.layout, show_clock)

    @contextmanager
    def opening(self, key: str):
        """A device that will not open is a config problem: name the key (e.g. a pin already in use)."""
        from gpiozero.exc import GPIOZeroError

        try:
            yield
        except GPIOZeroError as e:
            raise BadInput(key, f"cannot open the pin ({e})", code="errors.gpio_open") from None

    # ---- readouts and closing --------------------------------------------------------

    def pins_of(self, colour: str) -> tuple[int, ...]:
        """The GPIO pins wired to `colour`'s switches or button (what the mock hands drive)."""
        timer = self.config.timers[colour]
        return timer.pins[:1] if timer.single_switch else sensors.kind(timer.source).shown_pins(timer)

    def close(self) -> None:
        if self.leds is not None:
            self.leds.close()
        self.buzzer.close()
        if self.strip is not None:
            self.strip.close()
        for source in reversed(list(self.sources.values())):
            source.close()
        self.sources.clear()
