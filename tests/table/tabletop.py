"""A table on mock pins with a fake clock, and a pair of hands that turn its glasses."""

import json

from companion.clock import FakeClock
from companion.config import Config, TiltConfig, default_timers
from companion.skyrockets import replay
from companion.store import Store
from companion.hardware.pins import mock_pin_factory
from companion.table import Table

PHYSICAL = {"a_up": (True, False), "b_up": (False, True), "side": (False, False), "both": (True, True)}


def tilt_table(tmp_path, clock=None, pin_factory=None, **overrides) -> Table:
    """A table whose six glasses sit in tilt cradles (grace 1 s, tolerance 1.5 s, 5 s start window)."""
    config = Config(database=tmp_path / "table.sqlite3", timers=default_timers("tilt"),
                    tilt=TiltConfig(start_window_s=5.0, stuck_after_s=15.0), **overrides)
    return Table(config, Store(config.database), pin_factory or mock_pin_factory(), clock=clock or FakeClock(),
                 pin="1234")


class Hands:
    """Moves glasses and presses buttons through the mock pins, letting fake time pass."""

    def __init__(self, table: Table):
        self.table = table
        self.clock = table.clock
        self.factory = table.rig.pin_factory

    def wait(self, seconds: float) -> None:
        """Let `seconds` of wall time pass, in steps, the runtime catching up after each."""
        while seconds > 1e-9:
            step = min(seconds, 0.5)
            self.clock.advance(step)
            self.table.pump()
            seconds -= step

    def _drive(self, pin: int, closed: bool) -> None:
        (self.factory.pin(pin).drive_low if closed else self.factory.pin(pin).drive_high)()

    def set(self, colour: str, pose: str, settle: float = 0.1) -> None:
        """Put a glass in a physical pose ("a_up", "b_up", "side", or "both" switches closed)."""
        for pin, closed in zip(self.table.config.timers[colour].pins, PHYSICAL[pose]):
            self._drive(pin, closed)
        self.wait(settle)

    def turn(self, colour: str) -> None:
        current = self.table.rig.tilts[colour].pose.value
        self.set(colour, "b_up" if current == "a_up" else "a_up")

    def chatter(self, colour: str, pose: str, bursts: list[float]) -> None:
        """A slow turn near 45 degrees: switches flicker at these intervals before settling in `pose`."""
        pins = self.table.config.timers[colour].pins
        for i, gap in enumerate(bursts):
            for pin, closed in zip(pins, PHYSICAL[pose]):
                self._drive(pin, closed if i % 2 else not closed)
            self.clock.advance(gap)
            self.table.pump()
        self.set(colour, pose)

    def press(self, colour: str, hold: float = 0.1) -> None:
        pin = self.table.config.timers[colour].pins[0]
        self._drive(pin, True)
        self.wait(hold)
        self._drive(pin, False)
        self.wait(0.1)


def journal(table: Table, show_id: int | None = None) -> list[str]:
    return table.store.show_log(show_id or table.show_id)


def replayed(table: Table, show_id: int | None = None, at: float | None = None) -> dict:
    """`companion replay` of the show's journal (asked at show time `at`, if given)."""
    lines = journal(table, show_id)
    if at is not None:
        lines = lines + [json.dumps({"t": at, "type": "end"})]
    return replay(lines).result()


def live(table: Table) -> dict:
    """The contract's fields of the table's snapshot (the extras are the runtime's own)."""
    snap = table.snapshot()
    keys = ("outcome", "t", "stars", "countdown", "crowd_tokens_turned", "runouts", "advances", "warnings")
    result = {k: snap[k] for k in keys}
    result["timers"] = {c: {k: v[k] for k in ("pose", "top_s", "state")} for c, v in snap["timers"].items()}
    return result


def near(value, tolerance: float = 0.002):
    """`value` with every number replaced by pytest.approx: snapshot times are rounded to the millisecond."""
    import pytest

    if isinstance(value, dict):
        return {k: near(v, tolerance) for k, v in value.items()}
    if isinstance(value, list):
        return [near(v, tolerance) for v in value]
    if isinstance(value, float):
        return pytest.approx(value, abs=tolerance)
    return value


def lines_of(table: Table, kind: str) -> list[dict]:
    return [json.loads(line) for line in journal(table) if json.loads(line)["type"] == kind]
