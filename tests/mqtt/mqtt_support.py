"""A real Mosquitto broker per test (Debian's mosquitto, a config file written by the test), a listener, and
a table to play on it: to a win, or with records that lag its state.

Without mosquitto these tests are skipped, saying why; with
COMPANION_REQUIRE_TOOLS=1 (as in CI) they fail instead.
"""

import dataclasses
import json
import threading

import paho.mqtt.client as mqtt
import pytest

from companion.mqtt.mosquitto import Mosquitto, mosquitto_missing
from conftest import cannot_run

WAIT_S = 10.0  # how long a test waits for a message that must come


def need_mosquitto() -> None:
    cannot_run(mosquitto_missing())


@pytest.fixture
def mosquitto(tmp_path):
    """A fresh broker on a free port of 127.0.0.1 (anonymous, no persistence)."""
    need_mosquitto()
    broker = Mosquitto(tmp_path / "broker").start()
    yield broker
    broker.stop()


class Listener:
    """Every message on the broker under `topic`, as a test sees it (retained ones flagged)."""

    def __init__(self, port: int, topic: str = "#", **tls):
        self.messages: list[tuple[str, bytes, bool]] = []
        self._changed = threading.Condition()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = self._on_message
        self.client.on_connect = lambda c, u, f, rc, p=None: c.subscribe(topic, qos=1)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_message(self, client, userdata, message) -> None:
        with self._changed:
            self.messages.append((message.topic, message.payload, bool(message.retain)))
            self._changed.notify_all()

    def on(self, topic: str) -> list[bytes]:
        with self._changed:
            return [payload for t, payload, _ in self.messages if t == topic]

    def wait_for(self, predicate, timeout: float = WAIT_S):
        """The first true value of predicate(self), waiting for messages; fails after `timeout`."""
        with self._changed:
            found = self._changed.wait_for(lambda: predicate(self), timeout)
        assert found, f"not seen within {timeout} s; got {[t for t, _, _ in self.messages][-20:]}"
        return found

    def last_json(self, topic: str):
        payloads = self.on(topic)
        return json.loads(payloads[-1]) if payloads else None

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def listen():
    """listen(port, topic="#") -> a Listener, closed after the test."""
    opened = []

    def start(port: int, topic: str = "#") -> Listener:
        opened.append(Listener(port, topic))
        return opened[-1]

    yield start
    for listener in opened:
        listener.close()


def play_to_a_win(table, clock) -> None:
    """Turn each glass before it runs out and the countdown once it is empty, a second at a time."""
    from companion.skyrockets.snapshot import carried

    for _ in range(400):
        state = carried(table.desk.snapshot(), table.desk.show_time())
        if state["outcome"] != "running":
            return
        for colour in ("red", "yellow", "purple"):
            if state["timers"][colour]["top_s"] < 4:
                table.desk.flip(colour)
        if state["timers"]["orange"]["state"] == "empty":
            table.desk.flip("orange")
        clock.advance(1.0)
        table.pump()


class LaggingRecords:
    """The table as a bridge reads it, with its past shows read as they stood at `lag()` for a while.

    The table publishes a state before its journal's writer records the
    show that state ended, so a reader may see the state first; this makes
    that moment as long as a test needs: the records stay behind until they
    have been read `looks` times while the table's state was newer than at
    `lag()` (None: until `catch_up()`).
    """

    def __init__(self, table):
        self.table = table
        self.ports = dataclasses.replace(table.ports, ledger=self)  # the bridge reads its records through this
        self._changed = threading.Condition()
        self._frozen: list[dict] | None = None
        self._mark = self._looked = 0
        self._looks: int | None = None

    def __getattr__(self, name):
        return getattr(self.table.ledger, name)

    def lag(self, looks: int | None = 1) -> None:
        with self._changed:
            self._frozen, self._mark = self.table.ledger.shows(), self.table.desk.snapshot()["seq"]
            self._looked, self._looks = 0, looks

    def catch_up(self) -> None:
        with self._changed:
            self._frozen = None

    def shows(self) -> list[dict]:
        with self._changed:
            frozen = self._frozen
            if frozen is None:
                return self.table.ledger.shows()
            if self.table.desk.snapshot()["seq"] > self._mark:
                self._looked += 1
                self._changed.notify_all()
                if self._looks is not None and self._looked >= self._looks:
                    self._frozen = None
            return frozen

    def wait_until_looked(self, timeout: float = WAIT_S) -> None:
        """Wait until the records have been read (as they stood) since the table's state changed."""
        with self._changed:
            assert self._changed.wait_for(lambda: self._looked > 0, timeout), "the records were not read"
