"""A table file has exactly the shape its version gives it: every table, column and index, and nothing else.

A file that lacks a table, or carries a trigger, a view, an extra table or a changed column, is refused as it
opens, in one line naming the difference, so a table never starts on a file it cannot use (and a backup of
such a file is refused before it replaces anything)."""

import contextlib
import sqlite3

import pytest

from companion.records import Store
from companion.records.schema import WrongShape

# Each change, and what the refusal says: which version the file claims, or which table of the shows it lacks.
CHANGES = {
    "a missing table": ("DROP TABLE checkpoints", "version"),
    "a missing index": ("DROP INDEX shows_running", "version"),
    "a trigger that blocks inserts": (
        "CREATE TRIGGER no_more AFTER INSERT ON players BEGIN SELECT RAISE(ABORT, 'no'); END", "version"),
    "a view": ("CREATE VIEW everyone AS SELECT * FROM players", "version"),
    "an extra table": ("CREATE TABLE notes (text TEXT)", "version"),
    "an extra column": ("ALTER TABLE players ADD COLUMN colour TEXT", "version"),
    "an extra index": ("CREATE INDEX players_by_name ON players (name)", "version"),
    "no shows": ("DROP TRIGGER pad_on_insert; DROP TRIGGER pad_on_update; DROP TRIGGER pad_on_delete;"
                 "DROP TABLE checkpoints; DROP TABLE journal; DROP TABLE shows;", "lacks the table"),
}


@pytest.mark.parametrize(("change", "says"), CHANGES.values(), ids=CHANGES.keys())
def test_a_file_of_another_shape_is_refused_as_it_opens(tmp_path, change, says):
    path = tmp_path / "t.sqlite3"
    Store(path).close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.executescript(change)
    with pytest.raises(WrongShape) as caught:
        Store(path)
    assert "\n" not in str(caught.value) and says in str(caught.value)


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
