"""Two doors, one verdict: whatever the history import lets in, the API lets in, and what the API refuses the
import refuses — players, events, festivals and board games, each pushed through both."""

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from companion.errors import BadInput
from companion.records import GameShelf, Store
from companion.records.history import import_history
from companion.flock.kind import FLOCK
from companion.table import demo_table
from companion.table.games import KINDS
from companion.web import create_app

PIN = {"X-Table-Pin": "1234"}
HEADER = {"format": "companion-history", "version": 1, "exported": "2025-05-04T19:30:00Z"}
SLOW = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))

# Text a person might type, and what a broken or hostile phone might send instead.
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=14) | st.sampled_from(
    ["Aki", " Ben ", "Cafe\u0301", "ann\u202e", "x" * 41, "a\u2028b", "", "\t", "花火"])
VALUE = TEXT | st.integers(-3, 30) | st.booleans() | st.none() | st.floats(allow_nan=False, allow_infinity=False)
COLOUR = st.sampled_from(["red", "orange", "yellow", "green", "blue", "purple", "pink", 3])


@pytest.fixture(scope="module")
def door(tmp_path_factory):
    table = demo_table(tmp_path_factory.mktemp("doors") / "table.sqlite3")
    yield table, create_app(table, testing=True).test_client()
    table.stop()


def imports(record: dict) -> bool:
    """Whether a fresh table imports a history of this one record."""
    store = Store(":memory:")
    text = json.dumps(HEADER) + "\n" + json.dumps({**record}, ensure_ascii=False) + "\n"
    try:
        import_history(store.database, text, GameShelf(store.database, KINDS))
    except BadInput:
        return False
    finally:
        store.close()
    return True


def accepted(answer) -> bool:
    assert answer.status_code in (200, 201, 400, 409), answer.json  # a verdict, never a failure
    return answer.status_code < 400


def forget(table) -> None:
    """The table as fresh again for the next example (ids and setups of one example must not meet the next's)."""
    with table.store.database.transaction() as db:
        for name in ("journal", "checkpoints", "show_texts", "figures", "shows", "events", "festivals", "players"):
            db.execute(f"DELETE FROM {name}")  # noqa: S608 (our own table names)


@SLOW
@given(names=st.lists(TEXT, min_size=1, max_size=10))
def test_players(door, names):
    table, client = door
    by_api = accepted(client.post("/api/players", json={"players": names}, headers=PIN))
    assert imports({"record": "players", "names": names, "rotation": 0}) == by_api, names
    forget(table)


@SLOW
@given(event=st.fixed_dictionaries({"id": TEXT, "running": st.lists(COLOUR, max_size=4), "countdown": COLOUR},
                                   optional={"name": TEXT, "lying": st.lists(COLOUR, max_size=3), "rules": TEXT,
                                             "hand_size": VALUE, "countdown_start": VALUE, "extra": VALUE}))
def test_events(door, event):
    table, client = door
    by_api = accepted(client.post("/api/show/start", json={"event": event, "challenge": False}, headers=PIN))
    if by_api:
        client.post("/api/show/abort", json={}, headers=PIN)
    assert imports({"record": "event", "event": event, "saved": "2025-05-04T19:30:00Z"}) == by_api, event
    forget(table)


@SLOW
@given(name=TEXT, events=st.lists(st.sampled_from(["training", "event-04", "event-33", "nope", "", 5, None]),
                                  max_size=14))
def test_festivals(door, name, events):
    table, client = door
    by_api = accepted(client.post("/api/festivals", json={"name": name, "events": events}, headers=PIN))
    assert imports({"record": "festival", "id": 1, "name": name, "events": events}) == by_api, (name, events)
    forget(table)


STATES = st.recursive(VALUE, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                      max_leaves=12) | st.builds(lambda n: {"notes": "x" * n},
                                                 st.integers(FLOCK.max_state_bytes - 20, FLOCK.max_state_bytes + 20))


@SLOW
@given(kind=st.sampled_from(["flock", "geese", "chess"]), state=STATES)
def test_board_games(kind, state):
    # A game's state reaches the shelf only through its rules; the shelf's check is what every door asks.
    shelf = GameShelf(":memory:", KINDS)
    try:
        shelf.check(kind, state)
        by_shelf = True
    except BadInput:
        by_shelf = False
    game = {"record": "game", "id": 1, "kind": kind, "version": 1, "state": state, "created": 0, "updated": 0}
    assert imports(game) == by_shelf
