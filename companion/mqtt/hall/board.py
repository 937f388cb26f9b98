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

import threading
from pathlib import Path

from companion.errors import BadInput
from companion.records.database import Database
from companion.records.schema import Schema, script
from companion.records.tally import score_pad

BEST_PER_EVENT = 10  # tables listed under each event: the podium and then some, and a bound on the page
MAX_EVENTS = 100  # events on the board: every built-in one and a club's own, with room to spare
SEEN_PER_TABLE = 64  # a table's last shows kept to spot a repeat (a reconnect resends the last few at most)

SHOWS = """
CREATE TABLE IF NOT EXISTS shows (
    tbl TEXT NOT NULL, id INTEGER NOT NULL, started TEXT NOT NULL,
    event TEXT NOT NULL, event_name TEXT NOT NULL, outcome TEXT NOT NULL, stars INTEGER NOT NULL,
    PRIMARY KEY (tbl, id, started)  -- a table whose database was replaced counts its shows from 1 again
);
"""
STANDINGS = """
CREATE TABLE IF NOT EXISTS standings (
    event TEXT NOT NULL, tbl TEXT NOT NULL, event_name TEXT NOT NULL,
    best_stars INTEGER, attempts INTEGER NOT NULL,
    PRIMARY KEY (event, tbl)
);
"""
# A hall file from before the standings table: its shows are grouped once (a standing already kept stays).
FILL_STANDINGS = ("INSERT OR IGNORE INTO standings (event, tbl, event_name, best_stars, attempts)"
                  " SELECT event, tbl, name, best_stars, attempts FROM ("
                  + score_pad("shows", by="event, tbl") + ")")

HALL_FILE = Schema(steps=(
    script(SHOWS),  # 1: the finished shows each table sent
    script(STANDINGS + FILL_STANDINGS + ";"),  # 2: the standings, kept as shows come in
))


def _rank(row: dict) -> tuple:
    """Better first: more stars, then more attempts, then the name."""
    return (-(row["best_stars"] if row["best_stars"] is not None else -1), -row["attempts"], row["table"])


class Leaderboard:
    """Finished shows of every table, and the standings drawn from them."""

    def __init__(self, path: Path | str):
        # Not durable: a power cut may cost the last shows, never the file; the tables send them again.
        self.database = Database(path, HALL_FILE, durable=False)
        self._lock = threading.Lock()  # keeps the file and the board in memory in step
        self._events: dict[str, dict] = {}  # event -> {event, event_name, best_stars, attempts, top: [rows]}
        with self._lock:
            for row in self.database.read("SELECT * FROM standings ORDER BY event, tbl"):
                self._take(row["event"], row["event_name"], dict(table=row["tbl"], best_stars=row["best_stars"],
                                                                  attempts=row["attempts"]), None)

    def record(self, table: str, show: dict) -> bool:
        """Keep one finished show (a checked row); False if it was kept already.

        BadInput when the board already holds MAX_EVENTS events and this is a new one.
        """
        event = show["event"]
        if event not in self._events and len(self._events) >= MAX_EVENTS:
            raise BadInput("shows.event", f"the board already shows {MAX_EVENTS} events", code="errors.hall.events",
                           params={"limit": MAX_EVENTS})
        won = show["stars"] if show["outcome"] == "win" else None
        counted = 1 if show["outcome"] in ("win", "loss") else 0
        with self._lock:  # the board in memory takes the show once it is in the file, and in the file's order
            standing = self._keep(table, show, won, counted)
            if standing is None:
                return False
            self._take(event, show["event_name"], standing, (won, counted))
        return True

    def _keep(self, table: str, show: dict, won: int | None, counted: int) -> dict | None:
        """Write one show and its table's new standing in one transaction; None if the show was kept already."""
        with self.database.transaction() as db:
            done = db.execute(
                "INSERT OR IGNORE INTO shows (tbl, id, started, event, event_name, outcome, stars)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (table, show["id"], show["started"], show["event"], show["event_name"], show["outcome"],
                 show["stars"]))
            if done.rowcount != 1:
                return None
            db.execute(  # only this table's own few rows are looked at: bounded, whatever the board holds
                "DELETE FROM shows WHERE tbl = ? AND rowid IN (SELECT rowid FROM shows WHERE tbl = ? "
                "ORDER BY rowid DESC LIMIT -1 OFFSET ?)", (table, table, SEEN_PER_TABLE))
            row = db.execute(
                "INSERT INTO standings (event, tbl, event_name, best_stars, attempts) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (event, tbl) DO UPDATE SET event_name = excluded.event_name, "
                "best_stars = CASE WHEN best_stars IS NULL THEN excluded.best_stars "
                "WHEN excluded.best_stars IS NULL THEN best_stars ELSE MAX(best_stars, excluded.best_stars) END, "
                "attempts = attempts + excluded.attempts RETURNING best_stars, attempts",
                (show["event"], table, show["event_name"], won, counted)).fetchone()
        return dict(table=table, best_stars=row["best_stars"], attempts=row["attempts"])

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
            self.database.close()
