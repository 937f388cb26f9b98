"""What keeps the suite's parallel test processes apart (tests/conftest.py)."""

import subprocess
import sys

from conftest import LOCKS, free_port

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
