"""A table file has exactly the shape its version gives it: every table, column and index, and nothing else.

A file that lacks a table, or carries a trigger, a view, an extra table or a changed column, is refused as it
opens, in one line naming the difference, so a table never starts on a file it cannot use (and a backup of
such a file is refused before it replaces anything)."""

import sqlite3

import pytest

from companion.records import Store
from companion.records.schema import TABLE_FILE, WrongShape

CHANGES = {
    "a missing table": "DROP TABLE checkpoints",
    "a missing index": "DROP INDEX shows_running",
    "a trigger that blocks inserts": "CREATE TRIGGER no_more AFTER INSERT ON players BEGIN SELECT RAISE(ABORT, 'no'); END",
    "a view": "CREATE VIEW everyone AS SELECT * FROM players",
    "an extra table": "CREATE TABLE notes (text TEXT)",
    "an extra column": "ALTER TABLE players ADD COLUMN colour TEXT",
    "an extra index": "CREATE INDEX players_by_name ON players (name)",
}


def changed_file(path, change: str) -> None:
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute(change)
    db.commit()
    db.close()


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_file_of_another_shape_is_refused_as_it_opens(tmp_path, change):
    path = tmp_path / "t.sqlite3"
    changed_file(path, change)
    with pytest.raises(WrongShape) as caught:
        Store(path)
    assert "\n" not in str(caught.value) and "version" in str(caught.value)


def test_a_file_without_its_shows_is_refused_naming_them(tmp_path):
    path = tmp_path / "t.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    db.executescript("DROP TRIGGER pad_on_insert; DROP TRIGGER pad_on_update; DROP TRIGGER pad_on_delete;"
                     "DROP TABLE checkpoints; DROP TABLE journal; DROP TABLE shows;")
    db.close()
    with pytest.raises(sqlite3.DatabaseError, match="lacks the table"):
        Store(path)


def test_a_trigger_of_the_score_pad_rewritten_is_put_back_as_the_program_writes_it(tmp_path):
    path = tmp_path / "t.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    db.executescript("DROP TRIGGER pad_on_insert; CREATE TRIGGER pad_on_insert AFTER INSERT ON shows BEGIN "
                     "SELECT RAISE(ABORT, 'no'); END; PRAGMA user_version = 5;")
    db.close()
    store = Store(path)
    with store.database.transaction() as tx:
        tx.execute("INSERT INTO shows (event_id, event_name, challenge, started, started_wall, speed)"
                   " VALUES ('training', 'Training', 0, 'x', 0, 1)")
    store.close()
