"""The records layer: one transaction per change, versioned games, a busy database named, readers never kept waiting."""

import sqlite3
import threading

import pytest

from companion.errors import BadInput
from companion.records import DamagedRow, GameShelf, RecordsBusy, Store, VersionClash, database
from companion.records.shows import JournalLine
from companion.table.games import TableGames
from companion.web import create_app


class AnyObject:
    """A kind that keeps any JSON object: the shelf's own mechanics (versions, threads, busy), not a game's rules."""

    max_cards, max_state_bytes = 10, 256 * 1024

    def check(self, state, field="state"):
        return state

    def check_card(self, key, card):
        return card

    def check_room(self, kept):
        pass


PLAIN = {"flock": AnyObject(), "geese": AnyObject()}


@pytest.fixture
def shelf(tmp_path):
    shelf = GameShelf(tmp_path / "g.sqlite3", PLAIN)
    yield shelf
    shelf.close()


def test_changes_without_a_version_from_many_threads_are_all_kept(shelf):
    game = shelf.create("geese", {"taps": 0})
    start = threading.Barrier(4)

    def tap():
        start.wait()
        for _ in range(25):
            shelf.change("geese", game["id"], lambda state: {"taps": state["taps"] + 1})

    threads = [threading.Thread(target=tap) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert shelf.load("geese", game["id"])["state"] == {"taps": 100}
    assert shelf.load("geese", game["id"])["version"] == 101


def test_a_change_on_an_old_version_is_refused_naming_the_current_one_and_changes_nothing(shelf):
    game = shelf.create("flock", {"log": []})
    shelf.change("flock", game["id"], lambda s: {"log": [1]}, version=1)
    with pytest.raises(VersionClash) as clash:
        shelf.change("flock", game["id"], lambda s: {"log": [2]}, version=1)
    assert clash.value.field == "version" and clash.value.details == {"version": 2}
    assert shelf.load("flock", game["id"])["state"] == {"log": [1]}


def test_a_step_that_refuses_leaves_the_game_as_it_was(shelf):
    game = shelf.create("flock", {"log": []})

    def illegal(state):
        raise BadInput("action", "not allowed")

    with pytest.raises(BadInput):
        shelf.change("flock", game["id"], illegal)
    assert shelf.load("flock", game["id"])["version"] == 1


def test_a_database_held_by_another_writer_is_reported_busy_and_readers_do_not_wait(tmp_path, monkeypatch):
    monkeypatch.setattr(database, "BUSY_TIMEOUT_S", 0.05)
    shelf = GameShelf(tmp_path / "g.sqlite3", PLAIN)
    game = shelf.create("geese", {"n": 1})
    other = sqlite3.connect(tmp_path / "g.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("UPDATE games SET state = '{\"n\": 99}'")
    try:
        assert shelf.load("geese", game["id"])["state"] == {"n": 1}  # WAL: the reader sees the last commit at once
        with pytest.raises(RecordsBusy):
            shelf.change("geese", game["id"], lambda s: {"n": 2})
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert shelf.change("geese", game["id"], lambda s: {"n": 2})["version"] == 2
    shelf.close()


def test_a_busy_database_is_503_with_retry_after(shelf):
    class BusyTable(TableGames):
        pin = "1234"

        def change_game(self, *args, **kwargs):
            raise RecordsBusy("database is locked")

    table = BusyTable(shelf)
    game = table.new_game("geese", {"players": ["a", "b", "c"], "wintering": [], "actions": []})
    client = create_app(table, testing=True).test_client()
    answer = client.post(f"/api/geese/games/{game['id']}/undo", json={}, headers={"X-Table-Pin": "1234"})
    assert answer.status_code == 503 and answer.headers["Retry-After"] == str(database.RETRY_AFTER_S)
    assert answer.json["code"] == "errors.busy"


def test_a_damaged_game_row_is_named(shelf, tmp_path):
    game = shelf.create("flock", {"stage": 1})
    with sqlite3.connect(tmp_path / "g.sqlite3") as db:
        db.execute("UPDATE games SET state = 'not json'")
    with pytest.raises(DamagedRow, match=f"games row {game['id']}: state: stored data is not JSON"):
        shelf.load("flock", game["id"])


def test_the_journal_takes_only_its_own_writes(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    with pytest.raises(TypeError):
        store.write([("line", 1, {"t": 0})])
    store.write([])
    store.close()
    assert JournalLine(1, {"t": 0}).show_id == 1


def test_games_and_shows_share_one_file_and_one_way_in(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    shelf = GameShelf(store.database, PLAIN)
    shelf.create("flock", {})
    assert [r["kind"] for r in store.database.read("SELECT kind FROM games")] == ["flock"]
    shelf.close()
    store.close()


def test_many_threads_share_a_few_kept_connections_and_a_block_sees_its_own_transaction(tmp_path):
    db = database.Database(tmp_path / "t.sqlite3", "CREATE TABLE IF NOT EXISTS t (n INTEGER)")

    def read():
        assert db.read("SELECT COUNT(*) AS n FROM t")[0]["n"] == 0

    for _ in range(40):  # the web server's threads, one request each
        thread = threading.Thread(target=read)
        thread.start()
        thread.join()
    assert len(db._opened) <= database.KEPT_IDLE

    with db.transaction() as tx:
        tx.execute("INSERT INTO t VALUES (1)")
        assert db.read("SELECT n FROM t")[0]["n"] == 1  # the same connection: its own write is seen
        seen_elsewhere = []
        other = threading.Thread(target=lambda: seen_elsewhere.append(db.read("SELECT n FROM t")))
        other.start()
        other.join()
        assert seen_elsewhere == [[]]  # another thread borrows another connection: not written yet
    assert [row["n"] for row in db.read("SELECT n FROM t")] == [1]
    db.close()


def test_a_block_left_half_way_through_a_transaction_hands_on_a_clean_connection(tmp_path):
    db = database.Database(tmp_path / "t.sqlite3", "CREATE TABLE IF NOT EXISTS t (n INTEGER)")
    with pytest.raises(RuntimeError), db.connection() as raw:
        raw.execute("BEGIN IMMEDIATE")
        raw.execute("INSERT INTO t VALUES (1)")
        raise RuntimeError("a bug half way")
    with db.transaction() as tx:  # the kept connection is not still inside the abandoned transaction
        tx.execute("INSERT INTO t VALUES (2)")
    assert [row["n"] for row in db.read("SELECT n FROM t")] == [2]
    db.close()
