"""The leaderboard across tables, in its own SQLite file so that it outlives a restart of the hall.

Each finished show a table sends is kept once (a table that sends it again,
after a reconnect, changes nothing). Per event: the best stars of a win and
the attempts (shows won or lost), per table and over every table.

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

SCHEMA = """
CREATE TABLE IF NOT EXISTS shows (
    tbl TEXT NOT NULL, id INTEGER NOT NULL, started TEXT NOT NULL,
    event TEXT NOT NULL, event_name TEXT NOT NULL, outcome TEXT NOT NULL, stars INTEGER NOT NULL,
    PRIMARY KEY (tbl, id, started)  -- a table whose database was replaced counts its shows from 1 again
)
"""
PER_TABLE = """
SELECT event, MAX(event_name) AS event_name, tbl,
       MAX(CASE WHEN outcome = 'win' THEN stars END) AS best_stars,
       SUM(outcome IN ('win', 'loss')) AS attempts
FROM shows GROUP BY event, tbl ORDER BY event, tbl
"""


class Leaderboard:
    """Finished shows of every table, and the standings drawn from them."""

    def __init__(self, path: Path | str):
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(SCHEMA)

    def record(self, table: str, show: dict) -> bool:
        """Keep one finished show (a checked row); False if it was kept already."""
        with self._lock:
            done = self._db.execute(
                "INSERT OR IGNORE INTO shows (tbl, id, started, event, event_name, outcome, stars)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (table, show["id"], show["started"], show["event"], show["event_name"], show["outcome"], show["stars"]))
            return done.rowcount == 1

    def rows(self) -> list[dict]:
        """Per event: best stars and attempts over all tables, and the same for each table."""
        with self._lock:
            found = self._db.execute(PER_TABLE).fetchall()
        events: dict[str, dict] = {}
        for row in found:
            entry = events.setdefault(row["event"], {"event": row["event"], "event_name": row["event_name"],
                                                     "best_stars": None, "attempts": 0, "tables": []})
            entry["tables"].append({"table": row["tbl"], "best_stars": row["best_stars"], "attempts": row["attempts"]})
            entry["attempts"] += row["attempts"]
            if row["best_stars"] is not None:
                entry["best_stars"] = max(entry["best_stars"] or 0, row["best_stars"])
        return sorted(events.values(), key=lambda e: (-(e["best_stars"] or -1), e["event_name"]))

    def close(self) -> None:
        with self._lock:
            self._db.close()
