"""The table's show records: each show's journal, the shows, saved events, the players (the score pad).

The journal is written in batches as the show happens (see `write`), each
batch one transaction in WAL mode with a full sync, so a power cut loses at
most the batch in flight, and a show's log read back is exactly what
`companion replay` takes. Every query is parameterised; any thread may call.
"""

import json
import logging
import secrets
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from companion import fields, jsonin
from companion.clock import MAX_SPEED, MIN_SPEED
from companion.errors import BadInput, Conflict
from companion.players import MAX_NAME, check_players
from companion.records.database import MAX_ROW_ID, Database, DamagedRow, iso, text_cell
from companion.records.kinds import Kind, Known
from companion.records import show_text
from companion.records.schema import TABLE_FILE
from companion.records.show_text import line_text, show_record
from companion.skyrockets.colours import COLOURS
from companion.skyrockets.events import BUILTIN_EVENTS, MAX_EVENT_ID, MAX_EVENT_NAME, Event, parse_event
from companion.skyrockets.festivals import MAX_STARS
from companion.skyrockets.log import MAX_SHOW_S, LogError, replay

log = logging.getLogger(__name__)

MAX_WALL = 1e11  # a wall-clock instant in epoch seconds: the year 5138, past any clock a table will have
MAX_COUNT = 10**18  # boots and rotations: far more than a table will ever see, and within 64 bits
# A show's journal holds a line per pose, flip or beam change: a busy hour at the table is some 3,000 lines.
# 20,000 is a whole day of play at a line every 4 s, and is replayed (as every request for a show's
# result does) in about a second on a Pi 4; a journal past it is refused, never stored.
MAX_JOURNAL_LINES = 20_000


def orientation(value: object, field: str = "orientation") -> dict:
    """A show's cradle orientations: {colour: true, false or null}."""
    fields.record(value, field, COLOURS)
    for colour, swapped in value.items():
        if swapped is not None:
            fields.yes_no(swapped, fields.at(field, colour))
    return value


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
                boots = fields.digits(row["value"], "value", 0, MAX_COUNT) + 1 if row else 1
            except BadInput as e:
                raise DamagedRow("meta row 'boots'", e) from None
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('boots', ?)", (str(boots),))
        return boots

    def table_id(self) -> str:
        """This table's own id, made once, the first time it is asked for, and kept in the file: what another app
        keeps from two tables (or from one table before and after its records were reset) apart, as show 1 of
        each is show 1.

        >>> store = Store(":memory:")
        >>> store.table_id() == store.table_id(), len(store.table_id())
        (True, 12)
        """
        with self.database.transaction() as db:
            db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('table', ?)", (secrets.token_hex(6),))
            return db.execute("SELECT value FROM meta WHERE key = 'table'").fetchone()["value"]

    # ---- events ---------------------------------------------------------

    def save_event(self, event: Event, wall: float) -> None:
        """Keep a custom event under its id, which names one setup for good.

        The score pad counts attempts per id, so an id that took a second setup
        would mix two games: a built-in id, or a saved id with another setup,
        is refused (Conflict). The same setup under a new name keeps the name
        as typed.
        """
        if event.id in BUILTIN_EVENTS:
            raise Conflict("event.id", f"{event.id!r} is the id of a built-in event: give your event another id",
                           code="errors.event.builtin", params={"id": event.id})
        with self.database.transaction() as db:
            row = db.execute("SELECT data FROM events WHERE id = ?", (event.id,)).fetchone()
            if row is not None and _setup_of(parse_event(json.loads(row["data"]), "saved event")) != _setup_of(event):
                raise Conflict("event.id", f"an event {event.id!r} is already saved with another setup: "
                                           "give this one a new id", code="errors.event.saved", params={"id": event.id})
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
        show_text.keep(db, show_id)
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
                    show_text.forget(db, write.show_id)  # written after its end: its history line is built afresh
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
            show["speed"] = fields.real(show["speed"], "speed", MIN_SPEED, MAX_SPEED)
            show["started_wall"] = fields.real(show["started_wall"], "started_wall", 0.0, MAX_WALL)
            show["orientation"] = orientation(jsonin.parse(fields.text(show["orientation"], "orientation"),
                                                           "orientation"))
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
            show_text.keep(db, show_id)

    def show_log(self, show_id: int, *, after: int = 0) -> list[str] | None:
        """A show's journal as a show log (only the lines after the first `after`, if given), or None."""
        if not self.database.read("SELECT 1 FROM shows WHERE id = ?", (show_id,)):
            return None
        rows = self.database.read("SELECT line FROM journal WHERE show_id = ? AND n > ? ORDER BY n", (show_id, after))
        return [line_text(r[0]) for r in rows]

    def shows(self, limit: int | None = 100) -> list[dict]:
        """Past shows, newest first (every one with `limit=None`); an ended show's `show_s` is its length in show
        time (its journal's last t)."""
        rows = self.database.read("SELECT * FROM shows ORDER BY id DESC LIMIT ?", (-1 if limit is None else limit,))
        lengths = self._lengths([r["id"] for r in rows if r["ended"]])
        return [{**_show_row(r), "show_s": lengths.get(r["id"])} for r in rows]

    def _lengths(self, ended: list[int]) -> dict[int, float | None]:
        """Each ended show's length in show time: its journal's last t."""
        if not ended:
            return {}
        marks = ",".join("?" * len(ended))
        return {last["show_id"]: _line_t(last["line"]) for last in self.database.read(
            "SELECT j.show_id, j.line FROM journal j JOIN (SELECT show_id, MAX(n) AS n FROM journal"
            f" WHERE show_id IN ({marks}) GROUP BY show_id) m ON j.show_id = m.show_id AND j.n = m.n", tuple(ended))}

    def each_show(self) -> Iterator[dict]:
        """Every show, oldest first, read in SQLite's batches as they are asked for (one read: one moment)."""
        with self.database.connection() as db:
            for row in db.execute("SELECT * FROM shows ORDER BY id"):
                yield _show_row(row)

    def show(self, show_id: int) -> dict | None:
        """One show, with its `show_s` as `shows` gives it."""
        rows = self.database.read("SELECT * FROM shows WHERE id = ?", (show_id,))
        if not rows:
            return None
        return {**_show_row(rows[0]), "show_s": self._lengths([show_id] if rows[0]["ended"] else []).get(show_id)}

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
            return fields.digits(row["value"], "value", 0, MAX_COUNT) if row else 0
        except BadInput as e:  # the start player is a courtesy: a bad count starts the rotation again
            log.error("%s; the start player rotation starts again", DamagedRow("meta row 'rotation'", e))
            return 0

    def _start_player(self, db) -> str | None:
        players = [_text(r["name"]) for r in db.execute("SELECT name FROM players ORDER BY position")]
        return players[self._rotation(db) % len(players)] if players else None


# ---- the history file: events, shows with their journals, the players (companion.records.kinds) ----------

def _event_lines(db):
    for r in db.execute("SELECT id, data, saved FROM events ORDER BY id"):
        yield {"record": "event", "event": json.loads(r["data"]), "saved": r["saved"]}


def _read_event(data: dict, known: Known) -> dict:
    event = parse_event(data["event"], "event")  # as a show's start reads an event sent with it
    if event.builtin or event.id in BUILTIN_EVENTS:
        raise BadInput("event.id", f"{event.id!r} is the id of a built-in event", code="errors.event.builtin",
                       params={"id": event.id})
    known.events[event.id] = event
    return {"event": event, "saved": fields.instant(data["saved"], "saved")}


def _restore_event(db, r: dict) -> None:
    db.execute("INSERT INTO events (id, data, saved) VALUES (?, ?, ?)",
               (r["event"].id, json.dumps(r["event"].to_json(), ensure_ascii=False), r["saved"]))


EVENTS = Kind("event", ("event", "saved"), ("event", "saved"), _event_lines, _read_event, _restore_event,
              key=lambda r: r["event"].id, table="events")

SHOW_FIELDS = ("id", "event", "event_name", "challenge", "started", "started_wall", "speed", "outcome", "stars",
               "ended", "start_player", "orientation", "journal")
OUTCOMES = ("win", "loss", "aborted")  # a finished show's; a running one is not in the file


def _show_lines(db):
    # Each finished show's line as kept when it ended (show_text.py), streamed as it is: only the kept text is read
    # (each cell read is decoded, and a show's row has seven). A show without one is built from its row and
    # journal, in SQLite's batches, no more than a show's journal held at once.
    for show_id, kept in db.execute("SELECT shows.id, show_texts.text FROM shows LEFT JOIN show_texts"
                                    " ON show_texts.show_id = shows.id WHERE outcome != 'running' ORDER BY shows.id"):
        if kept is not None:
            yield kept
        else:
            r = db.execute("SELECT * FROM shows WHERE id = ?", (show_id,)).fetchone()
            yield show_record(r, [json.loads(line_text(line)) for line in show_text.journal_lines(db, show_id)])


def _read_show(data: dict, known: Known) -> dict:
    """A finished show, its journal replayed as `companion replay` replays it: its outcome and stars, the replay's."""
    show = {"id": fields.whole(data["id"], "id", 1, MAX_ROW_ID),
            "event": fields.line(data["event"], "event", MAX_EVENT_ID),
            "event_name": fields.line(data["event_name"], "event_name", MAX_EVENT_NAME),
            "challenge": fields.yes_no(data["challenge"], "challenge"),
            "started": fields.instant(data["started"], "started"),
            "started_wall": fields.real(data["started_wall"], "started_wall", 0, MAX_WALL),
            "speed": fields.real(data["speed"], "speed", MIN_SPEED, MAX_SPEED),
            "outcome": fields.choice(data["outcome"], "outcome", OUTCOMES),
            "stars": fields.whole(data["stars"], "stars", 0, MAX_STARS),
            "ended": fields.instant(data["ended"], "ended"),
            "start_player": None if data["start_player"] is None else
            fields.name(data["start_player"], "start_player", MAX_NAME),
            "orientation": orientation(data["orientation"])}
    journal = fields.items(data["journal"], "journal", 1, MAX_JOURNAL_LINES)
    show["journal"] = lines = [json.dumps(entry, ensure_ascii=False) for entry in journal]
    try:
        replayed = replay(lines, notices=False)
    except LogError as e:
        raise BadInput(fields.at(fields.at("journal", e.line - 1), e.field) if e.field else
                       fields.at("journal", e.line - 1), e.problem, code="history.refused.journal",
                       params={"n": e.line}) from None
    setup = replayed.setup
    if (setup.event.id, setup.challenge) != (show["event"], show["challenge"]):
        raise BadInput("journal[0].event", f"the journal is of event {setup.event.id!r}"
                       f"{' in challenge mode' if setup.challenge else ''}, not of this show's",
                       code="history.refused.journal", params={"n": 1})
    if show["outcome"] != "aborted" and (replayed.outcome, replayed.stars) != (show["outcome"], show["stars"]):
        raise BadInput("outcome", f"the journal replays to {replayed.outcome} with {replayed.stars} stars, not "
                       f"{show['outcome']} with {show['stars']}", code="history.refused.result",
                       params={"outcome": replayed.outcome, "stars": replayed.stars})
    if show["outcome"] == "aborted" and show["stars"]:
        raise BadInput("stars", "only a won show has stars", code="history.refused.result",
                       params={"outcome": "aborted", "stars": 0})
    return show


def _restore_show(db, r: dict) -> None:
    db.execute("INSERT INTO shows (id, event_id, event_name, challenge, started, started_wall, speed, outcome,"
               " stars, ended, start_player, orientation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (r["id"], r["event"], r["event_name"], int(r["challenge"]), r["started"], r["started_wall"],
                r["speed"], r["outcome"], r["stars"], r["ended"], r["start_player"], json.dumps(r["orientation"])))
    db.executemany("INSERT INTO journal (show_id, n, line) VALUES (?, ?, ?)",
                   [(r["id"], n, line) for n, line in enumerate(r["journal"], start=1)])
    show_text.keep(db, r["id"])


SHOWS = Kind("show", SHOW_FIELDS, SHOW_FIELDS, _show_lines, _read_show, _restore_show, key=lambda r: r["id"],
             table="shows")


def _players_lines(db):
    names = [r["name"] for r in db.execute("SELECT name FROM players ORDER BY position")]
    rotation = db.execute("SELECT value FROM meta WHERE key = 'rotation'").fetchone()
    yield {"record": "players", "names": names, "rotation": int(rotation["value"]) if rotation else 0}


def _read_players(data: dict, known: Known) -> dict:
    names = data["names"]
    if names != []:  # a table with no players yet exports none; any other list is the API's to judge
        try:
            names = check_players(names)
        except BadInput as e:
            # the API's path is players[i]; in the file the list is `names`
            raise BadInput("names" + e.field[len("players"):], e.problem, code=getattr(e, "error_code", None),
                           params=e.params) from None
    return {"names": names, "rotation": fields.whole(data["rotation"], "rotation", 0, MAX_COUNT)}


def _restore_players(db, r: dict) -> None:
    db.execute("DELETE FROM players")  # a fresh table's players (if any were entered) give way to the file's
    db.executemany("INSERT INTO players (position, name) VALUES (?, ?)", list(enumerate(r["names"])))
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('rotation', ?)", (str(r["rotation"]),))


PLAYERS = Kind("players", ("names", "rotation"), ("names", "rotation"), _players_lines, _read_players,
               _restore_players)


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
    try:
        return fields.whole(value, "count", 0, MAX_COUNT)
    except BadInput:
        return 0


def _pad_row(event_id: str, name: str, row) -> dict:
    return {"event": _text(event_id), "name": _text(name),
            "best_stars": _count(row["best_stars"]) if row and row["best_stars"] is not None else None,
            "attempts": _count(row["attempts"]) if row else 0,
            "wins": _count(row["wins"]) if row else 0,
            "last_played": _text(row["last_played"]) if row else None}


def _line_t(line) -> float | None:
    """The show time of a stored journal line, or None if the line does not read."""
    try:
        data = jsonin.parse(line_text(line), "line")
        return fields.real(fields.mapping(data, "line").get("t"), "t", 0, MAX_SHOW_S)
    except BadInput:
        return None


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
