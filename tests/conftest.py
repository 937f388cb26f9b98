"""Shared fixtures: every test builds its own world (app, database, pins).

The suite runs on several processes at once (pytest-xdist, `-n logical --dist loadgroup`
in pyproject.toml): what two tests could share is kept apart here. A test whose
module builds something once for all its tests (a module-scoped fixture) runs on
the same process as the rest of that module, and the tests marked
xdist_group("heavy") (a booted Debian, a Home Assistant start) run one after the
other; a port handed to another program is leased, so no other test process is
handed it before that program binds it; and a build from the checkout takes a lock.
"""

import collections
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import socket
import sys
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import settings

import companion.mqtt.mosquitto

# A test says what must hold, never how fast (the benches measure that): no property has a deadline, so none fails
# because the machine was busy when it ran.
settings.register_profile("companion", deadline=None)
settings.load_profile("companion")

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "rules" / "scenarios"
# Shared by every test process on this machine (other runs included), so each lives as long as its files.
LOCKS = Path(tempfile.gettempdir()) / f"companion-tests-{os.getuid()}"
SHARED_SCOPES = ("module", "class", "package")  # fixtures made once for several tests of one module
HEAVY = "heavy"  # the xdist_group of the tests that boot a whole system: one at a time, and first


def _lock_file(name: str):
    LOCKS.mkdir(exist_ok=True)
    return open(LOCKS / name, "a")


_leases: dict[int, object] = {}  # port -> its lock file, held until this process ends


def cannot_run(reason: str | None) -> None:
    """Skip a test for `reason`, what this machine lacks for it (None: nothing); with COMPANION_REQUIRE_TOOLS=1
    (CI, where everything must be there), fail saying it."""
    if reason:
        if os.environ.get("COMPANION_REQUIRE_TOOLS") == "1":
            pytest.fail(f"required (COMPANION_REQUIRE_TOOLS=1): {reason}")
        pytest.skip(reason)


def need(*tools: str) -> None:
    """Skip a test whose programs are not installed, saying which; with COMPANION_REQUIRE_TOOLS=1 (CI), fail."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    cannot_run(missing and f"not installed: {' '.join(missing)}")


def need_as_root(doing: str, tools: tuple[str, ...], packages: str) -> None:
    """As need(), for a test that builds or boots a system: `doing` needs root, and `tools` (from Debian's
    `packages`)."""
    if os.geteuid() != 0:
        cannot_run(f"{doing} needs root")
    missing = [tool for tool in tools if shutil.which(tool) is None]
    cannot_run(missing and f"not installed: {' '.join(missing)} (Debian packages {packages})")


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


def _groups_file(testrunuid: str) -> Path:
    return LOCKS / f"groups-{testrunuid}.json"


def group_of(item) -> str | None:
    """The xdist_group an item is in: its own mark, else its module's when it shares a fixture made once
    per module (a rendered cradle, an installed root): split, each process would make it again, and tests
    that build on each other's steps would run apart."""
    mark = item.get_closest_marker("xdist_group")
    if mark:
        return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
    info = getattr(item, "_fixtureinfo", None)
    if info and any(defs and defs[-1].scope in SHARED_SCOPES for defs in info.name2fixturedefs.values()):
        return item.nodeid.split("::")[0]
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """On a test process of a parallel run: the named groups first (the heavy one before all, as it is the
    longest), largest first, then the rest in the order collected; and the group of every test, for the
    scheduler below (xdist's own way of passing groups on, through the test's id, no longer reaches it)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    groups = {item.nodeid: group for item in items if (group := group_of(item))}
    sizes = collections.Counter(groups.values())
    rank = {item.nodeid: (item.nodeid not in groups, groups.get(item.nodeid) != HEAVY,
                          -sizes[groups.get(item.nodeid)]) for item in items}
    items.sort(key=lambda item: rank[item.nodeid])
    shared = _groups_file(os.environ["PYTEST_XDIST_TESTRUNUID"])
    mine = shared.with_name(f"{shared.name}.{os.environ['PYTEST_XDIST_WORKER']}")
    LOCKS.mkdir(exist_ok=True)
    mine.write_text(json.dumps(groups))
    mine.replace(shared)  # every process collects the same tests: any one's file will do


def pytest_configure(config):
    if config.getoption("dist", "no") == "loadgroup" and config.getoption("testrunuid", "") is None:
        config.option.testrunuid = uuid.uuid4().hex  # named here, so the scheduler can find the groups' file
        config.option.loadscopereorder = False  # the order is the one set above


def pytest_unconfigure(config):
    if not os.environ.get("PYTEST_XDIST_WORKER") and config.getoption("testrunuid", None):
        _groups_file(config.option.testrunuid).unlink(missing_ok=True)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """xdist's loadgroup scheduling, reading each test's group from the file the test processes wrote."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class ByGroup(LoadGroupScheduling):
        groups: dict | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                try:
                    self.groups = json.loads(_groups_file(config.option.testrunuid).read_text())
                except FileNotFoundError:  # no test process loaded this file (tests/ not collected): xdist's own groups
                    self.groups = {}
            group = self.groups.get(nodeid)
            return f"group {group}" if group else super()._split_scope(nodeid)

    return ByGroup(config, log)


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


def csrf_in(page: str) -> str:
    """The CSRF token a page of the table carries in its head, as its scripts read it."""
    import re

    return re.search(r'name="csrf-token" content="([^"]+)"', page)[1]


def as_owner(client, table) -> str:
    """Open an owner's session on `client` with `table`'s setup code, as an owner does (setup reopened first when
    it is closed); returns the session's CSRF token."""
    
    code = table.first_run.code or table.first_run.reopen()
    page = client.get("/setup/").get_data(as_text=True)
    csrf = csrf_in(page)
    assert client.post("/api/setup/code", json={"code": code}, headers={"X-CSRF-Token": csrf}).status_code == 200
    return csrf


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


def installed_table(folder: Path, *, more: str = "", mock_pins: bool = False, **options):
    """A table as the installer leaves it: docs/config.example.toml (not set up yet, so its setup code is open), its
    database in `folder`, then `more` config text; mock pins, a clock moved by hand. `options` go to Table
    (keeping=...); `mock_pins` also says so in the file, as a table tried before its wiring is done."""
    from companion.clock import FakeClock
    from companion.config import load_or_fresh
    from companion.hardware.mock import mock_pin_factory
    from companion.records import Store
    from companion.table import Table

    text = (ROOT / "docs" / "config.example.toml").read_text(encoding="utf-8")
    text = text.replace("/var/lib/companion/companion.sqlite3", str(folder / "db.sqlite3")) + more
    if mock_pins:
        text = text.replace("mock_pins = false", "mock_pins = true")
    (folder / "config.toml").write_text(text, encoding="utf-8")
    config = load_or_fresh(folder / "config.toml")
    return Table(config, Store(config.database), mock_pin_factory(), clock=options.pop("clock", FakeClock()),
                 **options)


@pytest.fixture
def client(table):
    """A test client of the web on `table` (the demo table, or the table a module's own fixture builds)."""
    from companion.web import create_app

    return create_app(table, testing=True).test_client()
