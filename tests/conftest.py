"""Shared fixtures: every test builds its own world (app, database, pins)."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "rules" / "scenarios"


def hw_script(name: str):
    """One of the drawing scripts of hw/ (hw/NAME.py), loaded as a module, as the drawing tests read them."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"hw_{name}", ROOT / "hw" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_cli(*args: str, stdin: str | None = None):
    """Run `python -m companion ARGS` in a real subprocess; returns the CompletedProcess."""
    import subprocess

    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        input=stdin, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def mock_pins():
    """gpiozero's MockFactory as the default pin factory for one test, reset afterwards."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    previous, Device.pin_factory = Device.pin_factory, MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = previous


@pytest.fixture
def clock():
    """A clock that moves only when a test moves it."""
    from companion.clock import FakeClock

    return FakeClock()


@pytest.fixture
def table(tmp_path, clock):
    """The demo table (mock pins, six emulated timers, a fake strip) on a fresh database."""
    from companion.table import demo_table

    table = demo_table(tmp_path / "table.sqlite3", clock=clock)
    yield table
    table.stop()
