"""The systemd watchdog: fed while the runtime thread answers, starved while it hangs, over a real notify socket."""

import os
import re
import signal
import socket
import subprocess
import sys
import threading

import pytest

from companion.notify import keep_watchdog_fed
from conftest import ROOT, free_port

UNIT = ROOT / "systemd" / "companion.service"
WAIT_S = 20  # generous upper bounds for a busy machine; nothing waits this long when all is well


@pytest.fixture
def notify_socket(tmp_path, monkeypatch):
    """A unix datagram socket standing in for systemd's, named in NOTIFY_SOCKET."""
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    yield sock
    sock.close()


def received(sock, timeout=WAIT_S) -> str:
    sock.settimeout(timeout)
    return sock.recv(4096).decode()


def pending(sock) -> list[str]:
    """Every datagram already waiting, without waiting for more."""
    sock.setblocking(False)
    found = []
    try:
        while True:
            found.append(sock.recv(4096).decode())
    except BlockingIOError:
        return found


class Answers:
    """The health checks the feeder made, so a test can wait for the next ones instead of for time."""

    def __init__(self, check):
        self.check, self.results, self.changed = check, [], threading.Condition()

    def __call__(self) -> bool:
        result = self.check()
        with self.changed:
            self.results.append(result)
            self.changed.notify_all()
        return result

    def wait_for(self, count: int, value: bool) -> None:
        """Until `count` more checks have answered `value`, counted from now."""
        with self.changed:
            start = len(self.results)
            assert self.changed.wait_for(lambda: self.results[start:].count(value) >= count, timeout=WAIT_S)


def test_a_hung_runtime_thread_starves_the_watchdog_and_feeding_resumes_when_it_answers(
        table, notify_socket, monkeypatch):
    monkeypatch.setenv("WATCHDOG_USEC", "20000")  # a ping every 10 ms
    table.start()
    answers = Answers(lambda: table.alive(timeout=0.2))
    stop = threading.Event()
    feeder = keep_watchdog_fed(answers, stop)
    try:
        assert received(notify_socket) == "WATCHDOG=1"

        # Hang the runtime thread: a command that blocks until released.
        entered, release = threading.Event(), threading.Event()
        hung = threading.Thread(target=table.runtime.submit, args=(lambda: entered.set() or release.wait(WAIT_S),),
                                daemon=True)
        hung.start()
        assert entered.wait(WAIT_S)
        answers.wait_for(1, False)
        pending(notify_socket)  # a ping sent before the first unanswered check
        answers.wait_for(3, False)
        assert pending(notify_socket) == [], "no ping while the runtime thread hangs"

        release.set()
        hung.join(WAIT_S)
        assert received(notify_socket) == "WATCHDOG=1", "feeding resumes once the thread answers again"
    finally:
        stop.set()
        feeder.join(WAIT_S)
    assert not feeder.is_alive()


def test_the_feeder_pings_at_half_the_units_watchdog_interval(notify_socket, monkeypatch):
    seconds = int(re.search(r"^WatchdogSec=(\d+)$", UNIT.read_text(), re.M).group(1))
    monkeypatch.setenv("WATCHDOG_USEC", str(seconds * 1_000_000))  # what systemd passes for WatchdogSec=

    class OneTurn(threading.Event):
        """A stop event that records how long the feeder waits and lets it round the loop once."""

        def __init__(self):
            super().__init__()
            self.waits = []

        def wait(self, timeout=None):
            self.waits.append(timeout)
            return len(self.waits) > 1

    stop = OneTurn()
    keep_watchdog_fed(lambda: True, stop).join(WAIT_S)
    assert stop.waits == [seconds / 2, seconds / 2]
    assert received(notify_socket) == "WATCHDOG=1"


def test_outside_systemd_there_is_no_feeder(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    monkeypatch.setenv("WATCHDOG_USEC", "20000")
    assert keep_watchdog_fed(lambda: True, threading.Event()) is None


def test_the_unit_restarts_a_table_the_watchdog_gave_up_on():
    unit = UNIT.read_text()
    # A watchdog timeout is a failure to systemd: Restart=on-failure starts the table again.
    assert re.search(r"^Type=notify$", unit, re.M) and re.search(r"^Restart=on-failure$", unit, re.M)
    assert re.search(r"^NotifyAccess=main$", unit, re.M)


def test_the_daemon_says_ready_pings_and_says_stopping(notify_socket, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WATCHDOG_USEC": "200000"}
    process = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--port", str(free_port()), "--db",
                                str(tmp_path / "demo.sqlite3")], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert received(notify_socket) == "READY=1"
        assert received(notify_socket) == "WATCHDOG=1"
        process.send_signal(signal.SIGTERM)
        messages = [received(notify_socket)]
        while messages[-1] == "WATCHDOG=1":
            messages.append(received(notify_socket))
        assert messages[-1] == "STOPPING=1"
        assert process.wait(WAIT_S) == 0
    finally:
        process.kill()
        process.wait(WAIT_S)


def test_a_daemon_that_stops_tells_systemd_why_and_waits_until_it_has_read_it(notify_socket, monkeypatch):
    """STATUS= with the reason, then a barrier: the daemon leaves only once the fd it sent is closed."""
    import array

    from companion import notify
    from companion.notify import say_why_and_leave

    monkeypatch.setattr(notify, "BARRIER_S", 600.0)  # this test, not the clock, closes the barrier

    leaving = threading.Thread(target=say_why_and_leave, args=("companion run: no GPIO here",))
    leaving.start()
    assert received(notify_socket) == "STATUS=companion run: no GPIO here"
    fds = array.array("i")
    message, ancillary, _, _ = notify_socket.recvmsg(4096, socket.CMSG_SPACE(fds.itemsize))
    assert message == b"BARRIER=1"
    fds.frombytes(ancillary[0][2][:fds.itemsize])
    assert leaving.is_alive()  # still waiting for systemd (here: this test) to close the fd
    os.close(fds[0])
    leaving.join(WAIT_S)
    assert not leaving.is_alive()
