"""The standing fuzz suite: malformed and extreme values at every API route, at replay and at bad database rows.

Every input must get a 4xx (or a success), or exit 2 with one line: never a
500, a traceback or exit 1, and a refused change leaves the database as it
was. The counts are printed (pytest -s) so a run can say how much it threw.
"""

import contextlib
import io
import json
import sqlite3
import sys
from unittest import mock
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import build_parser, main
from companion.records import Store, DamagedRow
from companion.table import demo_table
from companion.web import create_app

PIN = {"X-Table-Pin": "1234"}
BASE = dict(deadline=None, suppress_health_check=list(HealthCheck), database=None)


def fuzz(examples: int) -> settings:
    return settings(max_examples=examples, **BASE)
API_EXAMPLES = 1500
REPLAY_EXAMPLES = 1500
ROW_EXAMPLES = 40

# ---- values from the far edges ---------------------------------------------------------

SURROGATES = st.integers(0xD800, 0xDFFF).map(chr)
CONTROLS = st.sampled_from(["\x00", "\x07", "\n", "\r", "\t", "\x1b", "\x7f", "\x85", "\u2028", "\u2029", "\ufeff"])
TEXT = st.text(st.one_of(st.characters(), SURROGATES, CONTROLS), max_size=30) | st.sampled_from(
    ["red", "purple", "training", "", " ", "1234", "x" * 3000])
NUMBERS = st.one_of(st.integers(), st.integers(-10**400, 10**400), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0, -1, 1, 2**63, 2**64, -2**63 - 1, 1e308, 5e-324, 0.01, 3600.0001]))
LEAVES = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                      max_leaves=12)


def deep(n: int) -> str:
    return "[" * n + "]" * n


RAW = st.one_of(st.binary(max_size=64).map(lambda b: b.decode("latin-1")), st.integers(30, 3000).map(deep),
                st.sampled_from(["{", "NaN", "Infinity", '{"a": 1,}', '"\\ud800"', "{}" * 3, "\ufeff{}", "[1]"]))


def dumped(value) -> str:
    """JSON text of `value` as a careless client would send it: NaN, huge numbers and lone surrogates kept."""
    return json.dumps(value, allow_nan=True)


def escaped(text: str) -> str:
    """`text` percent-encoded as its UTF-8 bytes, lone surrogates too (so the server gets bad UTF-8)."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="/")


ROUTES = {  # each change route and the fields its body may carry
    "/api/show/start": ("event", "challenge"), "/api/show/flip": ("timer",), "/api/show/abort": (),
    "/api/mute": ("muted",), "/api/calibration": ("timer", "seconds"), "/api/players": ("players",),
}
EVENT_FIELDS = ("id", "name", "hand_size", "countdown", "countdown_start", "running", "lying", "rules")


@st.composite
def bodies(draw, route: str) -> str:
    """A request body for `route`: its own fields with wild values, an event almost right, or anything at all."""
    fields = ROUTES[route]
    kind = draw(st.sampled_from(["fields", "event", "any", "raw"] if route == "/api/show/start" else
                                ["fields", "any", "raw"]))
    if kind == "raw":
        return draw(RAW)
    if kind == "any":
        return dumped(draw(VALUES))
    if kind == "event":
        event = {"id": "fz", "running": ["red", "orange"], "countdown": "orange"}
        event.update(draw(st.dictionaries(st.sampled_from(EVENT_FIELDS + ("extra",)), VALUES, max_size=3)))
        return dumped({"event": event})
    chosen = draw(st.lists(st.sampled_from(fields + ("extra",)), unique=True, max_size=len(fields) + 1))
    return dumped({name: draw(VALUES) for name in chosen})


REQUESTS = st.one_of(
    st.sampled_from(sorted(ROUTES)).flatmap(lambda r: st.tuples(st.just("POST"), st.just(r), bodies(r))),
    st.tuples(st.just("GET"), st.one_of(
        TEXT.map(lambda t: f"/api/shows/{escaped(t)}/log"), st.integers(-2**70, 2**70).map(lambda n: f"/api/shows/{n}/log"),
        TEXT.map(lambda t: f"/lang/ja?next={escaped(t)}"), TEXT.map(lambda t: f"/i18n/{escaped(t)}.json"),
        st.sampled_from(["/api/show", "/api/events", "/api/scorepad", "/api/scorepad.csv", "/api/shows", "/",
                         "/scorepad", "/shows", "/pin"])), st.just("")),
    st.tuples(st.just("POST"), st.sampled_from(["/pin", "/pin/forget"]),
              TEXT.map(lambda t: f"pin={escaped(t)}&next={escaped(t)}")),
)


def fingerprint(db) -> tuple:
    """Enough of the database to see a write: the rows of every table."""
    with contextlib.closing(sqlite3.connect(db)) as connection:
        return tuple(tuple(connection.execute(f"SELECT * FROM {name} ORDER BY 1").fetchall())
                     for name in ("meta", "events", "shows", "journal", "players"))


def test_no_api_input_gets_a_500_or_writes_half(tmp_path):
    db = tmp_path / "fuzz.sqlite3"
    table = demo_table(db)
    client = create_app(table, testing=True).test_client()
    thrown = {"inputs": 0, "5xx": 0, "half-written": 0}

    @fuzz(API_EXAMPLES)
    @given(REQUESTS, st.sampled_from([PIN, PIN, {}, {"X-Table-Pin": "0"}]), st.booleans())
    def throw(request, headers, odd_host):
        method, path, body = request
        thrown["inputs"] += 1
        if odd_host:
            headers = {**headers, "Host": "a" * 64 + ".local"}
        before = fingerprint(db)
        if method == "GET":
            answer = client.get(path, headers=headers)
        else:
            kind = "application/x-www-form-urlencoded" if path.startswith("/pin") else "application/json"
            answer = client.post(path, data=body.encode("utf-8", "surrogatepass"),
                                 headers={**headers, "Content-Type": kind})
        text = answer.get_data(as_text=True)
        assert answer.status_code < 500, (path, body[:200], text[:300])
        assert "Traceback" not in text
        if path.startswith("/api/") and answer.status_code >= 400:
            assert {"error", "field", "code"} <= set(answer.json) <= {"error", "field", "code", "params"}, answer.json
            assert fingerprint(db) == before, (path, body[:200])
        table.pump()

    try:
        throw()
    finally:
        table.stop()
    print(f"\napi fuzz: {thrown}")


LINES = st.one_of(
    st.just('{"t": 0, "type": "setup", "event": "training"}'),
    st.builds(lambda t, kind, timer, pose: dumped({"t": t, "type": kind, "timer": timer, "pose": pose}),
              st.floats(0, 200), st.sampled_from(["pose", "flip", "end"]),
              st.sampled_from(["red", "orange", "yellow", "green", "blue", "purple"]),
              st.sampled_from(["a_up", "b_up", "side"])),
    st.builds(lambda t, kind, timer, pose: dumped({"t": t, "type": kind, "timer": timer, "pose": pose}),
              NUMBERS, st.sampled_from(["pose", "flip", "end", "setup", "x"]) | TEXT,
              st.sampled_from(["red", "blue", "purple"]) | TEXT, st.sampled_from(["a_up", "b_up", "side"]) | TEXT),
    st.builds(lambda extra: dumped({"t": 0, "type": "setup", "event": "training", **extra}),
              st.dictionaries(st.sampled_from(["durations", "challenge", "runout_grace_s", "advance_tolerance_s",
                                               "event"]), VALUES, max_size=2)),
    RAW, VALUES.map(dumped),
)


PARSER = build_parser()  # built once: the commands are the same for every input


def replay_once(data: bytes) -> tuple[int, str]:
    """`companion replay -` in this process, on `data` as stdin; its exit status and stderr."""
    stdin, err, out = sys.stdin, io.StringIO(), io.StringIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), \
                mock.patch("companion.cli.parser_for", lambda argv: PARSER):
            code = main(["replay", "-"])
    finally:
        sys.stdin = stdin
    return code, err.getvalue()


def test_replay_answers_every_log_with_a_result_or_one_line(capsys):
    thrown = {"inputs": 0, "exit 0": 0, "exit 2": 0}

    @fuzz(REPLAY_EXAMPLES)
    @given(st.lists(LINES, min_size=1, max_size=6), st.sampled_from(["\n", "\r\n", "\u2028", "\n\n"]),
           st.booleans())
    def throw(lines, sep, set_up):
        thrown["inputs"] += 1
        if set_up:  # half the logs start right, so the lines after the setup are tried too
            lines = ['{"t": 0, "type": "setup", "event": "training"}', *lines]
        code, err = replay_once(sep.join(lines).encode("utf-8", "surrogatepass"))
        assert code in (0, 2), err
        if code == 2:
            assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        thrown[f"exit {code}"] += 1

    throw()
    print(f"\nreplay fuzz: {thrown}")


COLUMNS = {  # a bad value for a column of a row, as another program or a damaged card might leave it
    "shows": ("event_id", "event_name", "challenge", "started", "started_wall", "speed", "outcome", "stars", "ended",
              "start_player", "orientation"),
    "meta": ("boots", "rotation"),
}
CELLS = st.one_of(st.none(), st.integers(-2**63, 2**63 - 1), st.floats(), st.binary(max_size=8),
                  st.text(max_size=12), st.sampled_from(["{", "[]", '{"red": 1}', '{"pink": true}', "9" * 40, "x"]))


def test_bad_database_rows_are_one_line_and_lose_nothing_else(tmp_path):
    db = tmp_path / "rows.sqlite3"
    table = demo_table(db)
    table.desk.start_show("training")
    table.desk.abort()
    table.desk.start_show("training")
    running = table.live.show_id
    table.stop()
    thrown = {"inputs": 0, "started": 0, "one line": 0}
    pristine = db.read_bytes()
    numbers = iter(range(10**9))

    @fuzz(ROW_EXAMPLES)
    @given(st.sampled_from(sorted(COLUMNS)).flatmap(lambda t: st.tuples(st.just(t), st.sampled_from(COLUMNS[t]))),
           CELLS, CELLS)
    def throw(where, cell, line):
        copy = tmp_path / f"rows-{next(numbers)}.sqlite3"  # a database of its own for every example
        copy.write_bytes(pristine)
        name, column = where
        try:
            with contextlib.closing(sqlite3.connect(copy)) as connection, connection:
                if name == "meta":
                    connection.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (column, cell))
                else:
                    connection.execute(f"UPDATE shows SET {column} = ? WHERE id = ?", (cell, running))
                connection.execute("INSERT INTO journal (show_id, n, line) VALUES (?, 50, ?)", (running, line))
        except sqlite3.IntegrityError:
            return  # a NULL where the schema forbids one: no such row can exist
        with contextlib.closing(sqlite3.connect(copy)) as connection:
            journal = connection.execute("SELECT * FROM journal ORDER BY show_id, n").fetchall()
        thrown["inputs"] += 1
        store = Store(copy)
        try:
            store.next_boot()
            store.unfinished_show()
        except DamagedRow as e:
            assert "\n" not in str(e)
            thrown["one line"] += 1
        finally:
            store.close()
        if name == "meta" and column == "boots":
            try:
                Store(copy).next_boot()
            except DamagedRow as e:  # a count the table cannot go on from: it stops at start with this line
                assert "\n" not in str(e) and "meta row 'boots'" in str(e)
                return
        started = demo_table(copy)  # a row set aside, or a good one: the table starts
        thrown["started"] += 1
        client = create_app(started, testing=True).test_client()
        for path in ("/api/show", "/api/shows", "/api/scorepad", "/api/scorepad.csv", "/api/events",
                     f"/api/shows/{running}/log", "/shows", "/scorepad", "/"):
            assert client.get(path).status_code < 500, path
        started.stop()
        with contextlib.closing(sqlite3.connect(copy)) as connection:
            kept = set(connection.execute("SELECT * FROM journal").fetchall())
            assert set(journal) <= kept  # every line is still there (an unresumable show gains its end line)
            assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)

    throw()
    print(f"\ndatabase row fuzz: {thrown}")
