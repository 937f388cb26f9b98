"""A real Home Assistant 2024.3 reads a table's discovery: its entities, unique ids, availability and states
through a won show, a lost one and an abort.

Home Assistant runs from a venv of its own (it pins far more than the
companion does): COMPANION_HOME_ASSISTANT names that venv's python, as
.ci/run sets it. Without it the test is skipped, saying why; with
COMPANION_REQUIRE_TOOLS=1 (as in CI) it fails instead.

Home Assistant sets MQTT up only from a config entry, so the test writes one
into a fresh config folder, as adding the integration in its UI would. Once
Home Assistant has started (its MQTT birth message says so), the test
onboards it as a person would, through its HTTP API, and reads what Home
Assistant makes of each entity from its REST API (`/api/states`). It reads
them again each time Home Assistant's own MQTT Statestream integration
(`hass/<domain>/<object id>/state`) tells of a change, so it waits for
messages, as the other broker tests do, never for time; the Statestream's
messages also tell every state the Show entity went through, which an
automation would have seen. The entity and device registries are read once
Home Assistant has stopped and saved them.
"""

import json
import os
import re
import signal
import subprocess
import urllib.error
import urllib.parse
import urllib.request

import pytest
from mqtt_support import listen, mosquitto, play_to_a_win  # noqa: F401  (fixtures)

from companion import __version__
from companion.mqtt.bridge import Bridge
from companion.mqtt.discovery import PROGRESS_ENTITIES, discovery_messages, node_id
from companion.mqtt.mosquitto import free_port
from companion.mqtt.settings import from_url
from companion.mqtt.topics import Topics
from companion.skyrockets.colours import COLOURS
from conftest import cannot_run

PYTHON_VARIABLE = "COMPANION_HOME_ASSISTANT"
STARTUP_S = 120.0  # a cold start on a busy machine, up to every entity of the table in its state machine
CHANGE_S = 20.0  # a table's change, through the broker and Home Assistant, back to the test
STOP_S = 60.0  # a clean stop saves the registries
REQUEST_S = 10.0  # one request to its HTTP API
STATESTREAM = "hass"
BIRTH = ("homeassistant/status", b"online")  # its MQTT integration's birth message: it has started
TABLE = Topics("companion", "t1")
MESSAGES = discovery_messages(TABLE, __version__, progress=True)  # a table keeps its progress
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
    cannot_run(reason)
    return python


def entity_id(component: str, config: dict) -> str:
    """The entity id Home Assistant gives an entity: its device's name and its own, as a slug."""
    slug = re.sub(r"[^a-z0-9]+", "_", f"{config['device']['name']} {config['name']}".lower()).strip("_")
    return f"{component}.{slug}"


ENTITY_IDS = {config["unique_id"]: entity_id(topic.split("/")[1], config) for topic, config in MESSAGES.items()}
OBJECTS = {unique_id.removeprefix(f"{node_id(TABLE)}_"): eid for unique_id, eid in ENTITY_IDS.items()}
CAMPAIGN = {object_id for _kind, object_id, _config in PROGRESS_ENTITIES}  # read from the progress topic
BY_OBJECT = {name: eid for name, eid in OBJECTS.items() if name not in CAMPAIGN}  # those that follow the show


class HomeAssistant:
    """`hass` on a config folder of its own, joined to the broker on `port`, with no onboarding."""

    def __init__(self, python: str, folder, port: int):
        self.python, self.folder, self.port = python, folder, port
        self.log, self.console = folder / "home-assistant.log", folder / "console.log"
        self.process: subprocess.Popen | None = None
        self.http = f"http://127.0.0.1:{free_port()}"
        self.token: str | None = None

    def start(self) -> "HomeAssistant":
        storage = self.folder / ".storage"
        storage.mkdir(parents=True)
        (self.folder / "configuration.yaml").write_text(
            f"http:\n  server_host: 127.0.0.1\n  server_port: {urllib.parse.urlsplit(self.http).port}\n"
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

    def request(self, method: str, path: str, *, body: dict | None = None, form: dict | None = None):
        """One request to its HTTP API (with the access token, once signed in); the JSON it answers."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        elif form is not None:
            data, headers["Content-Type"] = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
        try:
            with urllib.request.urlopen(urllib.request.Request(self.http + path, data, headers, method=method),
                                        timeout=REQUEST_S) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as e:
            raise AssertionError(f"Home Assistant answered {method} {path} with {e.code}; it printed:\n"
                                 f"{self.tail()}") from None

    def sign_in(self) -> None:
        """Onboard it with its owner, as the first person to open its page does, and take an access token."""
        client = self.http + "/"
        code = self.request("POST", "/api/onboarding/users", body={
            "client_id": client, "name": "Table test", "username": "table", "password": "hourglass-table-test",
            "language": "en"})["auth_code"]
        self.token = self.request("POST", "/auth/token", form={
            "grant_type": "authorization_code", "code": code, "client_id": client})["access_token"]

    def states(self) -> dict[str, str]:
        """Every entity's state as its REST API gives it, by entity id."""
        return {entity["entity_id"]: entity["state"] for entity in self.request("GET", "/api/states")}

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
    """What Home Assistant says each of the table's entities is, by the entity's object id.

    Read from its REST API whenever its Statestream tells of a change (and
    once at first), so a wait ends as soon as the last change is in.
    """

    def __init__(self, listener, hass: HomeAssistant):
        self.listener, self.hass = listener, hass

    def now(self) -> dict[str, str]:
        states = self.hass.states()
        return {name: states[eid] for name, eid in BY_OBJECT.items() if eid in states}

    def streamed(self, name: str) -> list[str]:
        """Each state the entity went through, as its Statestream told it."""
        topic = f"{STATESTREAM}/{BY_OBJECT[name].replace('.', '/')}/state"
        seen = [payload.decode() for payload in self.listener.on(topic)]
        return [state for i, state in enumerate(seen) if i == 0 or state != seen[i - 1]]

    def wait_for(self, expected: dict[str, str], timeout: float = CHANGE_S) -> None:
        """Wait until every entity shows its expected state; fails, with the log's tail, after `timeout`."""
        try:
            self.listener.wait_for(lambda _: self.now() == expected, timeout)
        except AssertionError:
            raise AssertionError(f"Home Assistant did not show {expected} within {timeout:g} s: {self.now()}\n"
                                 f"it printed:\n{self.hass.tail()}") from None


def every(value: str) -> dict[str, str]:
    return dict.fromkeys(BY_OBJECT, value)


def reads_as(state: dict, show: str | None = None) -> dict[str, str]:
    """What each entity should read for one of the table's states (`show`: the Show entity, if not its outcome).

    Between shows there is no countdown, no crowd and no sand: unknown; a
    glass runs low only while the show runs.
    """
    timers = state.get("timers")
    if timers is None:
        return {**every("unknown"), **{f"{c}_low": "off" for c in COLOURS}, "outcome": show or state["outcome"]}
    low = {c for c in COLOURS if state["outcome"] == "running" and timers[c]["state"] == "running"
           and timers[c]["top_s"] <= state["warn_lead_s"]}
    return {"outcome": show or state["outcome"], "countdown": str(state["countdown"]["position"]),
            "crowd_tokens": str(state["crowd_tokens_turned"]),
            **{f"{c}_sand": str(timers[c]["top_s"]) for c in COLOURS},
            **{f"{c}_low": "on" if c in low else "off" for c in COLOURS}}


@pytest.mark.timeout(2 * STARTUP_S + 11 * CHANGE_S + STOP_S)  # its waits, each with its own deadline
def test_home_assistant_makes_each_entity_of_a_table_and_follows_its_state_and_availability(
        table, clock, mosquitto, listen, home_assistant):
    states = States(listen(mosquitto.port, f"{STATESTREAM}/#"), home_assistant)
    started = listen(mosquitto.port, BIRTH[0])
    settings = from_url(mosquitto.url, table=TABLE.table)
    bridge = Bridge(table, settings, backoff=(0.05, 0.2)).start()  # the table is up before Home Assistant
    home_assistant.start()
    try:
        started.wait_for(lambda l: BIRTH[1] in l.on(BIRTH[0]), STARTUP_S)
        home_assistant.sign_in()
        states.wait_for(reads_as(table.desk.snapshot()), STARTUP_S)  # idle

        table.desk.start_show("training")
        clock.advance(20.0)
        table.pump()
        shown = table.desk.snapshot()
        # Red runs low first: its sand on top is within the warning time, while the show runs.
        assert shown["outcome"] == "running" and shown["timers"]["red"]["state"] == "running"
        assert [c for c, t in shown["timers"].items() if t["top_s"] <= shown["warn_lead_s"]] == ["red"]
        running = reads_as(shown)
        assert [name for name, value in running.items() if value == "on"] == ["red_low"]
        states.wait_for(running)

        bridge.stop()  # the table goes offline, and every one of its entities with it
        states.wait_for(every("unavailable"))
        bridge = Bridge(table, settings, backoff=(0.05, 0.2)).start()
        states.wait_for(running)

        play_to_a_win(table, clock)  # the whole show
        won = table.desk.snapshot()
        assert won["outcome"] == "win" and won["stars"] > 0
        states.wait_for(reads_as(won))
        table.desk.abort()  # dismissed
        states.wait_for(reads_as(table.desk.snapshot()))

        table.desk.start_show("training")
        states.wait_for(reads_as(table.desk.snapshot()))
        clock.advance(81.0)  # red, yellow, then red again run out
        table.pump()
        assert table.desk.snapshot()["outcome"] == "loss"
        states.wait_for(reads_as(table.desk.snapshot()))
        table.desk.abort()
        states.wait_for(reads_as(table.desk.snapshot()))

        table.desk.start_show("training")
        clock.advance(5.0)
        table.pump()
        states.wait_for(reads_as(table.desk.snapshot()))
        table.desk.abort()
        states.wait_for(reads_as(table.desk.snapshot(), "aborted"))
        # The campaign's sensors read what the progress pages say, sent again as each show ended.
        campaign = table.progress.campaign()
        figures = {"campaign_stars": str(campaign["stars"]), "events_won": str(campaign["events_won"])}
        states.listener.wait_for(lambda _: {name: home_assistant.states().get(OBJECTS[name])
                                            for name in CAMPAIGN} == figures, CHANGE_S)
    finally:
        bridge.stop()

    # Each change once, as it should read: an automation on the Show entity sees no state in between.
    states.listener.wait_for(lambda _: states.streamed("outcome")[-1:] == ["aborted"], CHANGE_S)
    shown = states.streamed("outcome")
    assert shown[shown.index("idle"):] == ["idle", "running", "unavailable", "running", "win", "idle", "running",
                                           "loss", "idle", "running", "aborted"]  # from its start (unknown before)
    assert home_assistant.stop() == 0
    entities = [e for e in home_assistant.registry("core.entity_registry")["entities"] if e["platform"] == "mqtt"]
    # As docs/hall.md lists them: three, two for each glass, and the campaign's progress.
    assert len(entities) == 3 + 2 * len(COLOURS) + len(PROGRESS_ENTITIES)
    assert {e["unique_id"]: e["entity_id"] for e in entities} == ENTITY_IDS
    devices = [d for d in home_assistant.registry("core.device_registry")["devices"]
               if ["mqtt", f"companion_{TABLE.table}"] in d["identifiers"]]
    assert len(devices) == 1 and {e["device_id"] for e in entities} == {devices[0]["id"]}
    assert (devices[0]["name"], devices[0]["sw_version"]) == (f"Hourglass table {TABLE.table}", __version__)
    assert home_assistant.problems() == []
