"""Home Assistant MQTT discovery: the config messages that make a table appear without any YAML.

Each entity reads the table's retained state topic with a value template,
shares the table's availability topic, and belongs to one device per table.

>>> messages = discovery_messages(Topics("companion", "t1"), "0.1.0")
>>> sorted(messages)[0]
'homeassistant/binary_sensor/companion_t1/blue_low/config'
>>> messages['homeassistant/sensor/companion_t1/outcome/config']['unique_id']
'companion_t1_outcome'
"""

from companion.mqtt.topics import OFFLINE, ONLINE, Topics
from companion.skyrockets.colours import COLOURS

PREFIX = "homeassistant"
OUTCOMES = ("idle", "running", "win", "loss", "aborted")


def _when_running(expression: str) -> str:
    # Between shows the state has no countdown or glasses: the entity is then unknown, not an error.
    return f"{{{{ {expression} if value_json.timers is defined else None }}}}"


# The table's state says `idle` from the moment a show is aborted; the bridge adds the show that ended
# last (`last_show`), so the Show entity reads `aborted` until the next show starts.
SHOW_TEMPLATE = ("{{ 'aborted' if value_json.outcome == 'idle' and value_json.last_show is defined "
                 "and value_json.last_show.outcome == 'aborted' else value_json.outcome }}")


def _entities() -> list[tuple[str, str, dict]]:
    """(component, object id, the entity's own keys) for every entity of a table."""
    found = [
        ("sensor", "outcome", {"name": "Show", "device_class": "enum", "options": list(OUTCOMES),
                               "value_template": SHOW_TEMPLATE, "icon": "mdi:rocket-launch"}),
        ("sensor", "countdown", {"name": "Countdown position", "state_class": "measurement",
                                 "value_template": _when_running("value_json.countdown.position"),
                                 "icon": "mdi:map-marker-path"}),
        ("sensor", "crowd_tokens", {"name": "Crowd tokens turned", "state_class": "measurement",
                                    "value_template": _when_running("value_json.crowd_tokens_turned"),
                                    "icon": "mdi:account-group"}),
    ]
    for colour in COLOURS:
        timer = f"value_json.timers.{colour}"
        found.append(("sensor", f"{colour}_sand", {
            "name": f"{colour.capitalize()} sand on top", "device_class": "duration", "unit_of_measurement": "s",
            "state_class": "measurement", "suggested_display_precision": 0,
            "value_template": _when_running(f"{timer}.top_s")}))
        # Only while the show runs: a won or lost show's last state still holds its glasses as they stood.
        found.append(("binary_sensor", f"{colour}_low", {
            "name": f"{colour.capitalize()} running low", "device_class": "problem",
            "payload_on": "ON", "payload_off": "OFF",
            "value_template": (f"{{{{ 'ON' if value_json.outcome == 'running' and value_json.timers is defined "
                               f"and {timer}.state == 'running' and {timer}.top_s <= value_json.warn_lead_s "
                               f"else 'OFF' }}}}")}))
    return found


# The campaign's progress, read from the table's progress topic (companion.progress.campaign).
PROGRESS_ENTITIES = [
    ("sensor", "campaign_stars", {"name": "Campaign stars", "state_class": "measurement",
                                  "value_template": "{{ value_json.campaign_stars }}", "icon": "mdi:star"}),
    ("sensor", "events_won", {"name": "Campaign events won", "state_class": "measurement",
                              "value_template": "{{ value_json.events_won }}", "icon": "mdi:flag-checkered"}),
]


def progress_payload(campaign: dict) -> dict:
    """What the progress topic carries: the campaign's stars and events won, of how many.

    >>> progress_payload({"stars": 4, "max_stars": 90, "events_won": 2, "events": 30, "festivals": []})
    {'campaign_stars': 4, 'max_stars': 90, 'events_won': 2, 'events': 30}
    """
    return {"campaign_stars": campaign["stars"], "max_stars": campaign["max_stars"],
            "events_won": campaign["events_won"], "events": campaign["events"]}


def node_id(topics: Topics) -> str:
    return f"companion_{topics.table}"


def discovery_messages(topics: Topics, version: str, *, progress: bool = False) -> dict[str, dict]:
    """Topic → retained config payload for each of the table's entities (`progress`: the campaign's too)."""
    node = node_id(topics)
    device = {"identifiers": [node], "name": f"Hourglass table {topics.table}",
              "manufacturer": "Hourglass table companion", "model": "Skyrockets table", "sw_version": version}
    messages = {}
    entities = [(entity, topics.state) for entity in _entities()]
    entities += [(entity, topics.progress) for entity in PROGRESS_ENTITIES] if progress else []
    for (component, object_id, own), state_topic in entities:
        messages[f"{PREFIX}/{component}/{node}/{object_id}/config"] = {
            **own, "unique_id": f"{node}_{object_id}",
            "state_topic": state_topic, "availability_topic": topics.availability,
            "payload_available": ONLINE, "payload_not_available": OFFLINE,
            "qos": 1, "device": device,
        }
    return messages
