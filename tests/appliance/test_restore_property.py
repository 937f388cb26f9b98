"""Every backup the restore accepts leaves a table that starts, and whose history export imports into a fresh
table: a backup is made from a table's file changed by any mix of what another program, a damaged card or a
hostile hand could do to it, and either the restore refuses it, or all of that holds."""

import sqlite3
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from companion.appliance.backup import make_backup, read_backup, restore
from companion.clock import FakeClock
from companion.config import load_or_fresh
from companion.errors import BadInput
from companion.hardware.mock import mock_pin_factory
from companion.records import GameShelf, Store
from companion.records.fakes import WALL, played_show
from companion.records.history import export_history, import_history
from companion.table import Table
from companion.table.games import KINDS

CHANGES = [
    "DROP TABLE checkpoints",
    "DROP INDEX shows_running",
    "DROP TRIGGER pad_on_insert",
    "CREATE TRIGGER no_more BEFORE INSERT ON shows BEGIN SELECT RAISE(ABORT, 'no'); END",
    "CREATE VIEW everyone AS SELECT * FROM players",
    "CREATE TABLE notes (text TEXT)",
    "ALTER TABLE players ADD COLUMN colour TEXT",
    "DELETE FROM pad",
    "UPDATE pad SET attempts = -3",
    "INSERT INTO players (position, name) VALUES (9, 'Line\nbreak')",
    "INSERT INTO players (position, name) VALUES (8, x'ff00')",
    "UPDATE shows SET outcome = 'sideways'",
    "UPDATE shows SET stars = 7",
    "UPDATE shows SET orientation = 'not json'",
    "UPDATE shows SET outcome = 'running', ended = NULL",
    "UPDATE journal SET line = '{\"t\": -1, \"type\": \"flip\"}'",
    "DELETE FROM journal",
    "INSERT INTO events (id, data, saved) VALUES ('mine', '{\"nope\": 1}', 'x')",
    "INSERT INTO festivals (name, events, saved) VALUES ('F', '[1, 2]', 'x')",
    "INSERT INTO games (kind, version, state, created, updated) VALUES ('flock', 1, '{}', 0, 0)",
    "INSERT INTO games (kind, version, state, created, updated) VALUES ('chess', 1, '[]', 0, 0)",
    "INSERT INTO game_cards (kind, name, card, saved) VALUES ('flock', 'nest/x', 'null', 0)",
    "INSERT INTO checkpoints (show_id, lines, state) VALUES (1, 99, 'garbage')",
    "UPDATE shows SET outcome = 'running', ended = NULL WHERE id = 2",  # a show the table resumes as it starts
    "UPDATE journal SET line = 'garbage' WHERE show_id = 2",
    "DELETE FROM journal WHERE show_id = 2",
    "INSERT INTO checkpoints (show_id, lines, state) VALUES (2, 1, '{\"t\": 5}')",
    "UPDATE shows SET speed = 0 WHERE id = 2",
    "UPDATE shows SET event_id = 'gone' WHERE id = 2",
    "PRAGMA user_version = 0",
    "PRAGMA user_version = 3",
    "PRAGMA user_version = 5",
    "PRAGMA user_version = 99",
]


def table_file(path: Path, changes: list[str]) -> None:
    store = Store(path)
    store.set_players(["Aki", "Ben"])
    played_show(store, "night", "win", 3)
    played_show(store, "day", "loss")
    store.close()
    db = sqlite3.connect(path)
    for change in changes:
        try:
            db.execute(change)
        except sqlite3.Error:
            pass  # a change that no longer applies (its table dropped before it)
    db.commit()
    db.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(CHANGES), max_size=4))
def test_every_backup_the_restore_accepts_leaves_a_table_that_starts_and_exports_whole(changes):
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        table_file(folder / "made.sqlite3", changes)
        (folder / "config.toml").write_text(f'[table]\nname = "Kitchen"\ndatabase = "{folder / "t.sqlite3"}"\n')
        try:
            backup = read_backup(make_backup(folder / "config.toml", folder / "made.sqlite3"))
        except BadInput:
            return  # refused: nothing was replaced
        config = load_or_fresh(folder / "config.toml")
        restore(backup, config.path, config.database)
        table = Table(config, Store(config.database), mock_pin_factory(), clock=FakeClock())
        try:
            text = export_history(table.store.database, wall=WALL)
        finally:
            table.stop()
        fresh = Store(":memory:")
        import_history(fresh.database, text, GameShelf(fresh.database, KINDS))
