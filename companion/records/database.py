"""The table's SQLite file: one way to connect, one transaction, one way to meet a row that does not read.

Each use of the file borrows a connection of its own for as long as it
needs it, so no Python lock is held while SQLite waits for another writer,
and a thread that borrows again inside its block gets the same one (its
reads see its own transaction). Idle connections are kept for the next use,
KEPT_IDLE at most: the web server has some fifty threads, and a connection
each would cost the daemon megabytes. A write is one `BEGIN IMMEDIATE`
transaction, and a database still locked after `BUSY_TIMEOUT_S` is reported
as `RecordsBusy` (the web answers 503 with Retry-After; the journal keeps
the write and retries). The file is in WAL mode, so readers never wait for
a writer, and each commit is fully synced.

>>> db = Database(":memory:", "CREATE TABLE IF NOT EXISTS t (n INTEGER)")
>>> with db.transaction() as tx:
...     _ = tx.execute("INSERT INTO t VALUES (1)")
>>> [row["n"] for row in db.read("SELECT n FROM t")]
[1]
"""

import math
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path

from companion.clock import iso  # noqa: F401  (the records' parts take it from here)
from companion.errors import RETRY_AFTER_S, BadInput, RecordsBusy  # noqa: F401  (RETRY_AFTER_S: read here too)
from companion.ports import MAX_ROW_ID  # noqa: F401  (the records' own bound, named where the web reads it too)
from companion.records.holding import hold_shared, lock_exists, release

BUSY_TIMEOUT_S = 1.5  # how long a write waits for another writer: a phone hears 503 within 2 s
SQLITE_BUSY, SQLITE_LOCKED = 5, 6
CACHE_KIB = 256  # each connection's page cache
KEPT_IDLE = 4  # connections kept open between uses: the journal's writer and a few pages at once


class DamagedRow(sqlite3.DatabaseError):
    """A row of the table's own database that cannot be used: the message names the row and the field.

    It is a database error, so a command that opens the table answers it with one line and exit 1.

    >>> str(DamagedRow("shows row 3", BadInput("orientation", "not valid JSON")))
    'shows row 3: orientation: not valid JSON'
    """

    def __init__(self, row: str, problem: BadInput, then: str = ""):
        super().__init__(f"{row}: {problem}{then}")
        self.row, self.field = row, problem.field


def connect(path: str, durable: bool = True) -> sqlite3.Connection:
    """A connection as every part of the records uses one: rows by name, autocommit, full sync (if `durable`)."""
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    db.text_factory = text_cell  # a cell of bad UTF-8 (written by another program) reads as text, not an error
    # Not durable: a power cut may cost the last commits, never the file (WAL keeps it whole).
    db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
    # A small page cache for each connection kept keeps the daemon's memory flat
    # however many shows are stored (SQLite's default is 2 MB a connection; the OS caches the file anyway).
    db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    db.execute("PRAGMA foreign_keys=ON")
    return db


def text_cell(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def is_busy(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (SQLITE_BUSY, SQLITE_LOCKED)
    return "locked" in str(error) or "busy" in str(error)


@contextmanager
def busy_reported():
    """SQLite's busy and locked errors as RecordsBusy."""
    try:
        yield
    except sqlite3.OperationalError as e:
        if isinstance(e, RecordsBusy) or not is_busy(e):
            raise
        raise RecordsBusy(f"the table's records are busy ({e}); try again shortly") from None


class Database:
    """One SQLite file with its schema; safe to use from any thread (each use borrows a connection).

    `schema` is the file's versions (a companion.records.schema.Schema: every step the file lacks runs
    as it opens, in one transaction), or plain statements for a file without versions (a doctest's).
    `durable=False` is for a file that may lose its last commits in a power cut (the hall's board).
    """

    def __init__(self, path: Path | str, schema, *, durable: bool = True):
        self.path = str(path)
        self.durable = durable
        self._held, made = None, False
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            made = not lock_exists(self.path)
            self._held = hold_shared(self.path)  # a restore waits for every program that has the file open
        # Each connection to ":memory:" is a database of its own: that one is never closed while in use.
        self._kept = KEPT_IDLE if self.path != ":memory:" else math.inf
        self._local = threading.local()  # the connection this thread has borrowed, if any
        self._idle: list[sqlite3.Connection] = []
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()  # guards the lists only; never held while SQLite waits
        try:
            with self.connection() as db, busy_reported():
                db.execute("PRAGMA journal_mode=WAL")
            if isinstance(schema, str):
                with self.connection() as db, busy_reported():
                    db.executescript(schema)
            else:
                with self.transaction() as db:
                    schema.migrate(db)
        except BaseException:
            held, self._held = self._held, None
            self.close()  # a file refused as it opens is let go of at once, its new lock file with it
            if held is not None:
                release(held, made=made)
            raise

    @contextmanager
    def connection(self):
        """A connection for this block, this thread's alone: the one it already holds, else an idle or a new one."""
        held = getattr(self._local, "db", None)
        if held is not None:
            yield held
            return
        with self._lock:
            db = self._idle.pop() if self._idle else None  # the most recent: its cache is the warmest
        if db is None:
            db = connect(self.path, self.durable)
            with self._lock:
                self._opened.append(db)
        self._local.db = db
        try:
            yield db
        finally:
            self._local.db = None
            self._give_back(db)

    def _give_back(self, db: sqlite3.Connection) -> None:
        if db.in_transaction:
            db.execute("ROLLBACK")  # a block left half way must not hand its transaction on
        with self._lock:
            if db in self._opened and len(self._idle) < self._kept:
                self._idle.append(db)
                return
            if db in self._opened:
                self._opened.remove(db)
        db.close()

    @contextmanager
    def transaction(self):
        """One atomic write: all of it lands, or none of it (RecordsBusy when another writer holds the file)."""
        with self.connection() as db:
            with busy_reported():
                db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                with busy_reported():
                    db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    def read(self, sql: str, params=()) -> list[sqlite3.Row]:
        """The rows of one query, read without waiting for a writer (WAL)."""
        with self.connection() as db, busy_reported():
            return db.execute(sql, params).fetchall()

    def close(self) -> None:
        with self._lock:
            opened, self._opened, self._idle = self._opened, [], []
            held, self._held = self._held, None
        for db in opened:
            db.close()
        if held is not None:
            release(held)
