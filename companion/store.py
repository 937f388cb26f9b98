"""The table's records in SQLite: each show's journal, the shows, saved events, the players.

The journal is written line by line as the show happens, each line its own
transaction in WAL mode with a full sync, so a power cut loses at most the
line in flight, and a show's log read back is exactly what `companion replay`
takes. Every query is parameterised. Writes come from the runtime thread;
reads open their own connection, so any thread may call them.
"""

import json
import sqlite3
import threading
from contextlib import closing, contextmanager
from datetime import datetime, timezone
from pathlib import Path

from companion.errors import BadInput
from companion.skyrockets.events import BUILTIN_EVENTS, Event, parse_event

SCHEMA = """
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
"""

MAX_PLAYERS = 8
MAX_NAME = 40  # characters in a player's name: a phone's row shows it whole


def check_players(names) -> list[str]:
    """The players' names as given, trimmed; BadInput naming the entry that will not do."""
    if not isinstance(names, list) or not 1 <= len(names) <= MAX_PLAYERS:
        raise BadInput("players", f"expected a list of 1 to {MAX_PLAYERS} names")
    cleaned = []
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME:
            raise BadInput(f"players[{i}]", f"expected a name of 1 to {MAX_NAME} characters")
        if name.strip() in cleaned:
            raise BadInput(f"players[{i}]", f"{name.strip()!r} is listed twice")
        cleaned.append(name.strip())
    return cleaned


def iso(wall: float) -> str:
    return datetime.fromtimestamp(wall, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class Store:
    """The SQLite file of one table.

    >>> store = Store(":memory:")  # doctest: +SKIP
    """

    def __init__(self, path: Path | str):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._writer: sqlite3.Connection | None = None
        self._write_lock = threading.Lock()
        with closing(self._connect()) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    @contextmanager
    def _transaction(self):
        """One atomic write: all of it lands, or none of it. Writes share one connection, kept open."""
        with self._write_lock:
            if self._writer is None:
                self._writer = self._connect()
            db = self._writer
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def close(self) -> None:
        with self._write_lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None

    def _read(self, sql: str, params=()) -> list[sqlite3.Row]:
        with closing(self._connect()) as db:
            return db.execute(sql, params).fetchall()

    # ---- meta -----------------------------------------------------------

    def next_boot(self) -> int:
        """Count daemon starts, so numbers handed out per run keep increasing across restarts."""
        with self._transaction() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'boots'").fetchone()
            boots = int(row["value"]) + 1 if row else 1
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('boots', ?)", (str(boots),))
        return boots

    # ---- events ---------------------------------------------------------

    def save_event(self, event: Event, wall: float) -> None:
        if event.id in BUILTIN_EVENTS:
            return
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO events (id, data, saved) VALUES (?, ?, ?)",
                       (event.id, json.dumps(event.to_json(), ensure_ascii=False), iso(wall)))

    def events(self) -> dict[str, Event]:
        """Built-in events first, then saved ones by id."""
        saved = {r["id"]: parse_event(json.loads(r["data"]), f"saved event {r['id']}")
                 for r in self._read("SELECT id, data FROM events ORDER BY id")}
        return {**BUILTIN_EVENTS, **{k: v for k, v in saved.items() if k not in BUILTIN_EVENTS}}

    # ---- shows and their journals --------------------------------------

    def begin_show(self, event: Event, challenge: bool, setup_line: dict, wall: float, speed: float) -> int:
        """Record a new show and its setup line; the start player is the next in the rotation."""
        with self._transaction() as db:
            start_player = self._start_player(db)
            cur = db.execute(
                "INSERT INTO shows (event_id, event_name, challenge, started, started_wall, speed, start_player)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (event.id, event.name, int(challenge), iso(wall), wall, speed, start_player))
            show_id = cur.lastrowid
            db.execute("INSERT INTO journal (show_id, n, line) VALUES (?, 1, ?)", (show_id, json.dumps(setup_line)))
        return show_id

    def append(self, show_id: int, lines: list[dict]) -> None:
        """Add lines to a show's journal, durably and all together."""
        with self._transaction() as db:
            for line in lines:
                self._append(db, show_id, line)

    @staticmethod
    def _append(db, show_id: int, line: dict) -> None:
        db.execute("INSERT INTO journal (show_id, n, line) SELECT ?, COALESCE(MAX(n), 0) + 1, ? FROM journal"
                   " WHERE show_id = ?", (show_id, json.dumps(line), show_id))

    def finish_show(self, show_id: int, end_line: dict, outcome: str, stars: int, wall: float) -> None:
        """The end line, the outcome, and the start player passing on, all in one transaction."""
        with self._transaction() as db:
            self._finish(db, show_id, end_line, outcome, stars, wall)

    def _finish(self, db, show_id: int, end_line: dict, outcome: str, stars: int, wall: float) -> None:
        self._append(db, show_id, end_line)
        db.execute("UPDATE shows SET outcome = ?, stars = ?, ended = ? WHERE id = ?",
                   (outcome, stars, iso(wall), show_id))
        if outcome in ("win", "loss"):  # the start player token passes after every game, won or lost
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('rotation', ?)",
                       (str(self._rotation(db) + 1),))

    def set_orientation(self, show_id: int, orientation: dict) -> None:
        with self._transaction() as db:
            db.execute("UPDATE shows SET orientation = ? WHERE id = ?", (json.dumps(orientation), show_id))

    def write(self, ops: list[tuple]) -> None:
        """A batch of the journal's writes, in order, in one transaction (one fsync for them all):
        ("line", show_id, line), ("finish", show_id, end_line, outcome, stars, wall),
        ("orientation", show_id, {colour: swapped})."""
        with self._transaction() as db:
            for kind, show_id, *rest in ops:
                if kind == "line":
                    self._append(db, show_id, rest[0])
                elif kind == "finish":
                    self._finish(db, show_id, *rest)
                elif kind == "orientation":
                    db.execute("UPDATE shows SET orientation = ? WHERE id = ?", (json.dumps(rest[0]), show_id))

    def unfinished_show(self) -> dict | None:
        """The show that was running when the daemon stopped, if any, with its journal."""
        rows = self._read("SELECT * FROM shows WHERE outcome = 'running' ORDER BY id DESC LIMIT 1")
        if not rows:
            return None
        show = dict(rows[0])
        show["lines"] = self.show_log(show["id"])
        show["orientation"] = json.loads(show["orientation"])
        return show

    def show_log(self, show_id: int) -> list[str] | None:
        if not self._read("SELECT 1 FROM shows WHERE id = ?", (show_id,)):
            return None
        return [r["line"] for r in self._read("SELECT line FROM journal WHERE show_id = ? ORDER BY n", (show_id,))]

    def shows(self, limit: int = 100) -> list[dict]:
        rows = self._read("SELECT * FROM shows ORDER BY id DESC LIMIT ?", (limit,))
        return [_show_row(r) for r in rows]

    def show(self, show_id: int) -> dict | None:
        rows = self._read("SELECT * FROM shows WHERE id = ?", (show_id,))
        return _show_row(rows[0]) if rows else None

    # ---- score pad and players -------------------------------------------

    def set_players(self, names: list[str]) -> None:
        """The players in clockwise order; the first one starts next."""
        with self._transaction() as db:
            db.execute("DELETE FROM players")
            db.executemany("INSERT INTO players (position, name) VALUES (?, ?)", list(enumerate(names)))
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('rotation', '0')")

    def scorepad(self) -> dict:
        """Per event: best stars, attempts (won or lost), wins, last played; and the rotation."""
        played = {r["event_id"]: r for r in self._read(
            "SELECT event_id, MAX(event_name) AS name,"
            " MAX(CASE WHEN outcome = 'win' THEN stars END) AS best_stars,"
            " SUM(outcome IN ('win', 'loss')) AS attempts, SUM(outcome = 'win') AS wins,"
            " MAX(started) AS last_played FROM shows GROUP BY event_id")}
        events = []
        for event in self.events().values():
            row = played.pop(event.id, None)
            events.append(_pad_row(event.id, event.name, row))
        events += [_pad_row(event_id, row["name"], row) for event_id, row in played.items()]
        with closing(self._connect()) as db:
            players = [r["name"] for r in db.execute("SELECT name FROM players ORDER BY position")]
            start_player = self._start_player(db)
        return {"events": events, "players": players, "start_player": start_player}

    def _rotation(self, db) -> int:
        row = db.execute("SELECT value FROM meta WHERE key = 'rotation'").fetchone()
        return int(row["value"]) if row else 0

    def _start_player(self, db) -> str | None:
        players = [r["name"] for r in db.execute("SELECT name FROM players ORDER BY position")]
        return players[self._rotation(db) % len(players)] if players else None


def _pad_row(event_id: str, name: str, row) -> dict:
    return {"event": event_id, "name": name,
            "best_stars": row["best_stars"] if row else None,
            "attempts": row["attempts"] or 0 if row else 0,
            "wins": row["wins"] or 0 if row else 0,
            "last_played": row["last_played"] if row else None}


def _show_row(row: sqlite3.Row) -> dict:
    return {"id": row["id"], "event": row["event_id"], "event_name": row["event_name"],
            "outcome": row["outcome"], "stars": row["stars"], "started": row["started"],
            "ended": row["ended"], "challenge": bool(row["challenge"]), "start_player": row["start_player"]}


class SlowStore(Store):
    """A store whose every journal write takes `delay_s` longer, as an SD card's fsync can.

    For benchmarks and tests of a table that must not wait for its disk.
    """

    def __init__(self, path: Path | str, delay_s: float = 0.05):
        super().__init__(path)
        self.delay_s = delay_s

    def write(self, ops: list[tuple]) -> None:
        import time

        time.sleep(self.delay_s)
        super().write(ops)
