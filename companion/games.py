"""The board games' records: each saved game's state, and the cards players entered once.

Über den Wolken and 帰る雁 are kept here, in the table's SQLite file beside
its shows: a game is a JSON document with a version that rises with every
save, so any phone can resume it and every phone can wait for the next
version (server-sent events). The rules packages decide what a state means;
this shelf only keeps it. Every query is parameterised; a row that does not
read back as a JSON object is reported, never served.

>>> shelf = GameShelf(":memory:")
>>> game = shelf.save("flock", None, {"stage": 1})
>>> (game["id"], game["version"]), shelf.save("flock", game["id"], {"stage": 2})["version"]
((1, 1), 2)
>>> shelf.load("flock", 1)["state"]
{'stage': 2}
"""

import json
import sqlite3
import threading
import time
from pathlib import Path

from companion.errors import BadInput

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    version INTEGER NOT NULL,
    state TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
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


class DamagedRecord(Exception):
    """A stored row that does not read back (the message names the row)."""


class GameShelf:
    """Saved board games and entered cards, in one SQLite file; safe to call from any thread."""

    def __init__(self, path: Path | str, *, wall=time.time):
        self.path = str(path)
        self._wall = wall
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._db = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- games ------------------------------------------------------------------

    def save(self, kind: str, game_id: int | None, state: dict, *, expect_version: int | None = None) -> dict:
        """Store `state` as a new game (game_id None) or the next version of one.

        With `expect_version`, a save over a game that someone else changed
        meanwhile is refused (two phones editing at once): BadInput("version").
        """
        text = json.dumps(state, ensure_ascii=False, allow_nan=False)
        if len(text.encode("utf-8")) > MAX_STATE_BYTES:
            raise BadInput("state", f"larger than {MAX_STATE_BYTES // 1024} KiB")
        now = self._wall()
        with self._changed:
            if game_id is None:
                cur = self._db.execute("INSERT INTO games (kind, version, state, created, updated) "
                                       "VALUES (?, 1, ?, ?, ?)", (kind, text, now, now))
                game_id, version = cur.lastrowid, 1
            else:
                row = self._db.execute("SELECT version FROM games WHERE id = ? AND kind = ?",
                                       (game_id, kind)).fetchone()
                if row is None:
                    raise BadInput("id", f"no {kind} game {game_id}")
                if expect_version is not None and row[0] != expect_version:
                    raise BadInput("version", f"the game changed meanwhile (now version {row[0]}): reload it")
                version = row[0] + 1
                self._db.execute("UPDATE games SET version = ?, state = ?, updated = ? WHERE id = ?",
                                 (version, text, now, game_id))
            self._changed.notify_all()
        return {"id": game_id, "kind": kind, "version": version, "state": state, "updated": now}

    def load(self, kind: str, game_id: int) -> dict | None:
        """One game ({"id", "kind", "version", "state", "updated"}), or None."""
        with self._lock:
            row = self._db.execute("SELECT id, version, state, updated FROM games WHERE id = ? AND kind = ?",
                                   (game_id, kind)).fetchone()
        return None if row is None else _game(kind, row)

    def games(self, kind: str, limit: int = 50) -> list[dict]:
        """Saved games of `kind`, most recently changed first (states included)."""
        with self._lock:
            rows = self._db.execute("SELECT id, version, state, updated FROM games WHERE kind = ? "
                                    "ORDER BY updated DESC, id DESC LIMIT ?", (kind, limit)).fetchall()
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

    # ---- cards entered once -------------------------------------------------------

    def save_card(self, kind: str, name: str, card: dict) -> None:
        """Keep a card the players entered (a nest card, a movement card) under its name."""
        text = json.dumps(card, ensure_ascii=False, allow_nan=False)
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO game_cards (kind, name, card, saved) VALUES (?, ?, ?, ?)",
                             (kind, name, text, self._wall()))

    def cards(self, kind: str) -> dict[str, dict]:
        """Every card of `kind` kept so far, by name."""
        with self._lock:
            rows = self._db.execute("SELECT name, card FROM game_cards WHERE kind = ? ORDER BY name",
                                    (kind,)).fetchall()
        return {name: _object(text, f"game_cards {kind}/{name}") for name, text in rows}


def _game(kind: str, row) -> dict:
    game_id, version, state, updated = row
    return {"id": game_id, "kind": kind, "version": version, "state": _object(state, f"games {game_id}"),
            "updated": updated}


def _object(text: str, where: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError:
        raise DamagedRecord(f"{where}: stored data is not JSON") from None
    if not isinstance(value, dict):
        raise DamagedRecord(f"{where}: stored data is not a JSON object")
    return value
