"""What keeps the suite's parallel test processes apart (tests/conftest.py)."""

import os
import subprocess
import sys

from conftest import LOCKS, ROOT, free_port

HOLDS = """
import fcntl, sys
with open(sys.argv[1], "a") as lease:
    try:
        fcntl.flock(lease, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print("held elsewhere")
    else:
        print("free")
"""


def test_a_port_handed_to_a_test_stays_leased_to_its_process():
    first, second = free_port(), free_port()
    assert first != second
    for port in (first, second):
        seen = subprocess.run([sys.executable, "-c", HOLDS, str(LOCKS / f"port-{port}")], capture_output=True,
                              text=True, timeout=30)
        assert seen.stdout.strip() == "held elsewhere", seen.stderr


def test_the_broker_takes_its_port_from_the_lease():
    import companion.mqtt.mosquitto

    assert companion.mqtt.mosquitto.free_port is free_port


SHARED = """
import os
import pytest

@pytest.fixture(scope="module")
def made_once():
    return os.getpid()

@pytest.mark.parametrize("n", range(8))
def test_shares_a_module_fixture(made_once, n, record):
    record("module", made_once)

@pytest.mark.xdist_group("named")
@pytest.mark.parametrize("n", range(8))
def test_in_a_named_group(n, record):
    record("named", 0)

@pytest.mark.parametrize("n", range(8))
def test_alone(n, record):
    record("alone", 0)
"""
RECORD = """
import os
import pytest

@pytest.fixture
def record():
    def write(kind, made_in):
        with open(os.environ["RECORD"], "a") as log:
            log.write(f"{kind} {os.getpid()} {made_in}\\n")
    return write
"""


def test_a_parallel_run_keeps_each_group_on_one_process(tmp_path):
    """A module's tests that share a fixture made once per module, and the tests of one xdist_group,
    each run on one process; the rest spread over all of them."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text() + RECORD)
    (suite / "test_groups.py").write_text(SHARED)
    log = tmp_path / "record.log"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                           "-n", "2", "--dist", "loadgroup", "--rootdir", str(suite), str(suite)],
                          cwd=suite, capture_output=True, text=True, timeout=300,
                          env={**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")},
                               "RECORD": str(log)})  # a run of its own, though this test may be in a parallel one
    assert done.returncode == 0, done.stdout + done.stderr
    runs = [line.split() for line in log.read_text().splitlines()]
    processes = {kind: {pid for k, pid, _ in runs if k == kind} for kind in ("module", "named", "alone")}
    assert len(runs) == 24
    assert len(processes["module"]) == 1 and {made for k, _, made in runs if k == "module"} == processes["module"]
    assert len(processes["named"]) == 1
    assert len(processes["module"] | processes["named"] | processes["alone"]) == 2  # both processes worked
