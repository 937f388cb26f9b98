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

What strangers can fill is bounded too, and never for good. A table's
standing that no show has refreshed for ENTRY_KEPT_S goes by itself. A
table holds at most EVENTS_PER_TABLE events: its next new one takes the
place of its own stalest. A table's own show is never refused for room:
when the board is full, the event whose last show is the oldest, among
those the table has no standing in, goes. And the hall's owner can
`remove` a table: its standings and shows go, and its later shows are not
counted (the removal is kept in the file, so it outlives a restart).

>>> board = Leaderboard(":memory:")
>>> board.record("t1", {"id": 1, "event": "training", "event_name": "Training", "outcome": "win",
...                     "stars": 2, "started": "2026-12-01T10:00:00Z"})
True
>>> board.rows()[0]["best_stars"], board.rows()[0]["tables"][0]["table"]
(2, 't1')
"""

import threading
import time
from pathlib import Path

from companion.records.database import Database
from companion.records.schema import Schema, script
from companion.records.tally import score_pad

BEST_PER_EVENT = 10  # tables listed under each event: the podium and then some, and a bound on the page
MAX_EVENTS = 100  # events on the board: every built-in one and a club's own, with room to spare
SEEN_PER_TABLE = 64  # a table's last shows kept to spot a repeat (a reconnect resends the last few at most)
EVENTS_PER_TABLE = 20  # a club's whole list of events with room to spare; one table alone never fills the board
ENTRY_KEPT_S = 90 * 24 * 3600.0  # a season: a club's regular events stay, a stray's or a gone table's go by themselves
AGE_EVERY_S = 3600.0  # the board looks for aged standings this often: an hour late on a season is nothing

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

# When each standing last had a show (a hall file from before: from now), and the tables the owner removed.
HEARD = """
ALTER TABLE standings ADD COLUMN heard REAL NOT NULL DEFAULT 0;
UPDATE standings SET heard = CAST(strftime('%s', 'now') AS REAL);
CREATE INDEX IF NOT EXISTS standings_tbl ON standings (tbl);  -- not on `heard`: every show moves it
CREATE TABLE IF NOT EXISTS removed (tbl TEXT PRIMARY KEY, at REAL NOT NULL);
"""

HALL_FILE = Schema(steps=(
    script(SHOWS),  # 1: the finished shows each table sent
    script(STANDINGS + FILL_STANDINGS + ";"),  # 2: the standings, kept as shows come in
    script(HEARD),  # 3: standings age out; tables can be removed
))


def _rank(row: dict) -> tuple:
    """Better first: more stars, then more attempts, then the name."""
    return (-(row["best_stars"] if row["best_stars"] is not None else -1), -row["attempts"], row["table"])


class Leaderboard:
    """Finished shows of every table, and the standings drawn from them."""

    def __init__(self, path: Path | str, *, clock=time.time):
        self._clock = clock  # wall time: an entry's age is kept in the file and outlives a restart
        # Not durable: a power cut may cost the last shows, never the file; the tables send them again.
        self.database = Database(path, HALL_FILE, durable=False)
        self._lock = threading.Lock()  # keeps the file and the board in memory in step
        self._events: dict[str, dict] = {}  # event -> {event, event_name, best_stars, attempts, top: [rows]}
        with self._lock:
            self._removed = {row["tbl"] for row in self.database.read("SELECT tbl FROM removed")}
            self._seen_removed: set[str] = set()  # what `removals` has told of: nothing yet
            self._age()
            self._events = {}  # drawn once, from what the aging left
            self._load("SELECT * FROM standings ORDER BY event, tbl")

    def _load(self, sql: str, params=()) -> None:
        for row in self.database.read(sql, params):
            self._take(row["event"], row["event_name"], dict(table=row["tbl"], best_stars=row["best_stars"],
                                                              attempts=row["attempts"]), None)

    def record(self, table: str, show: dict) -> bool:
        """Keep one finished show (a checked row); False if it was kept already or its table was removed.

        Never refused for room: a full board makes room (see the module's text).
        """
        event = show["event"]
        won = show["stars"] if show["outcome"] == "win" else None
        counted = 1 if show["outcome"] in ("win", "loss") else 0
        with self._lock:  # the board in memory takes the show once it is in the file, and in the file's order
            if table in self._removed:
                return False
            if self._clock() >= self._next_age:
                self._age()
            with self.database.transaction() as db:
                gone = self._make_room(db, table, event)
                standing = self._keep(db, table, show, won, counted)
            self._reload(gone)
            if standing is None:
                return False
            self._take(event, show["event_name"], standing, (won, counted))
        return True

    def _keep(self, db, table: str, show: dict, won: int | None, counted: int) -> dict | None:
        """Write one show and its table's new standing (in `db`'s transaction); None if the show was kept already."""
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
            "INSERT INTO standings (event, tbl, event_name, best_stars, attempts, heard) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (event, tbl) DO UPDATE SET event_name = excluded.event_name, heard = excluded.heard, "
            "best_stars = CASE WHEN best_stars IS NULL THEN excluded.best_stars "
            "WHEN excluded.best_stars IS NULL THEN best_stars ELSE MAX(best_stars, excluded.best_stars) END, "
            "attempts = attempts + excluded.attempts RETURNING best_stars, attempts",
            (show["event"], table, show["event_name"], won, counted, self._clock())).fetchone()
        return dict(table=table, best_stars=row["best_stars"], attempts=row["attempts"])

    def _age(self) -> None:
        """Drop the standings no show refreshed for ENTRY_KEPT_S (once every AGE_EVERY_S: a scan of the standings)."""
        self._next_age = self._clock() + AGE_EVERY_S
        self._drop("DELETE FROM standings WHERE heard < ? RETURNING event, tbl", (self._clock() - ENTRY_KEPT_S,))

    def _make_room(self, db, table: str, event: str) -> set[str]:
        """Room for `table`'s first show of `event`: its own stalest event past its quota, then, when the board
        is full, the stalest event of others. In the show's transaction; the events that lost standings."""
        if db.execute("SELECT 1 FROM standings WHERE event = ? AND tbl = ?", (event, table)).fetchone():
            return set()  # the table's standing is there already: the common case, one indexed look
        gone = set()
        own = db.execute("SELECT event FROM standings WHERE tbl = ? ORDER BY heard", (table,)).fetchall()
        if len(own) >= EVENTS_PER_TABLE:
            gone |= self._delete(db, "DELETE FROM standings WHERE tbl = ? AND event = ? RETURNING event, tbl",
                                 (table, own[0]["event"]))
        if db.execute("SELECT 1 FROM standings WHERE event = ?", (event,)).fetchone():
            return gone
        if db.execute("SELECT COUNT(DISTINCT event) FROM standings").fetchone()[0] < MAX_EVENTS:
            return gone
        stalest = (db.execute("SELECT event FROM standings GROUP BY event HAVING SUM(tbl = ?) = 0 "
                              "ORDER BY MAX(heard) LIMIT 1", (table,)).fetchone()
                   or db.execute("SELECT event FROM standings GROUP BY event ORDER BY MAX(heard) LIMIT 1").fetchone())
        return gone | self._delete(db, "DELETE FROM standings WHERE event = ? RETURNING event, tbl", (stalest[0],))

    @staticmethod
    def _delete(db, sql: str, params: tuple) -> set[str]:
        """Delete standings (`sql` returns each one's event and table) and their shows; the events touched."""
        gone = db.execute(sql, params).fetchall()
        for row in gone:
            db.execute("DELETE FROM shows WHERE tbl = ? AND event = ?", (row["tbl"], row["event"]))
        return {row["event"] for row in gone}

    def _drop(self, sql: str, params: tuple) -> None:
        """Delete standings as `_delete` does, in a transaction of their own, and redraw their events."""
        with self.database.transaction() as db:
            gone = self._delete(db, sql, params)
        self._reload(gone)

    def _reload(self, events: set[str]) -> None:
        """Redraw `events` from the file, after some of their standings went."""
        for event in events:
            self._events.pop(event, None)
            self._load("SELECT * FROM standings WHERE event = ? ORDER BY tbl", (event,))

    def remove(self, table: str) -> bool:
        """The owner's word: drop `table`'s standings and shows, and count none of its shows again.

        False if it was removed already.
        """
        with self._lock:
            with self.database.transaction() as db:  # all at once: a hall reading the file never sees half of it
                done = db.execute("INSERT OR IGNORE INTO removed (tbl, at) VALUES (?, ?)", (table, self._clock()))
                gone = self._forget(db, table)
            self._reload(gone)
            self._removed.add(table)
            return done.rowcount == 1

    def _forget(self, db, table: str) -> set[str]:
        """Delete every standing and show of `table`; the events that lost a standing."""
        gone = self._delete(db, "DELETE FROM standings WHERE tbl = ? RETURNING event, tbl", (table,))
        db.execute("DELETE FROM shows WHERE tbl = ?", (table,))
        return gone

    def removals(self) -> set[str]:
        """The tables removed since the last look, by this board or by `companion hall remove` on its file.

        A table removed by another process leaves this board in memory too, with any show it took meanwhile.
        """
        with self._lock:
            now = {row["tbl"] for row in self.database.read("SELECT tbl FROM removed")}
            new, self._removed = now - self._seen_removed, now
            self._seen_removed = set(now)
            if new:
                with self.database.transaction() as db:  # shows this board took before it heard of the removal
                    for table in new:
                        self._forget(db, table)
                self._events = {}
                self._load("SELECT * FROM standings ORDER BY event, tbl")
            return new

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
