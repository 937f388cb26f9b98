"""A real Mosquitto broker per test (Debian's mosquitto, a config file written by the test), and a listener.

Without mosquitto these tests are skipped, saying why; with
COMPANION_REQUIRE_TOOLS=1 (as in CI) they fail instead.
"""

import json
import os
import threading

import paho.mqtt.client as mqtt
import pytest

from companion.mqtt.mosquitto import Mosquitto, mosquitto_missing

WAIT_S = 10.0  # how long a test waits for a message that must come


def need_mosquitto() -> None:
    reason = mosquitto_missing()
    if reason:
        if os.environ.get("COMPANION_REQUIRE_TOOLS") == "1":
            pytest.fail(f"tools required (COMPANION_REQUIRE_TOOLS=1) but {reason}")
        pytest.skip(reason)


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
