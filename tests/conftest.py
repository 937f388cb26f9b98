"""Shared fixtures: every test builds its own world (app, database, pins).

The suite runs on several processes at once (pytest-xdist, `-n auto --dist loadgroup`
in pyproject.toml): what two tests could share is kept apart here. A test whose
module builds something once for all its tests (a module-scoped fixture) runs on
the same process as the rest of that module; a port handed to another program is
leased, so no other test process is handed it before that program binds it; and
a build from the checkout takes a lock.
"""

import contextlib
import fcntl
import hashlib
import os
import socket
import sys
import tempfile
from pathlib import Path

import pytest

import companion.mqtt.mosquitto

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "rules" / "scenarios"
# Shared by every test process on this machine (other runs included), so each lives as long as its files.
LOCKS = Path(tempfile.gettempdir()) / f"companion-tests-{os.getuid()}"
SHARED_SCOPES = ("module", "class", "package")  # fixtures made once for several tests of one module


def _lock_file(name: str):
    LOCKS.mkdir(exist_ok=True)
    return open(LOCKS / name, "a")


_leases: dict[int, object] = {}  # port -> its lock file, held until this process ends


def free_port() -> int:
    """A port of 127.0.0.1, free a moment ago, for a program a test starts (a broker, a demo) to bind.

    The kernel can hand a port just let go to the next process that asks; while one test's program
    starts, another test process could be handed the same one. So each port is leased: a lock on a
    file named after it, held by this process until it ends, and a port leased elsewhere is skipped.
    """
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port in _leases:
            continue
        lease = _lock_file(f"port-{port}")
        try:
            fcntl.flock(lease, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lease.close()
            continue
        _leases[port] = lease
        return port


# The broker picks its port with this function: every broker a test starts gets a leased one.
companion.mqtt.mosquitto.free_port = free_port


@contextlib.contextmanager
def building_from_the_checkout():
    """Held while pip builds the checkout itself (ROOT): its in-tree build/ and *.egg-info are one per checkout."""
    with _lock_file(f"build-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Keep a module's tests on one process when they share a fixture made once per module (a rendered
    cradle, an installed root, a booted container): split, each process would make it again, and tests
    that build on each other's steps would run apart. xdist reads these groups under --dist loadgroup."""
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        info = getattr(item, "_fixtureinfo", None)
        scopes = {defs[-1].scope for defs in info.name2fixturedefs.values() if defs} if info else set()
        if scopes & set(SHARED_SCOPES):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


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
