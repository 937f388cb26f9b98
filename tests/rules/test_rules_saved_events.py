"""Saved events cannot be mixed up: a built-in id is never taken, and an id keeps one setup for good."""

import pytest

from companion.errors import Conflict
from companion.skyrockets import parse_event
from companion.records import Store

PIN = {"X-Table-Pin": "1234"}
SOLO = {"id": "solo", "name": "Solo", "hand_size": 3, "countdown": "red", "running": ["red"], "lying": ["blue"],
        "countdown_start": 1, "rules": "Only red runs."}


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "events.sqlite3")
    yield store
    store.close()



def test_an_event_cannot_take_a_built_in_id(store):
    with pytest.raises(Conflict, match="'training' is the id of a built-in event") as refused:
        store.save_event(parse_event(dict(SOLO, id="training")), 0.0)
    assert refused.value.field == "event.id"
    assert store.events()["training"].builtin


def test_an_id_keeps_its_setup_and_a_changed_setup_is_refused(store):
    store.save_event(parse_event(SOLO), 0.0)
    store.save_event(parse_event(SOLO), 1.0)  # the same setup again: nothing new
    with pytest.raises(Conflict, match="'solo' is already saved with another setup"):
        store.save_event(parse_event(dict(SOLO, hand_size=4)), 2.0)
    assert store.events()["solo"].hand_size == 3


def test_the_name_typed_is_the_name_kept(store):
    store.save_event(parse_event(dict(SOLO, name="Solo  Flight ✦")), 0.0)
    assert store.events()["solo"].name == "Solo  Flight ✦"
    store.save_event(parse_event(dict(SOLO, name="Red alone")), 1.0)  # same setup, renamed
    assert store.events()["solo"].name == "Red alone"


def test_the_api_answers_409_naming_the_id_and_starts_nothing(client):
    built_in = client.post("/api/show/start", json={"event": dict(SOLO, id="training")}, headers=PIN)
    assert built_in.status_code == 409 and built_in.json["field"] == "event.id"
    assert "'training'" in built_in.json["error"]
    assert client.post("/api/show/start", json={"event": SOLO}, headers=PIN).status_code == 201
    assert client.post("/api/show/abort", headers=PIN).status_code == 200
    changed = client.post("/api/show/start", json={"event": dict(SOLO, running=["red", "green"])}, headers=PIN)
    assert changed.status_code == 409 and "'solo'" in changed.json["error"]
    assert [s["event"] for s in client.get("/api/shows").json] == ["solo"]
    assert client.get("/api/show").json["outcome"] == "idle"
