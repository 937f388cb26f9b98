"""A real Home Assistant 2024.3 reads a table's discovery: its entities, unique ids, availability and states.

Home Assistant runs from a venv of its own (it pins far more than the
companion does): COMPANION_HOME_ASSISTANT names that venv's python, as
.ci/run sets it. Without it the test is skipped, saying why; with
COMPANION_REQUIRE_TOOLS=1 (as in CI) it fails instead.

Home Assistant sets MQTT up only from a config entry, so the test writes one
into a fresh config folder, as adding the integration in its UI would. What
Home Assistant makes of each entity comes back over the broker from its own
MQTT Statestream integration (`hass/<domain>/<object id>/state`, retained,
so nothing is missed however late the test subscribes), so the test waits
for messages, as the other broker tests do; the entity and device
registries are read once Home Assistant has stopped and saved them.
"""

import json
import os
import re
import signal
import subprocess

import pytest
from mqtt_support import listen, mosquitto  # noqa: F401  (fixtures)

from companion import __version__
from companion.mqtt.bridge import Bridge
from companion.mqtt.discovery import discovery_messages, node_id
from companion.mqtt.mosquitto import free_port
from companion.mqtt.settings import from_url
from companion.mqtt.topics import Topics
from companion.skyrockets.colours import COLOURS

PYTHON_VARIABLE = "COMPANION_HOME_ASSISTANT"
STARTUP_S = 120.0  # a cold start on a busy machine, up to every entity of the table in its state machine
CHANGE_S = 20.0  # a table's change, through the broker and Home Assistant, back to the test
STOP_S = 60.0  # a clean stop saves the registries
STATESTREAM = "hass"
TABLE = Topics("companion", "t1")
MESSAGES = discovery_messages(TABLE, __version__)
# Home Assistant's own notice that the machine is slow, not a fault of what it was given.
SLOW_NOTICE = "is taking over"

# A Home Assistant start, like a booted Debian, is heavy: the two run one after the other on one test process.
pytestmark = pytest.mark.xdist_group("heavy")


def need_home_assistant() -> str:
    """The python of the venv Home Assistant is installed in; skips (or fails, if required) without one."""
    python = os.environ.get(PYTHON_VARIABLE, "")
    reason = None
    if not python:
        reason = f"{PYTHON_VARIABLE} does not name the python of a venv with homeassistant (.ci/run makes one)"
    elif not os.access(python, os.X_OK):
        reason = f"{PYTHON_VARIABLE}={python} is not an executable python"
    if reason:
        if os.environ.get("COMPANION_REQUIRE_TOOLS") == "1":
            pytest.fail(f"tools required (COMPANION_REQUIRE_TOOLS=1) but {reason}")
        pytest.skip(reason)
    return python


def entity_id(component: str, config: dict) -> str:
    """The entity id Home Assistant gives an entity: its device's name and its own, as a slug."""
    slug = re.sub(r"[^a-z0-9]+", "_", f"{config['device']['name']} {config['name']}".lower()).strip("_")
    return f"{component}.{slug}"


ENTITY_IDS = {config["unique_id"]: entity_id(topic.split("/")[1], config) for topic, config in MESSAGES.items()}
BY_OBJECT = {unique_id.removeprefix(f"{node_id(TABLE)}_"): eid for unique_id, eid in ENTITY_IDS.items()}


class HomeAssistant:
    """`hass` on a config folder of its own, joined to the broker on `port`, with no onboarding."""

    def __init__(self, python: str, folder, port: int):
        self.python, self.folder, self.port = python, folder, port
        self.log, self.console = folder / "home-assistant.log", folder / "console.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> "HomeAssistant":
        storage = self.folder / ".storage"
        storage.mkdir(parents=True)
        (self.folder / "configuration.yaml").write_text(
            f"http:\n  server_host: 127.0.0.1\n  server_port: {free_port()}\n"
            f"mqtt_statestream:\n  base_topic: {STATESTREAM}\n")
        broker = {"entry_id": "companion0broker0entry0000000", "version": 1, "minor_version": 1, "domain": "mqtt",
                  "title": "127.0.0.1", "data": {"broker": "127.0.0.1", "port": self.port}, "options": {},
                  "pref_disable_new_entities": False, "pref_disable_polling": False, "source": "user",
                  "unique_id": None, "disabled_by": None}
        (storage / "core.config_entries").write_text(json.dumps(
            {"version": 1, "minor_version": 1, "key": "core.config_entries", "data": {"entries": [broker]}}))
        # --skip-pip: everything it needs is installed beforehand, so it never fetches anything itself.
        with open(self.console, "w") as console:
            self.process = subprocess.Popen(
                [self.python, "-m", "homeassistant", "--config", str(self.folder), "--skip-pip"],
                cwd=self.folder, stdout=console, stderr=subprocess.STDOUT)
        return self

    def stop(self) -> int | None:
        """Stop it as its service would (SIGTERM), so it saves its registries; its exit code."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"Home Assistant did not stop within {STOP_S:g} s; it printed:\n{self.tail()}")

    def registry(self, name: str) -> dict:
        return json.loads((self.folder / ".storage" / name).read_text())["data"]

    def problems(self) -> list[str]:
        """Its log's warnings and errors about MQTT or the table (each line that starts one)."""
        text = self.log.read_text() if self.log.exists() else ""
        return [line for line in text.splitlines()
                if re.match(r"\S+ \S+ (WARNING|ERROR|CRITICAL) ", line) and SLOW_NOTICE not in line
                and re.search(r"mqtt|companion|hourglass", line, re.IGNORECASE)]

    def tail(self) -> str:
        """The end of what it printed: its log, and what went wrong before its log was set up."""
        return "\n".join(self.console.read_text().splitlines()[-40:]) if self.console.exists() else "(not started)"


@pytest.fixture
def home_assistant(tmp_path, mosquitto):
    """Home Assistant on the test's broker, started by the test, stopped (if still running) afterwards."""
    hass = HomeAssistant(need_home_assistant(), tmp_path / "home-assistant", mosquitto.port)
    yield hass
    hass.stop()


class States:
    """What Home Assistant says each entity is, as its statestream publishes it, by the entity's object id."""

    def __init__(self, listener, hass: HomeAssistant):
        self.listener, self.hass = listener, hass

    def now(self) -> dict[str, str]:
        seen = {}
        for topic, payload, _ in list(self.listener.messages):
            parts = topic.split("/")
            if len(parts) == 4 and parts[3] == "state":
                seen[f"{parts[1]}.{parts[2]}"] = payload.decode()
        return {name: seen[eid] for name, eid in BY_OBJECT.items() if eid in seen}

    def wait_for(self, expected: dict[str, str], timeout: float = CHANGE_S) -> None:
        """Wait until every entity shows its expected state; fails, with the log's tail, after `timeout`."""
        try:
            self.listener.wait_for(lambda _: self.now() == expected, timeout)
        except AssertionError:
            raise AssertionError(f"Home Assistant did not show {expected} within {timeout:g} s: {self.now()}\n"
                                 f"it printed:\n{self.hass.tail()}") from None


def every(value: str) -> dict[str, str]:
    return dict.fromkeys(BY_OBJECT, value)


@pytest.mark.timeout(STARTUP_S + 5 * CHANGE_S + STOP_S)  # its waits, each with its own deadline
def test_home_assistant_makes_each_entity_of_a_table_and_follows_its_state_and_availability(
        table, clock, mosquitto, listen, home_assistant):
    states = States(listen(mosquitto.port, f"{STATESTREAM}/#"), home_assistant)
    settings = from_url(mosquitto.url, table=TABLE.table)
    bridge = Bridge(table, settings, backoff=(0.05, 0.2)).start()  # the table is up before Home Assistant
    home_assistant.start()
    try:
        # Between shows there is no countdown, no crowd and no sand: unknown, and no glass is low.
        between = {**every("unknown"), **{f"{c}_low": "off" for c in COLOURS}}
        states.wait_for({**between, "outcome": "idle"}, STARTUP_S)

        table.start_show("training")
        clock.advance(20.0)
        table.pump()
        shown = table.snapshot()
        timers = shown["timers"]
        # Red runs low first: its sand on top is within the warning time, while the show runs.
        assert shown["outcome"] == "running" and timers["red"]["state"] == "running"
        assert [c for c in COLOURS if timers[c]["top_s"] <= shown["warn_lead_s"]] == ["red"]
        running = {"outcome": "running", "countdown": str(shown["countdown"]["position"]),
                   "crowd_tokens": str(shown["crowd_tokens_turned"]),
                   **{f"{c}_sand": str(timers[c]["top_s"]) for c in COLOURS},
                   **{f"{c}_low": "on" if c == "red" else "off" for c in COLOURS}}
        states.wait_for(running)

        bridge.stop()  # the table goes offline, and every one of its entities with it
        states.wait_for(every("unavailable"))
        bridge = Bridge(table, settings, backoff=(0.05, 0.2)).start()
        states.wait_for(running)
        table.abort()
        states.wait_for({**between, "outcome": "aborted"})
    finally:
        bridge.stop()

    assert home_assistant.stop() == 0
    entities = [e for e in home_assistant.registry("core.entity_registry")["entities"] if e["platform"] == "mqtt"]
    assert len(entities) == 3 + 2 * len(COLOURS)  # as docs/hall.md lists them: three, and two for each glass
    assert {e["unique_id"]: e["entity_id"] for e in entities} == ENTITY_IDS
    devices = [d for d in home_assistant.registry("core.device_registry")["devices"]
               if ["mqtt", f"companion_{TABLE.table}"] in d["identifiers"]]
    assert len(devices) == 1 and {e["device_id"] for e in entities} == {devices[0]["id"]}
    assert (devices[0]["name"], devices[0]["sw_version"]) == (f"Hourglass table {TABLE.table}", __version__)
    assert home_assistant.problems() == []
