"""The table's file brought forward from every older shape it was written in, by one ordered set of steps."""

import sqlite3

import pytest

from companion.records import Store
from companion.records import festivals as festival_records
from companion.records.schema import TABLE_FILE, NewerFile

# The file as earlier programs wrote it, statement for statement (what such a file holds on a table's SD card).
OLD_SHOWS = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE events (id TEXT PRIMARY KEY, data TEXT NOT NULL, saved TEXT NOT NULL);
CREATE TABLE shows (id INTEGER PRIMARY KEY, event_id TEXT NOT NULL, event_name TEXT NOT NULL,
    challenge INTEGER NOT NULL, started TEXT NOT NULL, started_wall REAL NOT NULL, speed REAL NOT NULL,
    outcome TEXT NOT NULL DEFAULT 'running', stars INTEGER NOT NULL DEFAULT 0, ended TEXT, start_player TEXT,
    orientation TEXT NOT NULL DEFAULT '{}');
CREATE TABLE journal (show_id INTEGER NOT NULL REFERENCES shows(id), n INTEGER NOT NULL, line TEXT NOT NULL,
    PRIMARY KEY (show_id, n));
CREATE TABLE players (position INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE checkpoints (show_id INTEGER PRIMARY KEY REFERENCES shows(id), lines INTEGER NOT NULL,
    state TEXT NOT NULL);
CREATE TABLE games (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, version INTEGER NOT NULL, state TEXT NOT NULL,
    created REAL NOT NULL, updated REAL NOT NULL);
CREATE TABLE game_requests (game INTEGER NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL,
    PRIMARY KEY (game, key));
CREATE TABLE game_cards (kind TEXT NOT NULL, name TEXT NOT NULL, card TEXT NOT NULL, saved REAL NOT NULL,
    PRIMARY KEY (kind, name));
"""
OLD_PAD = """
CREATE TABLE pad (event_id TEXT PRIMARY KEY, name TEXT, best_stars INTEGER, attempts INTEGER, wins INTEGER,
    last_played TEXT);
CREATE TRIGGER pad_on_insert AFTER insert ON shows BEGIN
    DELETE FROM pad WHERE event_id = NEW.event_id;
    INSERT INTO pad SELECT event_id, MAX(event_name), MAX(CASE WHEN outcome = 'win' THEN stars END),
        SUM(outcome IN ('win', 'loss')), SUM(outcome = 'win'), MAX(started)
        FROM shows WHERE event_id = NEW.event_id GROUP BY event_id;
END;
"""
OLD_FESTIVALS = "CREATE TABLE festivals (id INTEGER PRIMARY KEY, name TEXT NOT NULL, events TEXT NOT NULL," \
                " saved TEXT NOT NULL);"


def old_file(path, *, version: int | None, pad: bool) -> None:
    """A table's file as an earlier program left it: `version` in meta (None: none kept), with or without the pad."""
    db = sqlite3.connect(path)
    db.executescript(OLD_SHOWS + (OLD_PAD if pad else "") + (OLD_FESTIVALS if version == 2 else ""))
    db.executemany("INSERT INTO shows (event_id, event_name, challenge, started, started_wall, speed, outcome, stars)"
                   " VALUES ('training', 'Training', 0, ?, 0, 1, ?, ?)",
                   [("2025-01-01T10:00:00Z", "win", 2), ("2025-01-02T10:00:00Z", "loss", 0),
                    ("2025-01-03T10:00:00Z", "aborted", 0)])
    if version is not None:
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(version),))
    if pad:
        db.execute("INSERT INTO meta VALUES ('pad', '1')")
    if version == 2:
        db.executemany("INSERT INTO festivals (name, events, saved) VALUES (?, '[\"training\"]', 'x')",
                       [("Reds",), ("Blues",)])
    db.commit()
    db.close()


@pytest.mark.parametrize("version", [None, 1, 2])
@pytest.mark.parametrize("pad", [False, True])
def test_a_file_written_the_old_way_opens_at_the_latest_version_with_its_records(tmp_path, version, pad):
    path = tmp_path / "old.sqlite3"
    old_file(path, version=version, pad=pad)
    store = Store(path)
    assert TABLE_FILE.version(store.database) == TABLE_FILE.latest
    training = next(row for row in store.scorepad()["events"] if row["event"] == "training")
    assert (training["best_stars"], training["attempts"], training["wins"]) == (2, 2, 1)
    assert store.database.read("SELECT key FROM meta WHERE key IN ('pad', 'schema')") == []  # one version, one place
    names = [f["name"] for f in festival_records.festivals(store.database)]
    assert names == (["Reds", "Blues"] if version == 2 else [])
    store.close()
    again = Store(path)  # opening again changes nothing
    assert again.scorepad() == Store(path).scorepad() and TABLE_FILE.version(again.database) == TABLE_FILE.latest


def test_a_festival_id_is_never_handed_out_twice_even_in_a_file_from_before(tmp_path):
    path = tmp_path / "old.sqlite3"
    old_file(path, version=2, pad=True)
    store = Store(path)
    newest = festival_records.festivals(store.database)[-1]["id"]
    assert festival_records.delete_festival(store.database, newest)
    again = festival_records.save_festival(store.database, "Greens", ["training"], 0, 50)
    assert again > newest
    # A phone retrying its delete of the festival already gone removes nothing of another phone's.
    assert not festival_records.delete_festival(store.database, newest)
    assert [f["name"] for f in festival_records.festivals(store.database)] == ["Reds", "Greens"]


def test_a_file_from_a_newer_program_is_refused_not_rewritten(tmp_path):
    path = tmp_path / "new.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {TABLE_FILE.latest + 1}")
    db.commit()
    db.close()
    with pytest.raises(NewerFile, match="newer than this program"):
        Store(path)


def test_a_file_at_the_latest_version_opens_without_a_write(tmp_path):
    """Opening a current file writes nothing: a table's restart does not wait for the disk to take a page that
    says the version it already says."""
    path = tmp_path / "table.sqlite3"
    Store(path).close()  # made, and its log folded back into the file as the last connection closes
    wal = tmp_path / "table.sqlite3-wal"
    store = Store(path)
    try:
        assert not wal.exists() or wal.stat().st_size == 0
        assert store.database.read("PRAGMA user_version")[0][0] == TABLE_FILE.latest
    finally:
        store.close()
