"""Home Assistant discovery: the config messages use only keys its MQTT discovery knows, and their templates work."""

import json
import re

import jinja2
import pytest

from mqtt_support import listen, mosquitto, play_to_a_win  # noqa: F401  (fixtures)
from companion import __version__
from companion.mqtt.bridge import Bridge
from companion.mqtt.discovery import PROGRESS_ENTITIES, discovery_messages, progress_payload
from companion.mqtt.settings import from_url
from companion.mqtt.topics import Topics
from companion.skyrockets.colours import COLOURS

# The configuration variables of Home Assistant's MQTT sensor and binary sensor (full names, as its
# discovery accepts them besides their abbreviations), its device keys, and the classes and units used.
COMMON_KEYS = {"name", "unique_id", "device", "availability_topic", "availability", "availability_mode",
               "availability_template", "payload_available", "payload_not_available", "json_attributes_topic",
               "json_attributes_template", "icon", "entity_category", "enabled_by_default", "default_entity_id",
               "qos", "encoding", "state_topic", "value_template", "device_class", "entity_picture", "origin"}
KEYS = {
    "sensor": COMMON_KEYS | {"unit_of_measurement", "state_class", "expire_after", "force_update",
                             "last_reset_value_template", "suggested_display_precision", "options"},
    "binary_sensor": COMMON_KEYS | {"payload_on", "payload_off", "off_delay", "expire_after", "force_update"},
}
DEVICE_KEYS = {"identifiers", "connections", "name", "manufacturer", "model", "model_id", "sw_version",
               "hw_version", "serial_number", "suggested_area", "via_device", "configuration_url"}
SENSOR_CLASSES = {"duration": {"d", "h", "min", "s", "ms"}, "enum": set()}
BINARY_CLASSES = {"problem", "running", "safety"}
STATE_CLASSES = {"measurement", "total", "total_increasing"}
TOPIC = re.compile(r"homeassistant/(sensor|binary_sensor)/[a-zA-Z0-9_-]+/[a-zA-Z0-9_-]+/config")

TOPICS = Topics("companion", "t1")
MESSAGES = discovery_messages(TOPICS, __version__, progress=True)
PROGRESS_IDS = {f"companion_t1_{object_id}" for _, object_id, _ in PROGRESS_ENTITIES}


@pytest.mark.parametrize("topic", sorted(MESSAGES))
def test_each_config_uses_only_keys_home_assistant_knows(topic):
    config = MESSAGES[topic]
    component = TOPIC.fullmatch(topic)[1]
    assert set(config) <= KEYS[component], set(config) - KEYS[component]
    assert set(config["device"]) <= DEVICE_KEYS
    wanted = TOPICS.progress if config["unique_id"] in PROGRESS_IDS else TOPICS.state
    assert config["state_topic"] == wanted and config["availability_topic"] == TOPICS.availability
    assert (config["payload_available"], config["payload_not_available"]) == ("online", "offline")
    if component == "sensor":
        unit, device_class = config.get("unit_of_measurement"), config.get("device_class")
        if device_class == "enum":
            assert config["options"] and unit is None and "state_class" not in config
        elif device_class is not None:
            assert unit in SENSOR_CLASSES[device_class]
        assert config.get("state_class", "measurement") in STATE_CLASSES
    else:
        assert config["device_class"] in BINARY_CLASSES


def test_one_device_per_table_and_unique_ids_across_tables():
    other = discovery_messages(Topics("companion", "t2"), "0.1.0", progress=True)
    ids = [c["unique_id"] for c in [*MESSAGES.values(), *other.values()]]
    assert len(ids) == len(set(ids)) == 2 * (3 + 2 * len(COLOURS) + len(PROGRESS_ENTITIES))
    assert len({json.dumps(c["device"]) for c in MESSAGES.values()}) == 1


def render(template: str, state: dict) -> str:
    return jinja2.Environment().from_string(template).render(value_json=state).strip()


def test_the_templates_read_the_published_state(table, clock):
    by_id = {config["unique_id"].removeprefix("companion_t1_"): config for config in MESSAGES.values()}
    idle = table.desk.snapshot()
    assert render(by_id["outcome"]["value_template"], idle) == "idle"
    assert render(by_id["countdown"]["value_template"], idle) == "None"  # unknown between shows
    assert render(by_id["red_low"]["value_template"], idle) == "OFF"

    table.desk.start_show("training")
    clock.advance(21.0)  # red (30 s) has 9 s left, inside the 10 s warning
    table.pump()
    running = table.desk.snapshot()
    assert render(by_id["outcome"]["value_template"], running) == "running"
    assert render(by_id["countdown"]["value_template"], running) == "4"
    assert render(by_id["crowd_tokens"]["value_template"], running) == "0"
    assert float(render(by_id["red_sand"]["value_template"], running)) == running["timers"]["red"]["top_s"]
    assert render(by_id["red_low"]["value_template"], running) == "ON"
    assert render(by_id["purple_low"]["value_template"], running) == "OFF"
    assert render(by_id["outcome"]["value_template"], running) in by_id["outcome"]["options"]


def test_the_campaign_sensors_read_the_progress_topic(table, clock):
    """Stars and events won as the progress figures count them: a won training show is one event won."""
    from mqtt_support import play_to_a_win

    by_id = {config["unique_id"].removeprefix("companion_t1_"): config for config in MESSAGES.values()}
    before = progress_payload(table.progress.campaign())
    assert render(by_id["campaign_stars"]["value_template"], before) == "0"
    table.desk.start_show("training")
    play_to_a_win(table, clock)
    table.journal.flush()
    after = progress_payload(table.progress.campaign())
    stars = table.ledger.shows()[0]["stars"]
    assert table.ledger.shows()[0]["outcome"] == "win" and stars >= 1
    assert render(by_id["campaign_stars"]["value_template"], after) == str(stars)
    assert render(by_id["events_won"]["value_template"], after) == "1"


def test_the_bridge_publishes_the_configs_retained(table, mosquitto, listen):
    bridge = Bridge(table, from_url(mosquitto.url, table="t1")).start()
    try:
        listen(mosquitto.port, "companion/t1/availability").wait_for(lambda l: l.on("companion/t1/availability"))
        late = listen(mosquitto.port, "homeassistant/#")
        late.wait_for(lambda l: len(l.messages) == len(MESSAGES))
        assert {t: json.loads(p) for t, p, retained in late.messages if retained} == MESSAGES
    finally:
        bridge.stop()


BY_ID = {config["unique_id"].removeprefix("companion_t1_"): config for config in MESSAGES.values()}
LOW = [f"{colour}_low" for colour in COLOURS]


def last_state(listener, predicate) -> dict:
    """The newest state the broker carried once one satisfies `predicate`."""
    listener.wait_for(lambda l: any(predicate(json.loads(p)) for p in l.on("companion/t1/state")[-1:]))
    return json.loads(listener.on("companion/t1/state")[-1])


@pytest.mark.parametrize("ending", ["win", "loss"])
def test_no_glass_reads_running_low_once_the_show_is_over(table, clock, mosquitto, listen, ending):
    bridge = Bridge(table, from_url(mosquitto.url, table="t1"), backoff=(0.05, 0.2)).start()
    try:
        watcher = listen(mosquitto.port, "companion/t1/state")
        table.desk.start_show("training")
        if ending == "win":
            play_to_a_win(table, clock)
        else:
            clock.advance(81.0)  # red, yellow, then red again run out
            table.pump()
        over = last_state(watcher, lambda state: state["outcome"] == ending)
        assert render(BY_ID["outcome"]["value_template"], over) == ending
        # The last state still holds the glasses as they stood: running, and (a loss) one with less sand on top
        # than the warning (run dry: empty, never "running" with 0 s on top).
        timers = over["timers"].values()
        assert any(t["state"] == "running" for t in timers)
        if ending == "loss":
            assert any(t["state"] == "empty" and t["top_s"] <= over["warn_lead_s"] for t in timers)
            assert not any(t["state"] == "running" and t["top_s"] == 0 for t in timers)
        assert [render(BY_ID[low]["value_template"], over) for low in LOW] == ["OFF"] * len(LOW)

        table.desk.abort()  # dismissed: nothing was aborted, the table is idle
        idle = last_state(watcher, lambda state: state["outcome"] == "idle"
                          and state.get("last_show", {}).get("outcome") == ending)
        assert render(BY_ID["outcome"]["value_template"], idle) == "idle"
    finally:
        bridge.stop()


def test_the_show_entity_reads_aborted_from_an_abort_until_the_next_start(table, clock, mosquitto, listen):
    bridge = Bridge(table, from_url(mosquitto.url, table="t1"), backoff=(0.05, 0.2)).start()
    try:
        watcher = listen(mosquitto.port, "companion/t1/state")
        table.desk.start_show("training")
        clock.advance(5.0)
        table.pump()
        table.desk.abort()
        aborted = last_state(watcher, lambda state: "last_show" in state)
        assert aborted["outcome"] == "idle"  # the table's own state, plus the show that ended last
        assert aborted["last_show"] == {"id": table.ledger.shows()[0]["id"], "outcome": "aborted"}
        assert render(BY_ID["outcome"]["value_template"], aborted) == "aborted"
        assert render(BY_ID["outcome"]["value_template"], aborted) in BY_ID["outcome"]["options"]
        assert [render(BY_ID[low]["value_template"], aborted) for low in LOW] == ["OFF"] * len(LOW)
    finally:
        bridge.stop()

    again = Bridge(table, from_url(mosquitto.url, table="t1"), backoff=(0.05, 0.2)).start()  # a restarted bridge
    try:
        late = listen(mosquitto.port, "companion/t1/state")
        table.desk.set_muted(True)  # a change while idle: still the aborted show's aftermath
        retained = last_state(late, lambda state: state.get("muted") is True)
        assert render(BY_ID["outcome"]["value_template"], retained) == "aborted"
        table.desk.start_show("training")
        running = last_state(late, lambda state: state["outcome"] == "running")
        assert render(BY_ID["outcome"]["value_template"], running) == "running"
    finally:
        again.stop()
