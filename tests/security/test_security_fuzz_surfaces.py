"""The standing fuzz suite on the newer surfaces: saved games, hall payloads and the hub's serial lines.

The inputs of the second hostile review (issue 22) are the seeds: names with
control, format and bidi characters, changes without a version, replayed
request keys, a flood of distinct finished shows, stray tables, huge and odd
payloads. Every input must get a 4xx or a success (never a 500), a refused
change leaves the games as they were, the hall never raises and stays inside
its bounds, and a serial line is a message or None. Counts print with -s.
"""

import contextlib
import json
import sqlite3

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.clock import FakeClock
from companion.hardware.hub_frames import MAX_LINE, crc16, read_message
from companion.mqtt.hall import Hall
from companion.mqtt.hall.board import BEST_PER_EVENT, ENTRY_KEPT_S, EVENTS_PER_TABLE, MAX_EVENTS, Leaderboard
from companion.mqtt.hall.cards import MAX_TABLES, QUIET_S
from companion.mqtt.hall.listener import HallListener
from companion.mqtt.settings import from_url
from companion.table import demo_table
from companion.web import create_app

PIN = "1234"
BASE = dict(deadline=None, suppress_health_check=list(HealthCheck), database=None)
SEED_NAMES = ["ann\x00", "\x1b[2Jann", "an\nn", "ann\u202e", "a\u200bnn", "\u2066ann\u2069", "ann\ufeff",
              "Zoe\u0301", " ann ", "x" * 41, ""]
TEXT = st.text(max_size=12) | st.sampled_from(SEED_NAMES)
CARD = st.fixed_dictionaries({"n": st.integers(-2, 8) | TEXT, "suit": st.sampled_from(
    ["thrush", "crane", "gull", "eagle", "goose", "owl"]) | TEXT})
VALUE = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | TEXT | CARD,
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=3),
                     max_leaves=10)
GAME_CHANGES = st.one_of(
    st.tuples(st.just("create"), st.fixed_dictionaries({"players": st.lists(TEXT, max_size=6)})),
    st.tuples(st.just("setup"), st.fixed_dictionaries({"card": CARD | VALUE}, optional={
        "put": VALUE, "version": st.integers(-1, 5) | VALUE})),
    st.tuples(st.just("actions"), st.fixed_dictionaries({"action": VALUE}, optional={"version": VALUE})),
    st.tuples(st.just("undo"), st.fixed_dictionaries({}, optional={"version": VALUE})),
    st.tuples(st.sampled_from(["setup", "undo", "actions"]), VALUE),
)
KEYS = st.none() | st.sampled_from(["k1", "k1", "k2", "no spaces", "x" * 65, "ключ", ""])


def games_fingerprint(db) -> tuple:
    with contextlib.closing(sqlite3.connect(db)) as connection:
        return tuple(connection.execute("SELECT id, version, state FROM games ORDER BY id").fetchall())


def test_no_game_change_gets_a_500_or_writes_half(tmp_path):
    db = tmp_path / "games.sqlite3"
    table = demo_table(db)
    client = create_app(table, testing=True).test_client()
    game = client.post("/api/geese/games", json={"players": ["ann", "ben", "cho"]},
                       headers={"X-Table-Pin": PIN}).json
    thrown = {"inputs": 0, "refused": 0}

    @settings(max_examples=600, **BASE)
    @given(GAME_CHANGES, KEYS)
    @example(("create", {"players": ["ann", "ben\x00", "cho"]}), None)
    @example(("create", {"players": ["ann\u202e", "ben", "cho"]}), None)
    @example(("setup", {"card": {"n": 1, "suit": "gull"}}), "k1")  # the same key twice: applied once
    @example(("setup", {"card": {"n": 1, "suit": "gull"}, "version": 1}), None)
    def throw(change, key):
        kind, body = change
        thrown["inputs"] += 1
        headers = {"X-Table-Pin": PIN, **({"Idempotency-Key": key} if key is not None else {})}
        path = "/api/geese/games" if kind == "create" else f"/api/geese/games/{game['id']}/{kind}"
        before = games_fingerprint(db)
        answer = client.post(path, data=json.dumps(body), headers={**headers, "Content-Type": "application/json"})
        assert answer.status_code < 500, (path, body, answer.get_data(as_text=True)[:300])
        if answer.status_code >= 400:
            thrown["refused"] += 1
            assert set(answer.json) >= {"error", "field", "code"}
            assert games_fingerprint(db) == before, (path, body)

    try:
        throw()
    finally:
        table.stop()
    print(f"\ngames fuzz: {thrown}")


SHOW = st.fixed_dictionaries({"id": st.integers(0, 2**60) | VALUE, "event": TEXT, "event_name": TEXT,
                              "outcome": st.sampled_from(["win", "loss", "aborted", "won"]) | VALUE,
                              "stars": st.integers(-1, 5) | VALUE, "started": TEXT})
PAYLOADS = st.one_of(SHOW.map(lambda s: json.dumps(s).encode()), VALUE.map(lambda v: json.dumps(v).encode()),
                     st.binary(max_size=80), st.sampled_from([b"online", b"offline", b"", b"NaN", b"{" * 40,
                                                              b'{"outcome": "idle"}', b"x" * 70_000]))
TOPICS = st.one_of(st.builds(lambda t, k: f"companion/{t}/{k}", st.sampled_from(["t1", "t2", "flood"]) | TEXT,
                             st.sampled_from(["availability", "state", "shows"]) | TEXT),
                   TEXT.map(lambda t: f"companion/{t}"))


def test_the_hall_takes_any_message_without_raising_and_stays_in_its_bounds():
    clock = FakeClock()
    listener = HallListener(from_url("mqtt://127.0.0.1:1", table="hall"), Hall(clock=clock),
                            Leaderboard(":memory:", clock=clock.wall), clock=clock)
    for n in range(2000):  # the seed: a flood of distinct finished shows from tables that are online
        listener.take(f"companion/flood{n % 50}/availability", b"online")
        listener.take(f"companion/flood{n % 50}/shows", json.dumps({
            "id": n, "event": f"e{n}", "event_name": f"E{n}", "outcome": "win", "stars": n % 4,
            "started": "2026-12-01T10:00:00Z"}).encode())
    thrown = {"messages": 2000}
    removed: set[str] = set()

    @settings(max_examples=1500, **BASE)
    @given(TOPICS, PAYLOADS, st.floats(0, 30) | st.sampled_from([QUIET_S, ENTRY_KEPT_S]), st.integers(0, 19))
    def throw(topic, payload, later, chance):
        thrown["messages"] += 1
        clock.advance(later)
        if chance == 19:  # now and then, the owner removes the table (`companion hall remove`)
            table = topic.split("/")[1] if topic.count("/") == 2 else "t1"
            removed.add(table)
            listener.board.remove(table)
            listener.look_for_removals()
        listener.take(topic, payload)  # never raises: a bad message is one log line

    throw()
    view = listener.hall.view()
    assert len(view["cards"]) <= MAX_TABLES
    assert len(view["board"]) <= MAX_EVENTS and all(len(e["tables"]) <= BEST_PER_EVENT for e in view["board"])
    assert not {t["table"] for e in view["board"] for t in e["tables"]} & removed
    assert not {c["table"] for c in view["cards"]} & removed
    most = listener.board.database.read("SELECT MAX(n) FROM (SELECT COUNT(*) n FROM standings GROUP BY tbl)")[0][0]
    assert (most or 0) <= EVENTS_PER_TABLE
    print(f"\nhall fuzz: {thrown}, {listener.dropped} over budget, board {len(view['board'])} events")


def framed(payload: bytes) -> bytes:
    return payload + f"*{crc16(payload):04X}\n".encode()


FIELDS = st.lists(st.builds(lambda k, v: f"{k}={v}".encode(), st.sampled_from(
    ["ms", "fw", "proto", "timers", "pose", "beam", "ch", "n", "x"]), st.text(
    st.sampled_from("0123456789,-abz_ABUPSIDE="), max_size=24)), max_size=6)
LINES = st.one_of(
    st.binary(max_size=2 * MAX_LINE),
    st.builds(lambda seq, kind, fields: framed(b" ".join([seq, kind, *fields])),
              st.sampled_from([b"0", b"1", b"65535", b"65536", b"-1", b"99999999999"]),
              st.sampled_from([b"hello", b"snap", b"pose", b"beam", b"beat", b"err", b"x"]), FIELDS))


@settings(max_examples=3000, **BASE)
@given(LINES, st.integers(0, 8))
@example(framed(b"0 hello ms=0 fw=1 proto=1 timers=0"), 6)
@example(framed(b"1 snap ms=99999999999 pose=a_up,b_up"), 6)
@example(framed(b"2 pose ms=5 ch=6 pose=a_up"), 6)
@example(b"\xff\xfe" * 200 + b"\n", 6)
def test_a_serial_line_is_a_message_or_none_never_an_error(line, timers):
    message = read_message(line, timers)
    assert message is None or (isinstance(message.kind, str) and isinstance(message.ms, int))
