"""The table's hardware, assembled from its config: tilt pairs, flip buttons, LED strip, buzzer.

The rig opens the devices and wires their raw edges to one `sink` (the
runtime's queue); the debouncing and meaning live in the pure logic objects
it keeps beside them (`TiltPair`, `FlipButton`). With gpiozero's mock pin
factory the same rig runs on a laptop, in the demo and in the tests.
"""

from contextlib import contextmanager

from companion.config import Config
from companion.errors import BadInput
from companion.hardware.buttons import FlipButton, GpioFlipButton
from companion.hardware.buzzer import Buzzer, NullBuzzer
from companion.hardware.tilt import GpioTiltPair, TiltPair


class Rig:
    """Every input and output device of one table."""

    def __init__(self, config: Config, pin_factory, sink, clock):
        self.config = config
        self.pin_factory = pin_factory
        self.tilts: dict[str, TiltPair] = {}
        self.buttons: dict[str, FlipButton] = {}
        self._devices = []
        self.strip = None
        self.leds = None
        self.buzzer = NullBuzzer()
        try:
            self._open_inputs(sink, clock)
            self._open_buzzer()
            self._open_strip()
        except BaseException:
            self.close()
            raise

    def _open_inputs(self, sink, clock) -> None:
        tilt, buttons, now = self.config.tilt, self.config.buttons, clock()
        for colour, timer in self.config.timers.items():
            if timer.source == "hub":
                raise BadInput(f"timers.{colour}.source",
                               "'hub' needs the serial sensor hub, which this version cannot read yet: use tilt or emulated")
            if timer.source == "tilt":
                pins = timer.pins[:1] if timer.single_switch else timer.pins
                with self._opening(f"timers.{colour}.pins"):
                    device = self._track(GpioTiltPair(colour, pins, sink, clock, self.pin_factory))
                self.tilts[colour] = TiltPair(colour, settle_s=tilt.settle_ms / 1000,
                                              both_closed_fault_s=tilt.both_closed_fault_s,
                                              single=timer.single_switch, initial=device.levels(), t0=now)
            else:
                with self._opening(f"timers.{colour}.pins"):
                    self._track(GpioFlipButton(colour, timer.pins[0], sink, clock, self.pin_factory))
                self.buttons[colour] = FlipButton(colour, settle_s=buttons.settle_ms / 1000, hold_s=buttons.hold_s)

    def _open_buzzer(self) -> None:
        if self.config.buzzer.enabled:
            from gpiozero import TonalBuzzer

            with self._opening("buzzer.pin"):
                device = self._track(TonalBuzzer(self.config.buzzer.pin, pin_factory=self.pin_factory))
            self.buzzer = Buzzer(device, muted=self.config.buzzer.muted)

    def _open_strip(self) -> None:
        strip = self.config.strip
        if not strip.enabled:
            return
        from companion.hardware.strip import open_strip
        from companion.leds import StripLayout

        self.layout = StripLayout(segment_len=strip.segment_leds, countdown_leds=strip.countdown_leds,
                                  token_leds=strip.token_leds)
        self.strip = open_strip(strip.driver, self.layout.total, order=strip.order, brightness=strip.brightness)

    def _track(self, device):
        self._devices.append(device)
        return device

    @contextmanager
    def _opening(self, key: str):
        """A device that will not open is a config problem: name the key (e.g. a pin already in use)."""
        from gpiozero.exc import GPIOZeroError

        try:
            yield
        except GPIOZeroError as e:
            raise BadInput(key, f"cannot open the pin ({e})") from None

    def input_logic(self, name: str):
        """The debouncing logic fed by the device called `name`."""
        return self.tilts.get(name) or self.buttons[name]

    def readings(self) -> dict[str, tuple[bool, ...]]:
        """The switch levels of every tilt pair right now."""
        return {d.name: d.levels() for d in self._devices if isinstance(d, GpioTiltPair)}

    def close(self) -> None:
        if self.leds is not None:
            self.leds.close()
        self.buzzer.close()
        if self.strip is not None:
            self.strip.close()
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()
