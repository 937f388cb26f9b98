import pytest

from companion.errors import BadInput
from companion.skyrockets.events import TRAINING, parse_event


def test_training_event_is_built_in():
    assert parse_event("training") is TRAINING
    assert TRAINING.hand_size == 4 and TRAINING.countdown == "orange" and TRAINING.countdown_start == 4
    assert TRAINING.running == ("red", "orange", "yellow", "purple")
    assert TRAINING.lying == ("green", "blue")


def test_inline_event_with_defaults_and_colour_order():
    e = parse_event({"id": "x", "countdown": "blue", "running": ["blue", "red"]})
    assert e.name == "x" and e.hand_size == 4 and e.countdown_start == 4 and e.lying == () and e.rules == ""
    assert e.running == ("red", "blue")
    assert parse_event(e.to_json()) == e


def test_challenge_swaps_roles_and_starting_states():
    e = parse_event({"id": "x", "countdown": "green", "running": ["green", "red"], "lying": ["blue"]})
    c = e.challenged()
    assert c.countdown == "blue"
    assert c.running == ("red", "blue") and c.lying == ("green",)
    both_running = TRAINING.challenged()
    assert both_running.countdown == "yellow" and both_running.running == TRAINING.running
    out_of_play = parse_event({"id": "x", "countdown": "red", "running": ["red"]}).challenged()
    assert out_of_play.running == ("orange",) and out_of_play.lying == ()


def test_purple_countdown_has_no_challenge():
    e = parse_event({"id": "x", "countdown": "purple", "running": ["purple"]})
    with pytest.raises(BadInput, match="^challenge: purple is the longest timer"):
        e.challenged()


@pytest.mark.parametrize("data, message", [
    ("finale", "event: expected one of training, got 'finale'"),
    (42, "event: expected an event id or an event object, got 42"),
    ({"countdown": "red", "running": ["red"]}, "event.id: missing"),
    ({"id": " ", "countdown": "red", "running": ["red"]}, "event.id: must not be empty"),
    ({"id": "x", "running": ["red"]}, "event.countdown: missing"),
    ({"id": "x", "countdown": "pink", "running": ["red"]}, "event.countdown: 'pink' is not a timer colour"),
    ({"id": "x", "countdown": "red", "running": ["red", "teal"]}, "event.running[1]: 'teal' is not a timer colour"),
    ({"id": "x", "countdown": "red", "running": "red"}, "event.running: expected a list of colours, got 'red'"),
    ({"id": "x", "countdown": "red", "running": ["red", "red"]}, "event.running: red is listed twice"),
    ({"id": "x", "countdown": "red", "running": ["red"], "lying": ["red"]}, "event.lying: red cannot both run and lie"),
    ({"id": "x", "countdown": "blue", "running": ["red"]}, "event.countdown: blue must also be listed in running"),
    ({"id": "x", "countdown": "red", "running": ["red"], "hand_size": -1}, "event.hand_size: -1 is out of range (0-20)"),
    ({"id": "x", "countdown": "red", "running": ["red"], "hand_size": 2.5}, "event.hand_size: expected a whole number"),
    ({"id": "x", "countdown": "red", "running": ["red"], "countdown_start": 0}, "event.countdown_start: 0 is out of range (1-9)"),
    ({"id": "x", "countdown": "red", "running": ["red"], "countdown_start": True}, "event.countdown_start: expected a whole number"),
    ({"id": "x", "countdown": "red", "running": ["red"], "runing": []}, "event.runing: unknown field"),
    ({"id": "x", "countdown": "red", "running": ["red"], "rules": 5}, "event.rules: expected text, got 5"),
])
def test_bad_events_name_the_field(data, message):
    with pytest.raises(BadInput) as e:
        parse_event(data)
    assert str(e.value).startswith(message)
