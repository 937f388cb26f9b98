"""The records' SQLite files, version by version: every step that built each, run in order, in one place.

The table's file is TABLE_FILE; the hall's board has its own (mqtt/hall/board.py).

A file's version is SQLite's own `PRAGMA user_version`. Opening a file runs
each step past its version, in order, in one transaction with the new
version, so a file is at one version or the one before, never between. Every
table of the file is created here (the shows, their journals, the players,
the score pad, the board games, the festivals, the progress figures), and
the steps say in which order they came.

A file written before the version moved to `user_version` (version 0 there)
kept it in its `meta` table under 'schema' (1 or 2): its steps run from
that version on. Every step is safe on a file that already has what it
adds, so a file whose old marks are missing is brought forward all the same.

Once at the latest version, a file must have the shape a new file has
(shape.py): every table, column and index, and no trigger, view or table of
anyone else's. A file that does not (a table dropped, a trigger added by
another program or carried in by a restored backup) is refused as it
opens, naming the difference, rather than failing later at the first write.

>>> from companion.records.database import Database
>>> db = Database(":memory:", TABLE_FILE)
>>> TABLE_FILE.version(db), TABLE_FILE.latest
(8, 8)
"""

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from companion.records import festivals, show_text
from companion.records.shape import WrongShape, difference, shape  # noqa: F401  (WrongShape: raised from here)
from companion.records.tally import score_pad

# The score pad's figures per event, kept by triggers as shows are written (by this program or any
# other), so the pad reads one row per event instead of grouping every stored show on each request.
# A show's write recounts its event's shows alone, through the shows_by_event index.
PAD_EVENT = """DELETE FROM pad WHERE event_id = {row}.event_id;
    INSERT INTO pad """ + score_pad("shows", by="event_id", where="event_id = {row}.event_id") + ";"

SHOWS = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, data TEXT NOT NULL, saved TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS shows (
    id INTEGER PRIMARY KEY,
    event_id TEXT NOT NULL,
    event_name TEXT NOT NULL,
    challenge INTEGER NOT NULL,
    started TEXT NOT NULL,
    started_wall REAL NOT NULL,
    speed REAL NOT NULL,
    outcome TEXT NOT NULL DEFAULT 'running',
    stars INTEGER NOT NULL DEFAULT 0,
    ended TEXT,
    start_player TEXT,
    orientation TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS journal (
    show_id INTEGER NOT NULL REFERENCES shows(id),
    n INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (show_id, n)
);
CREATE TABLE IF NOT EXISTS players (position INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints (
    show_id INTEGER PRIMARY KEY REFERENCES shows(id),
    lines INTEGER NOT NULL,
    state TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS shows_by_event ON shows (event_id, outcome, stars, started, event_name);
CREATE INDEX IF NOT EXISTS shows_running ON shows (outcome, id);
"""
PAD = """
CREATE TABLE IF NOT EXISTS pad (
    event_id TEXT PRIMARY KEY, name TEXT, best_stars INTEGER, attempts INTEGER, wins INTEGER, last_played TEXT
);""" + "".join(f"""
CREATE TRIGGER IF NOT EXISTS pad_on_{change} AFTER {change} ON shows BEGIN
    {body}
END;""" for change, body in (
    ("insert", "{new}"), ("delete", "{old}"), ("update", "{old} {new}"))).format(
    old=PAD_EVENT.format(row="OLD"), new=PAD_EVENT.format(row="NEW"))


Step = Callable[[object], None]  # one step, given the open transaction's connection


class NewerFile(sqlite3.DatabaseError):
    """A file written by a newer program (a database error: a command that opens it answers in one line)."""


@dataclass(frozen=True)
class Schema:
    """The ordered steps of one kind of file; step n brings a file at version n-1 to version n."""

    steps: Sequence[Step]
    older: Callable[[object], int] = lambda db: 0  # the version of a file from before user_version was used

    @property
    def latest(self) -> int:
        return len(self.steps)

    def version(self, database) -> int:
        with database.connection() as db:
            return db.execute("PRAGMA user_version").fetchone()[0]

    def migrate(self, db) -> int:
        """Run, on the connection `db` inside its transaction, every step the file lacks; the version it is now at."""
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            version = self.older(db)
        if version > self.latest:
            raise NewerFile(f"the file is at version {version}, newer than this program's {self.latest}:"
                               " update the program")
        for number in range(version + 1, self.latest + 1):
            self.steps[number - 1](db)
        if version != self.latest:  # written again unchanged, it would still cost a page on the disk at every open
            db.execute(f"PRAGMA user_version = {self.latest}")  # a pragma takes no parameter: a whole number of ours
        if problem := difference(shape(db), self.shape()):
            raise WrongShape(f"the file is not a version {self.latest} file as this program makes it: {problem}")
        return self.latest

    def shape(self) -> dict:
        """The shape of a new file of the latest version, built by the steps themselves (once per schema)."""
        if "_shape" not in self.__dict__:
            from companion.records.database import connect

            fresh = connect(":memory:")
            try:
                for step in self.steps:
                    step(fresh)
                object.__setattr__(self, "_shape", shape(fresh))
            finally:
                fresh.close()
        return self.__dict__["_shape"]


# The board games, kept as versioned records (games.py), the keys of the changes made, and the cards entered.
GAMES = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    version INTEGER NOT NULL,
    state TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS game_requests (
    game INTEGER NOT NULL,
    key TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (game, key)
);
CREATE TABLE IF NOT EXISTS game_cards (
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    card TEXT NOT NULL,
    saved REAL NOT NULL,
    PRIMARY KEY (kind, name)
);
"""

# Each finished show's line of the history file, kept as text when it ends (show_text.py): an export streams it.
SHOW_TEXTS = """
CREATE TABLE IF NOT EXISTS show_texts (
    show_id INTEGER PRIMARY KEY REFERENCES shows(id),
    text TEXT NOT NULL
);
"""

# Custom festivals (festivals.py); AUTOINCREMENT: a deleted festival's id is never given to another.
FESTIVALS = """
CREATE TABLE IF NOT EXISTS festivals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    events TEXT NOT NULL,
    saved TEXT NOT NULL
);
"""

# Each finished show's and board game's own progress figures (figures.py), kept once computed: `mark` says which
# state of the record they were computed from, so a record changed since is computed afresh.
FIGURES = """
CREATE TABLE IF NOT EXISTS figures (
    kind TEXT NOT NULL,
    id INTEGER NOT NULL,
    mark TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (kind, id)
);
"""


def script(sql: str) -> Step:
    """A step of plain statements (each statement run in the step's transaction)."""
    def run(db) -> None:
        for statement in statements(sql):
            db.execute(statement)
    return run


def statements(sql: str) -> list[str]:
    """`sql` cut into its statements, at the semicolons SQLite itself would end them at (triggers hold several).

    >>> len(statements("CREATE TABLE a (x); CREATE TRIGGER t AFTER INSERT ON a BEGIN DELETE FROM a; END;"))
    2
    """
    found, current = [], ""
    for piece in sql.split(";"):
        current += piece + ";"
        if sqlite3.complete_statement(current):
            if current.strip(" \n\t;"):
                found.append(current.strip())
            current = ""
    return found


def _older_table_file(db) -> int:
    """The version a table file of before `user_version` kept in its meta table (none: a new or first file)."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone():
        return 0
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return int(row["value"]) if row and str(row["value"]) in ("1", "2") else 0


def _count_pad(db) -> None:
    """The score pad kept by triggers from now on, and counted afresh once from every show."""
    script(PAD)(db)
    db.execute("DELETE FROM pad")
    db.execute(f"INSERT INTO pad {score_pad('shows', by='event_id')}")
    db.execute("DELETE FROM meta WHERE key IN ('pad', 'schema')")  # the version is user_version's alone now


def _festival_ids_never_reused(db) -> None:
    """Festivals rebuilt with AUTOINCREMENT, so a deleted festival's id is never handed to a new one."""
    row = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'festivals'").fetchone()
    if "AUTOINCREMENT" in row["sql"].upper():
        return
    db.execute("ALTER TABLE festivals RENAME TO festivals_before")
    script(FESTIVALS)(db)
    db.execute("INSERT INTO festivals (id, name, events, saved) SELECT id, name, events, saved FROM festivals_before")
    db.execute("DROP TABLE festivals_before")


def _shape_made_whole(db) -> None:
    """The indexes a file that kept its version in meta never got (its first step was skipped), and the score
    pad's triggers as this program writes them (an older program's, or a restored file's, read otherwise)."""
    for statement in statements(SHOWS):
        if statement.startswith("CREATE INDEX"):
            db.execute(statement)
    for change in ("insert", "delete", "update"):
        db.execute(f"DROP TRIGGER IF EXISTS pad_on_{change}")
    script(PAD)(db)


def _show_texts_kept(db) -> None:
    """The finished shows' history lines kept as text, those of the shows already played too (once)."""
    script(SHOW_TEXTS)(db)
    show_text.keep_missing(db)


TABLE_FILE = Schema(steps=(
    script(SHOWS + GAMES),  # 1: the shows, their journals, the players, the board games
    script(FESTIVALS),  # 2: custom festivals
    _count_pad,  # 3: the score pad kept by triggers (a file of before them carried a 'pad' mark in meta)
    _festival_ids_never_reused,  # 4
    festivals.renumber_old_encore,  # 5: the encore is events 29 and 30 of the box's 30, no longer 31 and 32
    _shape_made_whole,  # 6: every file at this version has the one shape a new file has (checked as it opens)
    script(FIGURES),  # 7: the progress figures kept per show and game
    _show_texts_kept,  # 8: each finished show's history line kept as text, so an export streams it
), older=_older_table_file)
