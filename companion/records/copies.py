"""Whole copies of the table's file, for a backup: a consistent copy of a live file, its version, and whether a
copy from elsewhere is a table file this program can read.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "t.sqlite3"
>>> from companion.records.schema import TABLE_FILE
>>> Database(path, TABLE_FILE).close()
>>> file_version(path) == TABLE_FILE.latest, check_table_file(snapshot(path))
(True, None)
"""

import contextlib
import sqlite3
import tempfile
from pathlib import Path

from companion.records.database import Database, connect


def snapshot(path: Path) -> bytes:
    """A consistent copy of a live SQLite file, its WAL included (SQLite's own backup), as one file's bytes."""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "copy.sqlite3"
        with contextlib.closing(connect(str(path))) as source, contextlib.closing(connect(str(copy))) as target:
            source.backup(target)
            target.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
        return copy.read_bytes()


def file_version(path: Path) -> int | None:
    """The version a table file is at (None: there is no file), read without changing it."""
    if not Path(path).is_file():
        return None
    with contextlib.closing(connect(str(path))) as db:
        return db.execute("PRAGMA user_version").fetchone()[0]


def check_table_file(raw: bytes, records=lambda path: None) -> None:
    """None if `raw` is a whole table file this program reads (opened on a copy: its steps run there, not on
    anything kept), of its version's shape, and whose `records` check passes on the copy (given its path);
    else the sqlite3.DatabaseError (or the check's error) that says why."""
    from companion.records.schema import TABLE_FILE

    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "check.sqlite3"
        copy.write_bytes(raw)
        with contextlib.closing(connect(str(copy))) as db:
            verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
        if verdict != "ok":
            raise sqlite3.DatabaseError(verdict)
        Database(copy, TABLE_FILE).close()
        records(copy)
