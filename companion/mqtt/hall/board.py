"""The leaderboard across tables, in its own SQLite file so that it outlives a restart of the hall.

Each finished show a table sends is kept once (a table that sends it again,
after a reconnect, changes nothing). Per event: the best stars of a win and
the attempts (shows won or lost), per table and over every table.

The board is kept incrementally: a show changes one (event, table) row and
the event's totals, an indexed update (O(log n) in the rows kept), never a
regrouping of every show. It is bounded: the board shows the best
BEST_PER_EVENT tables of each event (all tables still count in the event's
totals), at most MAX_EVENTS events, and remembers the last SEEN_PER_TABLE
shows of each table to know a repeat.

>>> board = Leaderboard(":memory:")
>>> board.record("t1", {"id": 1, "event": "training", "event_name": "Training", "outcome": "win",
...                     "stars": 2, "started": "2026-12-01T10:00:00Z"})
True
>>> board.rows()[0]["best_stars"], board.rows()[0]["tables"][0]["table"]
(2, 't1')
"""

import sqlite3
import threading
from pathlib import Path

from companion.errors import BadInput

BEST_PER_EVENT = 10  # tables listed under each event: the podium and then some, and a bound on the page
MAX_EVENTS = 100  # events on the board: every built-in one and a club's own, with room to spare
SEEN_PER_TABLE = 64  # a table's last shows kept to spot a repeat (a reconnect resends the last few at most)

SCHEMA = """
CREATE TABLE IF NOT EXISTS shows (
    tbl TEXT NOT NULL, id INTEGER NOT NULL, started TEXT NOT NULL,
    event TEXT NOT NULL, event_name TEXT NOT NULL, outcome TEXT NOT NULL, stars INTEGER NOT NULL,
    PRIMARY KEY (tbl, id, started)  -- a table whose database was replaced counts its shows from 1 again
);
CREATE TABLE IF NOT EXISTS standings (
    event TEXT NOT NULL, tbl TEXT NOT NULL, event_name TEXT NOT NULL,
    best_stars INTEGER, attempts INTEGER NOT NULL,
    PRIMARY KEY (event, tbl)
);
"""
# A hall file from before the standings table: its shows are grouped once, at open.
FILL_STANDINGS = """
INSERT OR IGNORE INTO standings (event, tbl, event_name, best_stars, attempts)
SELECT event, tbl, MAX(event_name), MAX(CASE WHEN outcome = 'win' THEN stars END), SUM(outcome IN ('win', 'loss'))
FROM shows GROUP BY event, tbl
"""


def _rank(row: dict) -> tuple:
    """Better first: more stars, then more attempts, then the name."""
    return (-(row["best_stars"] if row["best_stars"] is not None else -1), -row["attempts"], row["table"])


class Leaderboard:
    """Finished shows of every table, and the standings drawn from them."""

    def __init__(self, path: Path | str):
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        self._events: dict[str, dict] = {}  # event -> {event, event_name, best_stars, attempts, top: [rows]}
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # a power cut may cost the last shows, never the file
            self._db.executescript(SCHEMA)
            if self._db.execute("SELECT 1 FROM standings LIMIT 1").fetchone() is None:
                self._db.execute(FILL_STANDINGS)
            for row in self._db.execute("SELECT * FROM standings ORDER BY event, tbl"):
                self._take(row["event"], row["event_name"], dict(table=row["tbl"], best_stars=row["best_stars"],
                                                                  attempts=row["attempts"]), None)

    def record(self, table: str, show: dict) -> bool:
        """Keep one finished show (a checked row); False if it was kept already.

        BadInput when the board already holds MAX_EVENTS events and this is a new one.
        """
        event = show["event"]
        if event not in self._events and len(self._events) >= MAX_EVENTS:
            raise BadInput("shows.event", f"the board already shows {MAX_EVENTS} events")
        won = show["stars"] if show["outcome"] == "win" else None
        counted = 1 if show["outcome"] in ("win", "loss") else 0
        with self._lock:
            self._db.execute("BEGIN")
            try:
                done = self._db.execute(
                    "INSERT OR IGNORE INTO shows (tbl, id, started, event, event_name, outcome, stars)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (table, show["id"], show["started"], event, show["event_name"], show["outcome"], show["stars"]))
                if done.rowcount != 1:
                    self._db.execute("ROLLBACK")
                    return False
                self._db.execute(  # only this table's own few rows are looked at: bounded, whatever the board holds
                    "DELETE FROM shows WHERE tbl = ? AND rowid IN (SELECT rowid FROM shows WHERE tbl = ? "
                    "ORDER BY rowid DESC LIMIT -1 OFFSET ?)", (table, table, SEEN_PER_TABLE))
                row = self._db.execute(
                    "INSERT INTO standings (event, tbl, event_name, best_stars, attempts) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (event, tbl) DO UPDATE SET event_name = excluded.event_name, "
                    "best_stars = CASE WHEN best_stars IS NULL THEN excluded.best_stars "
                    "WHEN excluded.best_stars IS NULL THEN best_stars ELSE MAX(best_stars, excluded.best_stars) END, "
                    "attempts = attempts + excluded.attempts RETURNING best_stars, attempts",
                    (event, table, show["event_name"], won, counted)).fetchone()
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._take(event, show["event_name"], dict(table=table, best_stars=row["best_stars"],
                                                       attempts=row["attempts"]),
                       (won, counted))
        return True

    def _take(self, event: str, name: str, standing: dict, change: tuple | None) -> None:
        """Fold one table's new standing into its event: the totals, and the best tables (at most BEST_PER_EVENT)."""
        entry = self._events.setdefault(event, {"event": event, "event_name": name, "best_stars": None,
                                                "attempts": 0, "tables": []})
        entry["event_name"] = name
        won, counted = change if change is not None else (standing["best_stars"], standing["attempts"])
        entry["attempts"] += counted
        if won is not None:
            entry["best_stars"] = max(entry["best_stars"] if entry["best_stars"] is not None else -1, won)
        top = [row for row in entry["tables"] if row["table"] != standing["table"]]
        top.append(standing)
        top.sort(key=_rank)
        entry["tables"] = top[:BEST_PER_EVENT]

    def rows(self) -> list[dict]:
        """Per event: best stars and attempts over all tables, and the best tables' own."""
        with self._lock:
            events = [dict(e, tables=[dict(t) for t in e["tables"]]) for e in self._events.values()]
        return sorted(events, key=lambda e: (-(e["best_stars"] if e["best_stars"] is not None else -1),
                                             e["event_name"]))

    def close(self) -> None:
        with self._lock:
            self._db.close()
