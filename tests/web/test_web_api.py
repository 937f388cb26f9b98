"""The JSON API (docs/web.md) through Flask's test client, on a demo table.

Every test builds its own table (a fresh database, a fake clock that only moves
when told) and its own app.
"""

import csv
import io
import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.config import StripConfig, demo_config
from companion.skyrockets import replay
from companion.records import Store
from companion.hardware.mock import mock_pin_factory
from companion.table import Table
from companion.web import create_app
from conftest import as_owner, csrf_in
from companion.web.security import PinGuard

PIN = {"X-Table-Pin": "1234"}
SOLO = {"id": "solo", "name": "Solo", "hand_size": 3, "countdown": "red", "running": ["red"], "lying": ["blue"],
        "countdown_start": 1, "rules": "Only red runs."}


@pytest.fixture
def app(table):
    return create_app(table, testing=True)


@pytest.fixture
def client(app, table):
    client = app.test_client()
    as_owner(client, table)  # the calibration is the owner's; the PIN header is every other change's
    return client


def start(client, event="training", **extra):
    response = client.post("/api/show/start", json={"event": event, **extra}, headers=PIN)
    assert response.status_code == 201, response.json
    return response.json


def move(table, clock, seconds):
    """Let show time pass (the runtime thread is not running in these tests: settle by hand)."""
    clock.advance(seconds)
    table.pump()


# ---- reading -----------------------------------------------------------------

def test_show_is_idle_before_any_show(client):
    response = client.get("/api/show")
    assert response.status_code == 200
    assert response.json["outcome"] == "idle"
    assert response.headers["Cache-Control"] == "no-store"


def test_start_answers_201_with_the_contract_fields(client):
    show = start(client)
    for field in ("outcome", "t", "stars", "countdown", "crowd_tokens_turned", "runouts", "advances", "warnings",
                  "timers", "id", "event", "challenge"):
        assert field in show, field
    assert show["outcome"] == "running" and show["event"]["id"] == "training" and show["challenge"] is False
    assert show["countdown"] == {"timer": "orange", "position": 4}
    red = show["timers"]["red"]
    assert red["state"] == "running" and red["source"] == "emulated" and red["fault"] is None
    assert red["sensed"] is False  # the page offers its Flip: the table reads no sensor of an LED glass
    assert set(show["timers"]) == {"red", "orange", "yellow", "green", "blue", "purple"}


def test_the_show_is_reported_at_now_not_at_the_last_change(client, clock):
    start(client)
    clock.advance(5.0)  # nothing happened in between: the table has not published since the start
    show = client.get("/api/show").json
    assert show["t"] == pytest.approx(5.0, abs=0.01)
    assert show["timers"]["red"]["top_s"] == pytest.approx(25.0, abs=0.01)
    assert show["timers"]["green"]["top_s"] == 60.0  # lying: no flow


def test_flip_turns_an_emulated_timer(client, table, clock):
    start(client)
    move(table, clock, 10.0)
    response = client.post("/api/show/flip", json={"timer": "red"}, headers=PIN)
    assert response.status_code == 200
    assert response.json["timers"]["red"]["top_s"] == pytest.approx(10.0, abs=0.01)


def test_turning_the_empty_countdown_timer_wins_the_show(client, table, clock):
    start(client, SOLO)
    move(table, clock, 30.0)
    show = client.post("/api/show/flip", json={"timer": "red"}, headers=PIN).json
    assert show["outcome"] == "win" and show["stars"] == 3
    assert client.get("/api/show").json["outcome"] == "win"


def test_abort_stops_the_show_and_records_it(client):
    start(client)
    response = client.post("/api/show/abort", headers=PIN)
    assert response.status_code == 200 and response.json["outcome"] == "idle"
    assert client.get("/api/shows").json[0]["outcome"] == "aborted"


def test_events_lists_built_in_and_saved_events(client):
    assert [e["id"] for e in client.get("/api/events").json] == ["training"]
    start(client, SOLO)
    events = {e["id"]: e for e in client.get("/api/events").json}
    assert events["training"]["builtin"] is True
    assert events["solo"]["builtin"] is False and events["solo"]["countdown"] == "red"


def test_scorepad_counts_attempts_and_best_stars(client, table, clock):
    start(client, SOLO)
    move(table, clock, 30.0)
    client.post("/api/show/flip", json={"timer": "red"}, headers=PIN)
    pad = client.get("/api/scorepad").json
    solo = next(row for row in pad["events"] if row["event"] == "solo")
    assert solo["best_stars"] == 3 and solo["attempts"] == 1 and solo["last_played"]


def test_scorepad_csv_lists_every_event_and_defuses_formulas(client):
    start(client, dict(SOLO, id="sneaky", name="=HYPERLINK(1)"))
    response = client.get("/api/scorepad.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert rows[0] == ["event", "name", "best_stars", "attempts", "wins", "last_played"]
    names = {row[0]: row[1] for row in rows[1:]}
    assert names["training"] == "Training"
    assert names["sneaky"] == "'=HYPERLINK(1)"


def test_shows_lists_past_shows_newest_first(client):
    start(client)
    client.post("/api/show/abort", headers=PIN)
    start(client, SOLO)
    shows = client.get("/api/shows").json
    assert [s["event"] for s in shows] == ["solo", "training"]
    assert {"id", "event", "outcome", "stars", "started"} <= set(shows[0])


def test_show_log_replays_to_the_recorded_result(client, table, clock):
    start(client)
    move(table, clock, 12.0)
    client.post("/api/show/flip", json={"timer": "red"}, headers=PIN)  # 12 s on top now
    move(table, clock, 20.0)  # red runs out at 24, nothing else before 32
    client.post("/api/show/abort", headers=PIN)
    show_id = client.get("/api/shows").json[0]["id"]
    response = client.get(f"/api/shows/{show_id}/log")
    assert response.status_code == 200 and response.mimetype == "application/jsonl"
    lines = response.get_data(as_text=True).splitlines()
    assert json.loads(lines[0])["type"] == "setup" and json.loads(lines[-1])["type"] == "end"
    result = replay(lines).result()
    assert result["crowd_tokens_turned"] == 1 and result["runouts"][0]["timer"] == "red"


@pytest.mark.parametrize("path", ["/api/shows/99/log", "/api/shows/99999999999999999999999/log", "/api/shows/x/log"])
def test_unknown_show_log_is_404_json(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.is_json and "error" in response.json


# ---- changing: the extensions ---------------------------------------------------

def test_players_set_the_rotation(client):
    response = client.post("/api/players", json={"players": ["Aiko", "Ben", "Chloé"]}, headers=PIN)
    assert response.status_code == 200
    assert response.json["players"] == ["Aiko", "Ben", "Chloé"] and response.json["start_player"] == "Aiko"


def test_mute_is_part_of_the_state(client):
    response = client.post("/api/mute", json={"muted": True}, headers=PIN)
    assert response.status_code == 200 and response.json["muted"] is True


def test_calibration_stores_a_duration_for_the_next_show(client):
    response = client.post("/api/calibration", json={"timer": "purple", "seconds": 90}, headers=PIN)
    assert response.status_code == 200 and response.json == {"timer": "purple", "duration": 90.0}
    assert start(client)["timers"]["purple"]["top_s"] == 90.0


# ---- bad input: 400 naming the field, 409, 405, 413 -----------------------------------

@pytest.mark.parametrize("path, body, field", [
    ("/api/show/start", {}, "event"),
    ("/api/show/start", {"event": "festival-9"}, "event"),
    ("/api/show/start", {"event": 7}, "event"),
    ("/api/show/start", {"event": dict(SOLO, countdown="green")}, "event.countdown"),
    ("/api/show/start", {"event": dict(SOLO, hand_size=99)}, "event.hand_size"),
    ("/api/show/start", {"event": dict(SOLO, running=["red", "pink"])}, "event.running[1]"),
    ("/api/show/start", {"event": "training", "challenge": "yes"}, "challenge"),
    ("/api/show/start", {"event": dict(SOLO, countdown="purple", running=["purple"]), "challenge": True}, "challenge"),
    ("/api/show/start", {"event": "training", "speed": 3}, "speed"),
    ("/api/show/flip", {}, "timer"),
    ("/api/show/flip", {"timer": "pink"}, "timer"),
    ("/api/show/flip", {"timer": ["red"]}, "timer"),
    ("/api/mute", {"muted": "on"}, "muted"),
    ("/api/calibration", {"timer": "red"}, "seconds"),
    ("/api/calibration", {"timer": "red", "seconds": -3}, "seconds"),
    ("/api/calibration", {"timer": "red", "seconds": 0.2}, "seconds"),
    ("/api/calibration", {"timer": "red", "seconds": 1e9}, "seconds"),
    ("/api/calibration", {"timer": "teal", "seconds": 30}, "timer"),
    ("/api/players", {"players": "Aiko"}, "players"),
    ("/api/players", {"players": ["Aiko", "Aiko"]}, "players[1]"),
    ("/api/players", {"players": ["Aiko", ""]}, "players[1]"),
])
def test_bad_fields_are_400_naming_the_field(client, path, body, field):
    response = client.post(path, json=body, headers=PIN)
    assert response.status_code == 400, response.json
    assert response.json["field"] == field
    assert response.json["error"].startswith(field)


@pytest.mark.parametrize("data", [b"{not json", b"[1, 2]", b'"training"', b"\xff\xfe", b"[" * 5000 + b"]" * 5000])
def test_a_body_that_is_not_a_json_object_is_400(client, data):
    response = client.post("/api/show/start", data=data, headers=PIN, content_type="application/json")
    assert response.status_code == 400
    assert response.json["field"] == "body"


def test_a_script_may_send_json_without_saying_so(client):
    # curl -d sends a form content type; with the PIN header the body is read as JSON all the same
    response = client.post("/api/show/start", data='{"event": "training"}', headers=PIN,
                           content_type="application/x-www-form-urlencoded")
    assert response.status_code == 201


def test_starting_while_a_show_runs_is_409(client):
    start(client)
    response = client.post("/api/show/start", json={"event": "training"}, headers=PIN)
    assert response.status_code == 409
    assert response.json["field"] == "show"


def test_flipping_with_no_show_or_out_of_play_is_409(client):
    assert client.post("/api/show/flip", json={"timer": "red"}, headers=PIN).status_code == 409
    start(client, SOLO)
    response = client.post("/api/show/flip", json={"timer": "yellow"}, headers=PIN)
    assert response.status_code == 409 and response.json["field"] == "timer"


def test_a_wrong_method_is_405_json(client):
    response = client.get("/api/show/start")
    assert response.status_code == 405
    assert response.is_json and "POST" in response.headers["Allow"]


def test_a_body_over_the_cap_is_413_json(client):
    big = json.dumps({"event": dict(SOLO, rules="x" * 40_000)})
    response = client.post("/api/show/start", data=big, headers=PIN, content_type="application/json")
    assert response.status_code == 413
    assert response.is_json and "error" in response.json


def test_a_fault_in_the_table_is_a_500_without_a_traceback(client, table, monkeypatch):
    def broken():
        raise RuntimeError("sensor bus on fire")

    monkeypatch.setattr(table.desk, "snapshot", broken)
    response = client.get("/api/show")
    assert response.status_code == 500 and response.is_json
    assert "fire" not in response.json["error"] and "Traceback" not in response.get_data(as_text=True)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/api/show/start", "/api/show/flip", "/api/show/abort", "/api/mute",
                             "/api/calibration", "/api/players"]),
       body=st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                         lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                             st.sampled_from(["event", "challenge", "timer", "muted", "seconds", "players", "id",
                                              "countdown", "running"]), inner, max_size=3),
                         max_leaves=8))
def test_no_body_ever_makes_a_500(client, path, body):
    response = client.post(path, data=json.dumps(body), headers=PIN, content_type="application/json")
    assert response.status_code in (200, 201, 400, 409), response.get_data(as_text=True)
    assert response.is_json


# ---- the PIN -------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/api/show/start", "/api/show/flip", "/api/show/abort", "/api/mute",
                                  "/api/players", "/api/festivals", "/api/festivals/1/delete"])
def test_every_change_needs_the_pin(client, path):
    for headers in ({}, {"X-Table-Pin": "0000"}, {"X-Table-Pin": ""}):
        response = client.post(path, json={}, headers=headers)
        assert response.status_code == 403, (headers, response.json)
        assert "error" in response.json and "PIN" in response.json["error"]
    assert client.get("/api/show").json["outcome"] == "idle"


def test_a_custom_festival_is_deleted_to_make_room_and_a_deleted_one_is_named_gone(client):
    saved = [client.post("/api/festivals", json={"name": f"F{i}", "events": ["training"]}, headers=PIN).json
             for i in range(50)]
    full = client.post("/api/festivals", json={"name": "One more", "events": ["training"]}, headers=PIN)
    assert full.status_code == 400 and full.json["code"] == "errors.festival.full"
    customs = [f for f in client.get("/api/festivals").json["festivals"] if f["custom"]]
    assert [(f["id"], f["name"]) for f in customs] == [(s["id"], s["name"]) for s in saved]
    deleted = client.post(f"/api/festivals/{saved[0]['id']}/delete", headers=PIN)
    assert deleted.status_code == 200 and deleted.json == {"deleted": saved[0]["id"]}
    assert client.post("/api/festivals", json={"name": "One more", "events": ["training"]}, headers=PIN).status_code == 200
    names = [f["name"] for f in client.get("/api/festivals").json["festivals"] if f["custom"]]
    assert names == [s["name"] for s in saved[1:]] + ["One more"]
    for festival_id in (saved[0]["id"], 10**30):  # already gone; never was
        gone = client.post(f"/api/festivals/{festival_id}/delete", headers=PIN)
        assert gone.status_code == 404 and gone.json["code"] == "errors.festival.gone"


def test_wrong_pins_slow_down_further_tries_with_429(client):
    phone = {"REMOTE_ADDR": "192.168.1.30"}  # a phone (the table's own screen, on loopback, is never slowed)
    for _ in range(3):
        assert client.post("/api/show/abort", headers={"X-Table-Pin": "9999"}, environ_base=phone).status_code == 403
    response = client.post("/api/show/abort", headers=PIN, environ_base=phone)  # even the right PIN waits its turn
    assert response.status_code == 429
    assert int(response.headers["Retry-After"]) >= 1
    assert "error" in response.json


def test_the_guard_doubles_the_wait_and_forgets_in_time():
    guard = PinGuard(free_tries=3, first_wait_s=1.0, max_wait_s=8.0, forget_after_s=100.0, table_forget_after_s=100.0)
    for i in range(3):
        assert guard.wait_s("a", now=float(i)) == 0.0
        guard.failed("a", now=float(i))
    assert guard.wait_s("a", now=2.0) == 1.0
    assert guard.wait_s("b", now=2.0) == 0.0  # per client
    guard.failed("a", now=3.0)
    assert guard.wait_s("a", now=3.0) == 2.0
    for t in range(4, 10):
        guard.failed("a", now=float(t))
    assert guard.wait_s("a", now=9.0) == 8.0  # capped
    guard.failed("a", now=500.0)  # long after: counting starts again
    assert guard.wait_s("a", now=500.0) == 0.0
    guard.succeeded("a")
    assert guard.wait_s("a", now=500.0) == 0.0


def test_a_page_session_needs_the_csrf_token(client):
    page = client.get("/").get_data(as_text=True)
    token = csrf_in(page)
    assert client.post("/pin", data={"pin": "1234", "csrf": token}).status_code == 303
    refused = client.post("/api/show/start", json={"event": "training"})
    assert refused.status_code == 403 and "token" in refused.json["error"]
    wrong = client.post("/api/show/start", json={"event": "training"}, headers={"X-CSRF-Token": "x" + token})
    assert wrong.status_code == 403
    allowed = client.post("/api/show/start", json={"event": "training"}, headers={"X-CSRF-Token": token})
    assert allowed.status_code == 201


# ---- live streams through the test client ------------------------------------------

def read_events(response, count):
    """The first `count` blank-line-separated blocks of an event stream."""
    blocks, buffer = [], ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer and len(blocks) < count:
            block, buffer = buffer.split("\n\n", 1)
            blocks.append(block)
        if len(blocks) >= count:
            return blocks
    return blocks


def test_show_events_sends_the_state_with_its_seq_as_id(client, table):
    response = client.get("/api/show/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    retry, first = read_events(response, 2)
    response.close()
    assert retry == "retry: 3000"
    lines = first.split("\n")
    assert lines[0] == f"id: {table.desk.snapshot()['seq']}" and lines[1] == "event: state"
    assert json.loads(lines[2].removeprefix("data: "))["outcome"] == "idle"


def test_streams_past_the_limit_the_strip_views_too_are_told_to_poll(table):
    client = create_app(table, testing=True, config={"SSE_MAX_STREAMS": 1}).test_client()
    first = client.get("/api/show/events", buffered=False)
    told = client.get("/api/show/events")
    assert told.status_code == 200 and told.headers["Retry-After"] and told.mimetype == "text/event-stream"
    assert "event: poll\ndata: {\"url\":\"/api/show\"" in told.get_data(as_text=True)
    strip = client.get("/api/strip/events")  # the strip's picture is a record to poll as well: never refused
    assert strip.status_code == 200 and strip.headers["Retry-After"]
    assert "event: poll\ndata: {\"url\":\"/api/strip\"" in strip.get_data(as_text=True)
    first.close()  # a closed stream gives its slot back
    again = client.get("/api/show/events", buffered=False)
    assert again.status_code == 200
    again.close()


def test_strip_events_start_with_the_layout(client):
    response = client.get("/api/strip/events", buffered=False)
    retry, layout = read_events(response, 2)
    response.close()
    assert layout.startswith("event: layout\n")
    assert json.loads(layout.split("data: ", 1)[1])["segment_len"] == 16


def test_a_table_without_a_strip_answers_404(tmp_path, clock):
    config = replace(demo_config(tmp_path / "plain.sqlite3"), strip=StripConfig(enabled=False))
    table = Table(config, Store(config.database), mock_pin_factory(), clock=clock, pin="1234")
    try:
        response = create_app(table, testing=True).test_client().get("/api/strip/events")
        assert response.status_code == 404 and response.is_json
    finally:
        table.stop()
