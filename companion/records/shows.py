"""The table's show records: each show's journal, the shows, saved events, the players (the score pad).

The journal is written in batches as the show happens (see `write`), each
batch one transaction in WAL mode with a full sync, so a power cut loses at
most the batch in flight, and a show's log read back is exactly what
`companion replay` takes. Every query is parameterised; any thread may call.
"""

import json
import logging
import math
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from companion import jsonin
from companion.clock import MAX_SPEED, MIN_SPEED
from companion.errors import BadInput, Conflict
from companion.records.database import Database, DamagedRow, iso, text_cell
from companion.records.tally import score_pad
from companion.skyrockets.colours import COLOURS
from companion.skyrockets.events import BUILTIN_EVENTS, Event, parse_event

log = logging.getLogger(__name__)

# The score pad's figures per event, kept by triggers as shows are written (by this program or any
# other), so the pad reads one row per event instead of grouping every stored show on each request.
# A show's write recounts its event's shows alone, through the shows_by_event index.
PAD_EVENT = """DELETE FROM pad WHERE event_id = {row}.event_id;
    INSERT INTO pad """ + score_pad("shows", by="event_id", where="event_id = {row}.event_id") + ";"

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


MAX_COUNT = 10**18  # boots and rotations: far more than a table will ever see, and within 64 bits


def whole(value: object, field: str) -> int:
    """A stored count: a whole number 0..MAX_COUNT, as SQLite or our own text holds it."""
    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, str) and text.isascii() and text.isdigit() and len(text) <= len(str(MAX_COUNT)):
        text = int(text)
    if isinstance(text, bool) or not isinstance(text, int) or not 0 <= text <= MAX_COUNT:
        raise BadInput(field, f"{str(value)[:40]!r} is not a whole number 0-{MAX_COUNT}")
    return text


def finite(value: object, field: str, *, low: float, high: float) -> float:
    """A stored real number within low..high."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadInput(field, f"{str(value)[:40]!r} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise BadInput(field, "is too large a number") from None
    if not math.isfinite(number) or not low <= number <= high:
        raise BadInput(field, f"{number!r} is out of range ({low:g}-{high:g})")
    return number


def orientation(value: object, field: str = "orientation") -> dict:
    """A show's cradle orientations: {colour: true, false or null}, stored as JSON text."""
    if not isinstance(value, str):
        raise BadInput(field, f"expected JSON text, got {type(value).__name__}")
    data = jsonin.parse(value, field)
    if not isinstance(data, dict):
        raise BadInput(field, f"expected an object of colour: true/false/null, got {type(data).__name__}")
    for colour, swapped in data.items():
        if colour not in COLOURS:
            raise BadInput(f"{field}.{colour[:20]}", "is not a timer colour")
        if swapped is not None and not isinstance(swapped, bool):
            raise BadInput(f"{field}.{colour}", f"expected true, false or null, got {swapped!r}")
    return data


def line_text(value: object) -> str:
    """A stored journal line as text (a line stored as bytes is decoded; nothing else is altered)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class JournalLine:
    """A line of a show's journal."""

    show_id: int
    line: dict


@dataclass(frozen=True)
class ShowEnd:
    """A show's end line, its outcome, and the start player passing on."""

    show_id: int
    end_line: dict
    outcome: str
    stars: int
    wall: float


@dataclass(frozen=True)
class CradleOrientation:
    """Which way round each cradle holds its glass ({colour: swapped}), so a restart reads the sensors right."""

    show_id: int
    cradles: dict


@dataclass(frozen=True)
class ShowCheckpoint:
    """A running show's state once its first `lines` journal lines are applied (companion.skyrockets.log.checkpoint)."""

    show_id: int
    lines: int
    state: dict


JournalWrite = JournalLine | ShowEnd | CradleOrientation | ShowCheckpoint


class Store:
    """The show records in the table's SQLite file (the board games' shelf shares the file).

    >>> store = Store(":memory:")
    >>> store.next_boot(), store.next_boot()
    (1, 2)
    """

    def __init__(self, path: Path | str):
        from companion.records.schema import TABLE_FILE  # the file's versions name every record module, this one too

        self.database = Database(path, TABLE_FILE)
        self.path = self.database.path

    def close(self) -> None:
        self.database.close()

    # ---- meta -----------------------------------------------------------

    def next_boot(self) -> int:
        """Count daemon starts, so numbers handed out per run keep increasing across restarts."""
        with self.database.transaction() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'boots'").fetchone()
            try:
                boots = whole(row["value"], "value") + 1 if row else 1
            except BadInput as e:
                raise DamagedRow("meta row 'boots'", e) from None
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('boots', ?)", (str(boots),))
        return boots

    # ---- events ---------------------------------------------------------

    def save_event(self, event: Event, wall: float) -> None:
        """Keep a custom event under its id, which names one setup for good.

        The score pad counts attempts per id, so an id that took a second setup
        would mix two games: a built-in id, or a saved id with another setup,
        is refused (Conflict). The same setup under a new name keeps the name
        as typed.
        """
        if event.id in BUILTIN_EVENTS:
            raise Conflict("event.id", f"{event.id!r} is the id of a built-in event: give your event another id")
        with self.database.transaction() as db:
            row = db.execute("SELECT data FROM events WHERE id = ?", (event.id,)).fetchone()
            if row is not None and _setup_of(parse_event(json.loads(row["data"]), "saved event")) != _setup_of(event):
                raise Conflict("event.id", f"an event {event.id!r} is already saved with another setup: "
                                           "give this one a new id")
            db.execute("INSERT OR REPLACE INTO events (id, data, saved) VALUES (?, ?, ?)",
                       (event.id, json.dumps(event.to_json(), ensure_ascii=False), iso(wall)))

    def events(self) -> dict[str, Event]:
        """Built-in events first, then saved ones by id."""
        saved = {}
        for r in self.database.read("SELECT id, data FROM events ORDER BY id"):
            try:
                saved[r["id"]] = parse_event(jsonin.parse(r["data"], "data") if isinstance(r["data"], (str, bytes))
                                             else r["data"], "data")
            except BadInput as e:  # set aside (the row stays as it is); every other event still loads
                log.error("%s", DamagedRow(f"events row {str(r['id'])[:40]!r}", e))
        return {**BUILTIN_EVENTS, **{k: v for k, v in saved.items() if k not in BUILTIN_EVENTS}}

    # ---- shows and their journals --------------------------------------

    def begin_show(self, event: Event, challenge: bool, setup_line: dict, wall: float, speed: float) -> int:
        """Record a new show and its setup line; the start player is the next in the rotation."""
        with self.database.transaction() as db:
            start_player = self._start_player(db)
            cur = db.execute(
                "INSERT INTO shows (event_id, event_name, challenge, started, started_wall, speed, start_player)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (event.id, event.name, int(challenge), iso(wall), wall, speed, start_player))
            show_id = cur.lastrowid
            db.execute("INSERT INTO journal (show_id, n, line) VALUES (?, 1, ?)", (show_id, json.dumps(setup_line)))
        return show_id

    @staticmethod
    def _append(db, show_id: int, line: dict) -> None:
        db.execute("INSERT INTO journal (show_id, n, line) SELECT ?, COALESCE(MAX(n), 0) + 1, ? FROM journal"
                   " WHERE show_id = ?", (show_id, json.dumps(line), show_id))

    def finish_show(self, show_id: int, end_line: dict, outcome: str, stars: int, wall: float) -> None:
        """The end line, the outcome, and the start player passing on, all in one transaction."""
        with self.database.transaction() as db:
            self._finish(db, show_id, end_line, outcome, stars, wall)

    def _finish(self, db, show_id: int, end_line: dict, outcome: str, stars: int, wall: float) -> None:
        self._append(db, show_id, end_line)
        db.execute("UPDATE shows SET outcome = ?, stars = ?, ended = ? WHERE id = ?",
                   (outcome, stars, iso(wall), show_id))
        db.execute("DELETE FROM checkpoints WHERE show_id = ?", (show_id,))  # only a running show resumes
        if outcome in ("win", "loss"):  # the start player token passes after every game, won or lost
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('rotation', ?)",
                       (str(self._rotation(db) + 1),))

    def write(self, writes: list[JournalWrite]) -> None:
        """A batch of the journal's writes, in order, in one transaction (one fsync for them all)."""
        with self.database.transaction() as db:
            for write in writes:
                if isinstance(write, JournalLine):
                    self._append(db, write.show_id, write.line)
                elif isinstance(write, ShowEnd):
                    self._finish(db, write.show_id, write.end_line, write.outcome, write.stars, write.wall)
                elif isinstance(write, CradleOrientation):
                    db.execute("UPDATE shows SET orientation = ? WHERE id = ?",
                               (json.dumps(write.cradles), write.show_id))
                elif isinstance(write, ShowCheckpoint):
                    db.execute("INSERT OR REPLACE INTO checkpoints (show_id, lines, state) VALUES (?, ?, ?)",
                               (write.show_id, write.lines, json.dumps(write.state)))
                else:
                    raise TypeError(f"not a journal write: {write!r}")

    def unfinished_show(self, *, whole: bool = True) -> dict | None:
        """The show that was running when the daemon stopped, if any, with its journal.

        With `whole=False` the journal is left out: `checkpoint` and
        `show_log(id, after=...)` give what a resume needs.
        """
        rows = self.database.read("SELECT * FROM shows WHERE outcome = 'running' ORDER BY id DESC LIMIT 1")
        if not rows:
            return None
        show = dict(rows[0])
        try:
            show["speed"] = finite(show["speed"], "speed", low=MIN_SPEED, high=MAX_SPEED)
            show["started_wall"] = finite(show["started_wall"], "started_wall", low=0.0, high=1e11)
            show["orientation"] = orientation(show["orientation"])
        except BadInput as e:
            self.set_aside(show["id"])
            raise DamagedRow(f"shows row {show['id']}", e, "; that show is now recorded as aborted, its journal kept,"
                             " and the table starts without it") from None
        if whole:
            show["lines"] = self.show_log(show["id"])
        return show

    def checkpoint(self, show_id: int) -> dict | None:
        """The newest checkpoint kept for a running show, as stored ({"lines": ..., "state": text}), or None."""
        rows = self.database.read("SELECT lines, state FROM checkpoints WHERE show_id = ?", (show_id,))
        return dict(rows[0]) if rows else None

    def set_aside(self, show_id: int) -> None:
        """Record a show that cannot be resumed as aborted, so the table starts without it; its journal is kept."""
        with self.database.transaction() as db:
            db.execute("UPDATE shows SET outcome = 'aborted', ended = ? WHERE id = ? AND outcome = 'running'",
                       (iso(time.time()), show_id))

    def show_log(self, show_id: int, *, after: int = 0) -> list[str] | None:
        """A show's journal as a show log (only the lines after the first `after`, if given), or None."""
        if not self.database.read("SELECT 1 FROM shows WHERE id = ?", (show_id,)):
            return None
        rows = self.database.read("SELECT line FROM journal WHERE show_id = ? AND n > ? ORDER BY n", (show_id, after))
        return [line_text(r[0]) for r in rows]

    def shows(self, limit: int = 100) -> list[dict]:
        """Past shows, newest first; an ended show's `show_s` is its length in show time (its journal's last t)."""
        rows = self.database.read("SELECT * FROM shows ORDER BY id DESC LIMIT ?", (limit,))
        ended = [r["id"] for r in rows if r["ended"]]
        lengths = {}
        if ended:
            marks = ",".join("?" * len(ended))
            for last in self.database.read(
                    "SELECT j.show_id, j.line FROM journal j JOIN (SELECT show_id, MAX(n) AS n FROM journal"
                    f" WHERE show_id IN ({marks}) GROUP BY show_id) m ON j.show_id = m.show_id AND j.n = m.n",
                    tuple(ended)):
                lengths[last["show_id"]] = _line_t(last["line"])
        return [{**_show_row(r), "show_s": lengths.get(r["id"])} for r in rows]

    def show(self, show_id: int) -> dict | None:
        rows = self.database.read("SELECT * FROM shows WHERE id = ?", (show_id,))
        return _show_row(rows[0]) if rows else None

    # ---- score pad and players -------------------------------------------

    def set_players(self, names: list[str]) -> None:
        """The players in clockwise order; the first one starts next."""
        with self.database.transaction() as db:
            db.execute("DELETE FROM players")
            db.executemany("INSERT INTO players (position, name) VALUES (?, ?)", list(enumerate(names)))
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('rotation', '0')")

    def scorepad(self) -> dict:
        """Per event: best stars, attempts (won or lost), wins, last played; and the rotation."""
        played = {r["event_id"]: r for r in self.database.read(
            "SELECT event_id, name, best_stars, attempts, wins, last_played FROM pad")}
        events = []
        for event in self.events().values():
            row = played.pop(event.id, None)
            events.append(_pad_row(event.id, event.name, row))
        events += [_pad_row(event_id, row["name"], row) for event_id, row in played.items()]
        with self.database.connection() as db:
            players = [_text(r["name"]) for r in db.execute("SELECT name FROM players ORDER BY position")]
            start_player = self._start_player(db)
        return {"events": events, "players": players, "start_player": start_player}

    def _rotation(self, db) -> int:
        row = db.execute("SELECT value FROM meta WHERE key = 'rotation'").fetchone()
        try:
            return whole(row["value"], "value") if row else 0
        except BadInput as e:  # the start player is a courtesy: a bad count starts the rotation again
            log.error("%s; the start player rotation starts again", DamagedRow("meta row 'rotation'", e))
            return 0

    def _start_player(self, db) -> str | None:
        players = [_text(r["name"]) for r in db.execute("SELECT name FROM players ORDER BY position")]
        return players[self._rotation(db) % len(players)] if players else None


def _setup_of(event: Event) -> dict:
    """What an event sets out on the table: everything but its name."""
    return {k: v for k, v in event.to_json().items() if k != "name"}


# Listing rows for the pages, each cell is shown as the type it should have: a cell another program
# wrote with a wrong type is shown plainly (text as text, a bad count as 0), never a failed page.

def _text(value) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return text_cell(value) if isinstance(value, bytes) else str(value)


def _count(value) -> int:
    return value if isinstance(value, int) and 0 <= value <= MAX_COUNT else 0


def _pad_row(event_id: str, name: str, row) -> dict:
    return {"event": _text(event_id), "name": _text(name),
            "best_stars": _count(row["best_stars"]) if row and row["best_stars"] is not None else None,
            "attempts": _count(row["attempts"]) if row else 0,
            "wins": _count(row["wins"]) if row else 0,
            "last_played": _text(row["last_played"]) if row else None}


def _line_t(line) -> float | None:
    """The show time of a stored journal line, or None if the line does not read."""
    try:
        t = json.loads(line_text(line)).get("t")
    except (ValueError, AttributeError):
        return None
    return float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t >= 0 else None


def _show_row(row: sqlite3.Row) -> dict:
    return {"id": row["id"], "event": _text(row["event_id"]), "event_name": _text(row["event_name"]),
            "outcome": _text(row["outcome"]), "stars": _count(row["stars"]), "started": _text(row["started"]),
            "ended": _text(row["ended"]), "challenge": bool(row["challenge"]),
            "start_player": _text(row["start_player"])}


class SlowStore(Store):
    """A store whose every journal write takes `delay_s` longer, as an SD card's fsync can.

    For benchmarks and tests of a table that must not wait for its disk.
    """

    def __init__(self, path: Path | str, delay_s: float = 0.05):
        super().__init__(path)
        self.delay_s = delay_s

    def write(self, writes: list[JournalWrite]) -> None:
        time.sleep(self.delay_s)
        super().write(writes)
