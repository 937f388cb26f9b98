"""The web asks the table through its named ports (companion.ports): each area reaches only the port it needs."""

import pytest

from companion.clock import FakeClock
from companion.ports import MAX_ROW_ID, BoardGames, Door, FixedDoor, Ledger, Ports, SetupDesk, ShowDesk
from companion.records import GameShelf, Store
from companion.table.games import KINDS
from companion.table.ledger import TableLedger
from companion.web import create_app

PIN = {"X-Table-Pin": "1234"}


def test_the_table_serves_every_port_with_one_of_its_parts(table):
    ports = table.ports
    assert isinstance(ports.desk, ShowDesk) and isinstance(ports.ledger, Ledger)
    assert isinstance(ports.games, BoardGames) and isinstance(ports.setup, SetupDesk) and isinstance(ports.door, Door)
    assert len({id(ports.desk), id(ports.ledger), id(ports.games), id(ports.setup), id(ports.door)}) == 5


def test_an_app_on_the_ports_alone_runs_the_show_and_keeps_its_record(table):
    client = create_app(table.ports, testing=True).test_client()
    assert client.get("/api/show").json["outcome"] == "idle"
    assert client.post("/api/show/start", json={"event": "training"}, headers=PIN).status_code == 201
    assert client.post("/api/show/abort", json={}, headers=PIN).json["outcome"] == "idle"
    assert client.get("/api/shows").json[0]["outcome"] == "aborted"


@pytest.fixture
def ledger_only(tmp_path):
    """An app on a ledger and a door, with no show desk, no board games and no setup desk behind it."""
    store = Store(tmp_path / "records.sqlite3")
    ledger = TableLedger(store, FakeClock(), GameShelf(store.database, KINDS))
    ports = Ports(desk=None, ledger=ledger, games=None, setup=None, door=FixedDoor("1234"))
    yield create_app(ports, testing=True).test_client()
    store.close()


def test_the_score_pad_and_the_past_shows_need_the_ledger_alone(ledger_only):
    assert ledger_only.get("/api/shows").json == []
    assert ledger_only.get("/api/scorepad").json["players"] == []
    named = ledger_only.post("/api/players", json={"players": ["Aki", "Ben"]}, headers=PIN)
    assert named.json["players"] == ["Aki", "Ben"]
    for page in ("/scorepad", "/shows"):
        assert ledger_only.get(page).status_code == 200, page
    assert ledger_only.get("/api/shows/1/log").status_code == 404


def test_an_id_past_what_the_records_hold_is_simply_not_found(tmp_path):
    store = Store(tmp_path / "records.sqlite3")
    ledger = TableLedger(store, FakeClock(), GameShelf(store.database, KINDS))
    try:
        assert ledger.show_record(MAX_ROW_ID + 1) is None and ledger.show_log(MAX_ROW_ID + 1) is None
        assert ledger.delete_festival(MAX_ROW_ID + 1) is False
    finally:
        store.close()


def test_a_game_id_past_what_the_records_hold_is_not_kept(tmp_path):
    from companion.errors import NotKept
    from companion.records import GameShelf
    from companion.table.games import TableGames

    shelf = GameShelf(tmp_path / "games.sqlite3", KINDS)
    games = TableGames(shelf)
    try:
        assert games.game("geese", MAX_ROW_ID + 1) is None
        with pytest.raises(NotKept):
            games.change_game("geese", MAX_ROW_ID + 1, lambda state: state)
    finally:
        shelf.close()


def test_a_stand_in_serves_the_ports_it_has_and_brings_its_pin():
    class Games:
        pin = "1234"

        def saved_games(self, kind, limit=50): return []
        def game(self, kind, game_id): return None
        def new_game(self, kind, state): return {}
        def change_game(self, kind, game_id, step, version=None, key=None): return {}
        def ring_on_game_change(self, bell): return lambda: None
        def game_cards(self, kind): return {}
        def keep_game_card(self, kind, name, card): return None

    ports = Ports.serving(Games())
    assert isinstance(ports.games, Games) and (ports.desk, ports.ledger, ports.setup) == (None, None, None)
    assert ports.door == FixedDoor("1234")


def test_the_tables_screen_turns_to_progress_only_on_a_table_that_keeps_it(ledger_only, table):
    assert "data-progress-after-ms" not in ledger_only.get("/kiosk/").get_data(as_text=True)
    assert ledger_only.get("/kiosk/progress").status_code == 404
    kept = create_app(table.ports, testing=True).test_client()
    assert "data-progress-after-ms" in kept.get("/kiosk/").get_data(as_text=True)
    assert kept.get("/kiosk/progress").status_code == 200
