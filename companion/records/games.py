"""The board games' records: each saved game's state, and the cards players entered once.

Über den Wolken and 帰る雁 are kept here, in the table's SQLite file beside
its shows: a game is a JSON document with a version that rises with every
save, so any phone can resume it and every phone can wait for the next
version (server-sent events). The rules packages decide what a state means;
this shelf only keeps it, one version after another. Every query is parameterised; a row that does not
read back as a JSON object is reported, never served.

>>> shelf = GameShelf(":memory:")
>>> game = shelf.create("flock", {"stage": 1})
>>> (game["id"], game["version"]), shelf.change("flock", 1, lambda s: {**s, "stage": 2}, version=1)["version"]
((1, 1), 2)
>>> shelf.load("flock", 1)["state"]
{'stage': 2}
>>> shelf.change("flock", 1, lambda s: s, version=1)
Traceback (most recent call last):
companion.records.games.VersionClash: version: the game changed meanwhile (now version 2): reload it
"""

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

from companion.errors import BadInput, Conflict, NotKept
from companion.records.database import Database, DamagedRow

SCHEMA = """
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

MAX_STATE_BYTES = 256 * 1024  # a whole three-stage game with its move log fits many times
KEYS_KEPT = 64  # request keys remembered per game: a phone retries its last few changes, not older ones


class VersionClash(Conflict):
    """A change made on a version of a game that is no longer the current one (409, naming the current version)."""

    error_code = "errors.version_clash"

    def __init__(self, current: int):
        super().__init__("version", f"the game changed meanwhile (now version {current}): reload it")
        self.details = {"version": current}


class GameShelf:
    """Saved board games and entered cards, as versioned records; safe to call from any thread.

    Every change is load–change–save in one transaction: `change` reads the
    record, hands its state to the rules, and stores what they return as the
    next version, so two phones changing a game at once never lose a change.
    """

    def __init__(self, database: Database | Path | str, *, wall=time.time):
        self._owned = not isinstance(database, Database)
        self._db = Database(database, SCHEMA) if self._owned else database
        self._wall = wall
        self._changed = threading.Condition()  # only to wake readers: never held while SQLite works

    def close(self) -> None:
        if self._owned:
            self._db.close()

    # ---- games ------------------------------------------------------------------

    def create(self, kind: str, state: dict) -> dict:
        """Store `state` as a new game, at version 1."""
        text, now = _text(state), self._wall()
        with self._db.transaction() as db:
            game_id = db.execute("INSERT INTO games (kind, version, state, created, updated) VALUES (?, 1, ?, ?, ?)",
                                 (kind, text, now, now)).lastrowid
        self._wake()
        return {"id": game_id, "kind": kind, "version": 1, "state": state, "updated": now}

    def change(self, kind: str, game_id: int, step: Callable[[dict], dict], *, version: int | None = None,
               key: str | None = None) -> dict:
        """The game after `step(state)`, saved as its next version, all in one transaction.

        With `version`, a change made on another version than the current one
        is refused (VersionClash); without, it applies to the current state.
        With `key` (a request's Idempotency-Key), a change already made under
        that key is not made again: the game is answered as it is, with
        `"replayed": True`. Whatever `step` refuses (BadInput) leaves the game as it was.
        """
        with self._db.transaction() as db:
            row = db.execute("SELECT version, state, updated FROM games WHERE id = ? AND kind = ?",
                             (game_id, kind)).fetchone()
            if row is None:
                raise NotKept(f"no {kind} game {game_id}")
            if key is not None and db.execute("SELECT 1 FROM game_requests WHERE game = ? AND key = ?",
                                              (game_id, key)).fetchone():
                return {"id": game_id, "kind": kind, "version": row["version"], "replayed": True,
                        "state": _object(row["state"], f"games row {game_id}"), "updated": row["updated"]}
            if version is not None and row["version"] != version:
                raise VersionClash(row["version"])
            state = step(_object(row["state"], f"games row {game_id}"))
            text, now, version = _text(state), self._wall(), row["version"] + 1
            db.execute("UPDATE games SET version = ?, state = ?, updated = ? WHERE id = ?",
                       (version, text, now, game_id))
            if key is not None:
                db.execute("INSERT INTO game_requests (game, key, version) VALUES (?, ?, ?)", (game_id, key, version))
                db.execute("DELETE FROM game_requests WHERE game = ? AND version <= ?", (game_id, version - KEYS_KEPT))
        self._wake()
        return {"id": game_id, "kind": kind, "version": version, "state": state, "updated": now}

    def load(self, kind: str, game_id: int) -> dict | None:
        """One game ({"id", "kind", "version", "state", "updated"}), or None."""
        rows = self._db.read("SELECT id, version, state, updated FROM games WHERE id = ? AND kind = ?",
                             (game_id, kind))
        return _game(kind, rows[0]) if rows else None

    def games(self, kind: str, limit: int = 50) -> list[dict]:
        """Saved games of `kind`, most recently changed first (states included)."""
        rows = self._db.read("SELECT id, version, state, updated FROM games WHERE kind = ? "
                             "ORDER BY updated DESC, id DESC LIMIT ?", (kind, limit))
        return [_game(kind, row) for row in rows]

    def wait_for_change(self, kind: str, game_id: int, after_version: int, timeout: float) -> dict | None:
        """The game as soon as its version is past `after_version`, or as it is after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            game = self.load(kind, game_id)
            left = deadline - time.monotonic()
            if game is None or game["version"] > after_version or left <= 0:
                return game
            with self._changed:
                self._changed.wait(left)

    def _wake(self) -> None:
        with self._changed:
            self._changed.notify_all()

    # ---- cards entered once -------------------------------------------------------

    def save_card(self, kind: str, name: str, card: dict) -> None:
        """Keep a card the players entered (a nest card, a movement card) under its name."""
        text = json.dumps(card, ensure_ascii=False, allow_nan=False)
        with self._db.transaction() as db:
            db.execute("INSERT OR REPLACE INTO game_cards (kind, name, card, saved) VALUES (?, ?, ?, ?)",
                       (kind, name, text, self._wall()))

    def cards(self, kind: str) -> dict[str, dict]:
        """Every card of `kind` kept so far, by name."""
        rows = self._db.read("SELECT name, card FROM game_cards WHERE kind = ? ORDER BY name", (kind,))
        return {row["name"]: _object(row["card"], f"game_cards row {kind}/{row['name']}") for row in rows}


def _text(state: dict) -> str:
    text = json.dumps(state, ensure_ascii=False, allow_nan=False)
    if len(text.encode("utf-8")) > MAX_STATE_BYTES:
        raise BadInput("state", f"larger than {MAX_STATE_BYTES // 1024} KiB")
    return text


def _game(kind: str, row) -> dict:
    return {"id": row["id"], "kind": kind, "version": row["version"],
            "state": _object(row["state"], f"games row {row['id']}"), "updated": row["updated"]}


def _object(text: str, where: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError:
        raise DamagedRow(where, BadInput("state", "stored data is not JSON")) from None
    if not isinstance(value, dict):
        raise DamagedRow(where, BadInput("state", "stored data is not a JSON object"))
    return value
