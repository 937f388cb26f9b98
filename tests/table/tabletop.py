"""A table of tilt cradles on mock pins with a fake clock, and ways to read what it journaled."""

import json

from companion.clock import FakeClock
from companion.config import Config, TiltConfig, default_timers
from companion.skyrockets import replay
from companion.records import Store
from companion.hardware.mock import Hands, mock_pin_factory  # noqa: F401  (the tests' hands)
from companion.table import Table

def tilt_table(tmp_path, clock=None, pin_factory=None, **overrides) -> Table:
    """A table whose six glasses sit in tilt cradles (grace 1 s, tolerance 1.5 s, 5 s start window)."""
    config = Config(database=tmp_path / "table.sqlite3", timers=default_timers("tilt"),
                    tilt=TiltConfig(start_window_s=5.0, remind_every_s=10.0), **overrides)
    return Table(config, Store(config.database), pin_factory or mock_pin_factory(), clock=clock or FakeClock(),
                 pin="1234")


def journal(table: Table, show_id: int | None = None) -> list[str]:
    return table.store.show_log(show_id or table.desk.show_id)


def replayed(table: Table, show_id: int | None = None, at: float | None = None) -> dict:
    """`companion replay` of the show's journal (asked at show time `at`, if given)."""
    lines = journal(table, show_id)
    if at is not None:
        lines = lines + [json.dumps({"t": at, "type": "end"})]
    return replay(lines).result()


def live(table: Table) -> dict:
    """The contract's fields of the table's snapshot (the extras are the runtime's own)."""
    snap = table.desk.snapshot()
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
