"""The hall: cards from real tables on a real broker, bad payloads ignored, the leaderboard kept."""

import functools
import json
import logging
import threading

import paho.mqtt.client as mqtt
import pytest
from hypothesis import given, settings, strategies as st

from mqtt_support import WAIT_S, listen, mosquitto  # noqa: F401  (fixtures)
from companion.clock import FakeClock
from companion.errors import BadInput
from companion.mqtt.bridge import Bridge
from companion.mqtt.hall import Hall, create_hall_app
from companion.mqtt.hall.board import Leaderboard
from companion.mqtt.hall.cards import MAX_PAYLOAD_BYTES, card_show, finished_show
from companion.mqtt.hall.listener import HallListener
from companion.mqtt.hall.views import hall_stream
from companion.mqtt.settings import from_url
from companion.table import demo_table

ROW = {"id": 3, "event": "training", "event_name": "Training", "outcome": "win", "stars": 2,
       "started": "2026-12-01T10:00:00Z", "runouts": [], "advances": []}


def wait_until(hall: Hall, predicate, timeout: float = WAIT_S):
    """Wait on the hall's own changes until predicate(view) holds."""
    seq = -1
    while True:
        view = hall.changes(seq, timeout)
        if predicate(view if seq < 0 else hall.view()):
            return hall.view()
        assert view["seq"] > seq, f"the hall never got there: {hall.view()}"
        seq = view["seq"]


def card(view, table):
    return next((c for c in view["cards"] if c["table"] == table), None)


@pytest.fixture
def hall_on(tmp_path):
    """hall_on(broker) -> (hall, board, listener) listening to `broker`; stopped after the test."""
    started = []

    def start(broker):
        board = Leaderboard(tmp_path / "hall.sqlite3")
        hall = Hall(board.rows())
        listener = HallListener(from_url(broker.url, table="hall"), hall, board, backoff=(0.05, 0.2)).start()
        started.append((listener, board))
        return hall, board, listener

    yield start
    for listener, board in started:
        listener.stop()
        board.close()


@pytest.fixture
def two_tables(tmp_path, mosquitto):
    tables, bridges = [], []
    for name in ("alpha", "beta"):
        table = demo_table(tmp_path / f"{name}.sqlite3", clock=FakeClock())
        tables.append(table)
        bridges.append(Bridge(table, from_url(mosquitto.url, table=name), backoff=(0.05, 0.2)).start())
    yield tables, bridges
    for bridge, table in zip(bridges, tables):
        bridge.stop()
        table.stop()


def test_the_hall_shows_every_table_live_and_ranks_their_finished_shows(mosquitto, two_tables, hall_on):
    (alpha, beta), (alpha_bridge, _) = two_tables
    hall, board, _ = hall_on(mosquitto)
    alpha.desk.start_show("training")
    view = wait_until(hall, lambda v: card(v, "beta") and card(v, "beta")["online"]
                      and (card(v, "alpha") or {}).get("show", {}) and card(v, "alpha")["show"]["outcome"] == "running")
    show = card(view, "alpha")["show"]
    assert show["event"]["id"] == "training" and show["countdown"]["timer"] == "orange"
    assert set(show["timers"]) == {"red", "orange", "yellow", "green", "blue", "purple"}
    assert card(view, "beta")["show"] == {"outcome": "idle"}

    alpha.desk.abort()
    beta.desk.start_show("training")
    beta.desk.abort()
    view = wait_until(hall, lambda v: len(v["board"]) == 1 and len(v["board"][0]["tables"]) == 2)
    assert view["board"][0]["event"] == "training"
    assert [t["table"] for t in view["board"][0]["tables"]] == ["alpha", "beta"]
    assert view["board"][0]["attempts"] == 0  # aborted shows are no attempts

    alpha_bridge.stop()
    view = wait_until(hall, lambda v: card(v, "alpha")["online"] is False)
    assert card(view, "beta")["online"] is True


BAD = [
    ("companion/t9/state", b"\xff\xfe not utf-8"),
    ("companion/t9/state", b"{not json"),
    ("companion/t9/state", b'{"outcome": NaN}'),
    ("companion/t9/state", b"[" * 10000),
    ("companion/t9/state", b'{"outcome": "running", "event": 7}'),
    ("companion/t9/state", b"[" + b"9" * 40 + b"]"),
    ("companion/t9/state", b'{"outcome": "running", "event": {"id": "x", "name": "X"}, "countdown": {"timer": "red",'
                           b' "position": "4"}, "timers": {}}'),
    ("companion/t9/state", b'{"outcome": "idle"}' + b" " * MAX_PAYLOAD_BYTES),
    ("companion/t9/availability", b"maybe"),
    ("companion/t9/shows", b'{"id": "three"}'),
    ("companion/t9/shows", json.dumps({**ROW, "stars": -1}).encode()),
    ("companion/t9/shows", json.dumps({**ROW, "event_name": "\ud800"}, ensure_ascii=True).encode()),
    ("companion/t9/extra", b"{}"),  # not a topic the hall listens to
]


class Lines(logging.Handler):
    """The listener's log lines, waited for as they come (a state is applied on the hall's own thread)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: list[str] = []
        self.changed = threading.Condition()

    def emit(self, record) -> None:
        with self.changed:
            self.lines.append(record.getMessage())
            self.changed.notify_all()

    def wait_for(self, count: int) -> list[str]:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.lines) >= count, WAIT_S), self.lines
            return list(self.lines)


def test_bad_payloads_on_the_broker_are_ignored_with_a_log_line(mosquitto, hall_on):
    hall, board, listener = hall_on(mosquitto)
    assert listener.subscribed.wait(WAIT_S)
    sender = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    sender.connect("127.0.0.1", mosquitto.port)
    sender.loop_start()
    lines, logger = Lines(), logging.getLogger("companion.mqtt.hall.listener")
    logger.addHandler(lines)
    try:
        sender.publish("companion/t9/availability", b"offline", qos=1).wait_for_publish(WAIT_S)
        wait_until(hall, lambda v: card(v, "t9"))  # a table with a card: its finished shows are read
        for n, (topic, payload) in enumerate(BAD[:-1], 1):  # each read before the next (a newer state replaces
            sender.publish(topic, payload, qos=1).wait_for_publish(WAIT_S)  # one not read yet, unread)
            lines.wait_for(n)
        sender.publish(*BAD[-1], qos=1).wait_for_publish(WAIT_S)
        sender.publish("companion/t9/availability", b"online", qos=1).wait_for_publish(WAIT_S)
        view = wait_until(hall, lambda v: card(v, "t9") and card(v, "t9")["online"])
    finally:
        logger.removeHandler(lines)
        sender.loop_stop()
        sender.disconnect()
    assert card(view, "t9")["show"] is None and view["board"] == []
    ignored = [line for line in lines.lines if line.startswith("ignored a message")]
    assert len(ignored) == len(BAD) - 1
    assert any("state.countdown.position" in line for line in ignored)
    assert all("\n" not in line for line in ignored)


JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                       lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                                     max_size=6), max_leaves=30)
STATEISH = st.fixed_dictionaries({"outcome": st.sampled_from(["running", "win", "idle", "x"])}, optional={
    "event": JSONISH | st.fixed_dictionaries({"id": JSONISH, "name": JSONISH}),
    "countdown": JSONISH | st.fixed_dictionaries({"timer": st.sampled_from(["red", "pink"]), "position": JSONISH}),
    "timers": JSONISH | st.dictionaries(st.sampled_from(["red", "blue"]), JSONISH | st.fixed_dictionaries(
        {"state": st.sampled_from(["running", "gone"]), "top_s": JSONISH}), max_size=2),
    "crowd_tokens_turned": JSONISH,
    "runouts": JSONISH | st.lists(JSONISH | st.fixed_dictionaries({"timer": st.sampled_from(["red", "pink"])}),
                                  max_size=4)})


@settings(max_examples=200, deadline=None)
@given(value=JSONISH | STATEISH)
def test_any_value_is_a_card_or_a_bad_input_naming_the_field(value):
    for check, where in ((card_show, "state"), (finished_show, "shows")):
        try:
            checked = check(value, where)
        except BadInput as e:
            assert e.field.startswith(where)
        else:
            json.dumps(checked, allow_nan=False)


RUNNING = {"outcome": "running", "event": {"id": "training", "name": "Training"},
           "countdown": {"timer": "orange", "position": 4}, "crowd_tokens_turned": 2, "timers": {}}


def test_a_card_keeps_which_glasses_ran_out_in_order():
    runouts = [{"timer": "red", "t": 30.0}, {"timer": "yellow", "t": 50.0}]
    assert card_show({**RUNNING, "runouts": runouts})["runouts"] == ["red", "yellow"]
    assert card_show(RUNNING)["runouts"] == []  # a table that does not say has none to tell


@pytest.mark.parametrize("runouts, field", [
    ([{"timer": "pink"}], "state.runouts[0].timer"),
    ([{"timer": "red"}] * 4, "state.runouts"),  # more run-outs than crowd tokens
    ("red", "state.runouts"),
    ([["red"]], "state.runouts[0]"),
])
def test_bad_run_outs_name_their_field(runouts, field):
    with pytest.raises(BadInput) as caught:
        card_show({**RUNNING, "runouts": runouts})
    assert caught.value.field == field


@settings(max_examples=100, deadline=None)
@given(topic=st.text(max_size=30).map(lambda s: "companion/" + s), payload=st.binary(max_size=200))
def test_the_listener_never_raises(topic, payload):
    listener = HallListener(from_url("mqtt://127.0.0.1:1", table="hall"), Hall(), Leaderboard(":memory:"))
    listener.take(topic, payload)


def test_the_leaderboard_survives_a_restart_and_counts_a_show_once(tmp_path):
    board = Leaderboard(tmp_path / "hall.sqlite3")
    assert board.record("alpha", finished_show(ROW))
    assert not board.record("alpha", finished_show(ROW))  # sent again after a reconnect
    board.record("alpha", finished_show({**ROW, "id": 4, "outcome": "loss", "stars": 0}))
    board.record("beta", finished_show({**ROW, "stars": 3}))
    board.close()
    again = Leaderboard(tmp_path / "hall.sqlite3")
    (event,) = again.rows()
    assert (event["best_stars"], event["attempts"]) == (3, 3)
    assert event["tables"] == [{"table": "beta", "best_stars": 3, "attempts": 1},  # the best first
                               {"table": "alpha", "best_stars": 2, "attempts": 2}]
    again.close()


def test_a_hall_file_from_before_the_standings_opens_through_the_records_way_in(tmp_path):
    import sqlite3

    from companion.records import Database

    path = tmp_path / "hall.sqlite3"
    old = sqlite3.connect(path)  # as the first hall wrote it: its shows only, no version
    old.execute("CREATE TABLE shows (tbl TEXT NOT NULL, id INTEGER NOT NULL, started TEXT NOT NULL,"
                " event TEXT NOT NULL, event_name TEXT NOT NULL, outcome TEXT NOT NULL, stars INTEGER NOT NULL,"
                " PRIMARY KEY (tbl, id, started))")
    old.executemany("INSERT INTO shows VALUES ('alpha', ?, 'x', 'training', 'Training', ?, ?)",
                    [(1, "win", 2), (2, "loss", 0), (3, "aborted", 0)])
    old.commit()
    old.close()
    board = Leaderboard(path)
    assert isinstance(board.database, Database) and board.database.read("PRAGMA user_version")[0][0] == 3
    (event,) = board.rows()
    assert event["tables"] == [{"table": "alpha", "best_stars": 2, "attempts": 2}]
    board.close()


def test_the_stream_sends_every_card_first_then_only_what_moved():
    hall = Hall()
    hall.set_online("alpha", True)
    hall.set_online("beta", True)
    closing = threading.Event()
    stream = hall_stream(hall, None, keepalive_s=15.0, retry_ms=1000, closing=closing)
    assert next(stream).startswith("retry:")
    first = json.loads(next(stream).split("data: ", 1)[1])
    assert [c["table"] for c in first["cards"]] == ["alpha", "beta"] and first["board"] == []
    hall.set_show("beta", {"outcome": "idle"})
    second = json.loads(next(stream).split("data: ", 1)[1])
    assert [c["table"] for c in second["cards"]] == ["beta"] and second["board"] is None
    closing.set()


def test_the_page_and_its_json_are_served_in_both_languages():
    hall = Hall()
    hall.set_online("alpha", False)
    client = create_hall_app(hall, testing=True).test_client()
    assert client.get("/api/hall").json["cards"][0]["online"] is False
    page = client.get("/", headers={"Accept-Language": "ja"})
    assert page.status_code == 200 and "ホールのすべてのテーブル" in page.text
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert client.get("/hall/static/hall.js").status_code == 200
    assert client.get("/api/nothing").json["error"]


def test_the_hall_keeps_at_most_so_many_tables():
    from companion.mqtt.hall.cards import MAX_TABLES

    listener = HallListener(from_url("mqtt://127.0.0.1:1", table="hall"), Hall(), Leaderboard(":memory:"))
    for n in range(MAX_TABLES + 5):
        listener.take(f"companion/t{n}/availability", b"online")
    assert len(listener.hall.view()["cards"]) == MAX_TABLES
    listener.take("companion/t0/availability", b"offline")  # a known table still changes
    assert listener.hall.view()["cards"][0]["online"] is False


def test_the_hall_catalogs_have_the_same_keys_in_both_languages():
    from companion.mqtt.hall import HERE

    en, ja = (json.loads((HERE / "i18n" / f"{lang}.json").read_text(encoding="utf-8")) for lang in ("en", "ja"))
    assert en.keys() == ja.keys()
    assert all(key.startswith(("hall.", "nav.hall")) for key in en)


def nested(depth: int):
    return st.just(0).map(lambda leaf: functools.reduce(lambda inner, _: [inner], range(depth), leaf))


@settings(max_examples=300, deadline=None)
@given(value=JSONISH | STATEISH | st.integers(30, 36).flatmap(nested) | st.dictionaries(
    st.text(st.characters(categories=["Cs", "Lu", "Lo"]), max_size=3),
    st.lists(st.text(st.characters(categories=["Cs", "Lu", "Lo"]), max_size=3), max_size=3), max_size=3))
def test_the_quick_look_at_each_state_refuses_exactly_what_the_strict_reader_always_did(value):
    # The hall reads thousands of states a second: the whole-document check looks first without naming
    # paths (ASCII text is never encoded), and only a value it finds wanting is walked again to name the field.
    from companion import jsonin

    def refusal(check):
        try:
            check(value, "state")
        except BadInput as e:
            return e.field, str(e)
        return None

    assert refusal(jsonin.check_value) == refusal(jsonin._name_the_fault)


def test_a_state_the_broker_dropped_for_the_hall_shows_within_a_second(tmp_path, mosquitto, hall_on):
    # Before: a state went out once, and again only after REFRESH_S of quiet. A broker drops the newest messages for
    # a listener that is behind (Mosquitto: "Outgoing messages are being dropped"), so a hall kept showing a table's
    # older state for five seconds: a change made and left alone for a second was never shown in that second.
    table = demo_table(tmp_path / "alpha.sqlite3", clock=FakeClock())
    bridge_clock = FakeClock()
    bridge = Bridge(table, from_url(mosquitto.url, table="alpha"), backoff=(0.05, 0.2), clock=bridge_clock).start()
    try:
        hall, _, listener = hall_on(mosquitto)
        wait_until(hall, lambda v: card(v, "alpha") and card(v, "alpha")["online"] and card(v, "alpha")["show"])
        heard, dropped = listener.hear, threading.Event()

        def behind(topic, payload):  # the broker drops the first new state it has for the hall
            if topic.endswith("/state") and json.loads(payload)["outcome"] == "running" and not dropped.is_set():
                dropped.set()
                return
            heard(topic, payload)

        listener.hear = behind
        table.desk.start_show("training")
        assert dropped.wait(WAIT_S)
        bridge_clock.advance(1.0)  # the table keeps still; its bridge's clock moves on (its pacing's, its resends')
        view = wait_until(hall, lambda v: (card(v, "alpha")["show"] or {}).get("outcome") == "running")
        assert card(view, "alpha")["show"]["event"]["id"] == "training"
    finally:
        bridge.stop()
        table.stop()
