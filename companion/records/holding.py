"""Who has a records file open: every program that opens it holds it shared; replacing it needs it alone.

A restore puts a new file in place of the table's and removes the old
file's `-wal` and `-shm`. A daemon that still had the old file open would
go on writing to it, and every write it acknowledged would be gone at its
next start. So each `Database` holds a shared lock for as long as it is
open, and a restore takes the lock alone or is refused at once, naming why.
The lock is on a file of its own beside the database (`NAME-lock`), never
on the database: closing any other descriptor of the database file would
drop the locks SQLite keeps on it for this process.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "t.sqlite3"
>>> held = hold_shared(path)
>>> try:
...     with replacing(path):
...         pass
... except InUse as e:
...     print(e)
the table's file is open in another program (its daemon, or a command): stop it first; nothing was replaced
>>> release(held)
>>> with replacing(path):
...     pass
"""

import fcntl
import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

SUFFIX = "-lock"  # beside SQLite's own -wal and -shm, so it goes where the file goes


class InUse(sqlite3.OperationalError):
    """The file is open in another program (or being replaced): a database error, answered in one line."""


def _lock_file(path: Path | str) -> int:
    # Readable by everyone: root may create it during a restore, and the daemon's user still opens it after.
    return os.open(f"{path}{SUFFIX}", os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)


def hold_shared(path: Path | str) -> BinaryIO:
    """Hold `path` shared while it is open (InUse while a restore replaces it); the handle to release.

    A file object, so a Database dropped without being closed lets go of its hold as it is collected."""
    held = open(f"{path}{SUFFIX}", "rb", opener=lambda name, flags: _lock_file(path))  # noqa: SIM115 (kept open)
    try:
        fcntl.flock(held.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        held.close()
        raise InUse("the table's file is being replaced by a restore: try again when it is done") from None
    return held


def release(held: BinaryIO, *, made: bool = False) -> None:
    """Let go of a hold; `made`: the hold made the lock file and the file was refused, so nothing stays beside
    what was not a table's file."""
    held.close()  # the lock goes with its descriptor
    if made:
        Path(held.name).unlink(missing_ok=True)


def lock_exists(path: Path | str) -> bool:
    return Path(f"{path}{SUFFIX}").exists()


@contextmanager
def replacing(path: Path | str):
    """Hold `path` alone while it is replaced; InUse at once if any program has it open."""
    fd = _lock_file(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InUse("the table's file is open in another program (its daemon, or a command): stop it first;"
                        " nothing was replaced") from None
        yield
    finally:
        os.close(fd)
