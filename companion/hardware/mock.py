"""The table's fakes, shipped beside the real hardware: mock switch pins and a pair of hands.

gpiozero's MockFactory stands in for the GPIO chip. Two things make it
behave like a table: a switch closed to GND holds its pin low even when the
pull-up is switched on (a glass already standing in its cradle when the
daemon starts), and `Hands` turn glasses in their cradles and press flip
buttons by driving those pins, letting fake time pass so the table catches
up. The demo, the tests, the docs and the benchmarks all use these.

>>> import tempfile, pathlib
>>> from companion.clock import FakeClock
>>> from companion.table import demo_table
>>> folder = tempfile.TemporaryDirectory()
>>> table = demo_table(pathlib.Path(folder.name) / "demo.sqlite3", clock=FakeClock())
>>> hands = Hands(table)
>>> _ = table.desk.start_show("training")
>>> hands.press("red"); table.desk.snapshot()["timers"]["red"]["pose"]
'b_up'
>>> table.stop(); folder.cleanup()
"""

from gpiozero.pins.mock import MockFactory, MockPWMPin

POSES = {"a_up": (True, False), "b_up": (False, True), "side": (False, False), "both": (True, True)}


class SwitchPin(MockPWMPin):
    """A mock pin wired to a switch to GND: closed, it stays low whatever the pull-up says."""

    switch_closed = False

    def close_switch(self) -> None:
        self.switch_closed = True
        self.drive_low()

    def open_switch(self) -> None:
        self.switch_closed = False
        self.drive_high()

    def _set_pull(self, value):
        super()._set_pull(value)
        if self.switch_closed:
            self.drive_low()


def mock_pin_factory() -> MockFactory:
    """gpiozero's mock pins as a table's switches behave (PWM-capable too, for a buzzer)."""
    return MockFactory(pin_class=SwitchPin)


class Hands:
    """Moves a table's glasses and presses its buttons through mock pins, letting fake time pass."""

    def __init__(self, table, step_s: float = 0.5):
        self.table = table
        self.clock = table.clock
        self.factory = table.rig.pin_factory
        self.step_s = step_s

    def wait(self, seconds: float) -> None:
        """Let `seconds` of clock time pass, in steps, the table catching up after each."""
        while seconds > 1e-9:
            step = min(seconds, self.step_s)
            self.clock.advance(step)
            self.table.pump()
            seconds -= step

    def close(self, pin: int, closed: bool) -> None:
        """Close (True) or open the switch on GPIO `pin`."""
        (self.factory.pin(pin).drive_low if closed else self.factory.pin(pin).drive_high)()

    def set(self, colour: str, pose: str, settle: float = 0.1) -> None:
        """Put a glass in a physical pose ("a_up", "b_up", "side", or "both" switches closed)."""
        for pin, closed in zip(self.table.rig.pins_of(colour), POSES[pose]):
            self.close(pin, closed)
        self.wait(settle)

    def turn(self, colour: str) -> None:
        """Turn a glass in its cradle end over end."""
        current = self.table.rig.tilts[colour].pose.value
        self.set(colour, "b_up" if current == "a_up" else "a_up")

    def chatter(self, colour: str, pose: str, bursts: list[float]) -> None:
        """A slow turn near 45 degrees: switches flicker at these intervals before settling in `pose`."""
        pins = self.table.rig.pins_of(colour)
        for i, gap in enumerate(bursts):
            for pin, closed in zip(pins, POSES[pose]):
                self.close(pin, closed if i % 2 else not closed)
            self.clock.advance(gap)
            self.table.pump()
        self.set(colour, pose)

    def press(self, colour: str, hold: float = 0.1) -> None:
        """Press a glass's flip button for `hold` seconds (a short press flips, a long one lays it down)."""
        pin = self.table.rig.pins_of(colour)[0]
        self.close(pin, True)
        self.wait(hold)
        self.close(pin, False)
        self.wait(0.1)
