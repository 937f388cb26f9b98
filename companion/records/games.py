"""The board games' records: each saved game's state, and the cards players entered once.

Über den Wolken and 帰る雁 are kept here, in the table's SQLite file beside
its shows: a game is a JSON document with a version that rises with every
save, so any phone can resume it and every phone can wait for the next
version (server-sent events). The rules packages decide what a state means;
this shelf only keeps it, one version after another. Each game's kind (a GameKind from its rules
package) checks every state and every card before it is kept, inside the
transaction that keeps it, so no door stores what the rules cannot replay.
Every query is parameterised; a row that does not read back as a JSON object
is reported, never served.

>>> from companion.geese.kind import GEESE
>>> shelf = GameShelf(":memory:", {"geese": GEESE})
>>> game = shelf.create("geese", GEESE.new(["ann", "ben", "cho"]))
>>> (game["id"], game["version"]), shelf.change("geese", 1, lambda s: GEESE.lay_out(s, {"n": 2, "suit": "gull"}, True),
...                                             version=1)["version"]
((1, 1), 2)
>>> shelf.load("geese", 1)["state"]["wintering"]
[{'n': 2, 'suit': 'gull'}]
>>> shelf.change("geese", 1, lambda s: s, version=1)
Traceback (most recent call last):
companion.records.games.VersionClash: version: the game changed meanwhile (now version 2): reload it
>>> shelf.create("geese", {})
Traceback (most recent call last):
companion.errors.BadInput: state.players: missing
"""

import json
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol, runtime_checkable

from companion.bells import Bells
from companion.errors import BadInput, Conflict, NotKept
from companion.fields import choice, mapping
from companion.records.database import Database, DamagedRow
from companion.records.schema import TABLE_FILE

KEYS_KEPT = 64  # request keys remembered per game: a phone retries its last few changes, not older ones


class VersionClash(Conflict):
    """A change made on a version of a game that is no longer the current one (409, naming the current version)."""

    error_code = "errors.version_clash"

    def __init__(self, current: int):
        super().__init__("version", f"the game changed meanwhile (now version {current}): reload it")
        self.details = {"version": current}


@runtime_checkable
class GameKind(Protocol):
    """A board game's kind, as every door sees it: its limits, its checks, and what its states look like.

    Each rules package has one (companion.flock.kind.FLOCK, companion.geese.kind.GEESE); each also makes
    and changes its states by its own moves (a flock action or stage, a 帰る雁 turn or setup card). The
    shelf asks only the checks and the size; the pages ask the rest.
    """

    name: str
    max_log: int  # moves (or turns) one state holds
    max_cards: int  # cards the players may keep (0: none)
    max_card_name: int
    max_state_bytes: int  # a state's JSON, in UTF-8

    def check(self, state, field: str = "state") -> dict:
        """The state as it is kept, or BadInput naming the path under `field` (e.g. `state.log[3]`)."""

    def check_card(self, key, card) -> dict:
        """The card as it is kept under `key`, or BadInput naming `name` or `card…`."""

    def check_room(self, kept: int) -> None:
        """BadInput when one more card may not join the `kept` ones."""

    def undo(self, state: dict) -> dict:
        """The state without its last entry (NothingToUndo when there is none)."""

    def view(self, state: dict) -> dict:
        """What the pages show of a (checked) state."""

    def export_rows(self, game: dict) -> list[list]:
        """A saved game's scores as CSV rows, the header first (values as they are: the web escapes cells)."""


class GameShelf:
    """Saved board games and entered cards, as versioned records; safe to call from any thread.

    Every change is load–change–save in one transaction: `change` reads the
    record, hands its state to the rules, and stores what they return as the
    next version, so two phones changing a game at once never lose a change.
    """

    def __init__(self, database: Database | Path | str, kinds: Mapping[str, GameKind], *, wall=time.time):
        self.kinds = dict(kinds)  # name → GameKind: the games this shelf keeps, each checked by its own rules
        self._owned = not isinstance(database, Database)
        self._db = Database(database, TABLE_FILE) if self._owned else database  # a file: the table's own
        self._wall = wall
        self._bells = Bells()  # a following page's stream sleeps on its own bell until a game changes

    def close(self) -> None:
        if self._owned:
            self._db.close()

    def ring_on_change(self, bell: threading.Event) -> Callable[[], None]:
        """Set `bell` whenever a game is made or changed (the follower then reads its own); returns the call
        that stops it. (The server's closing wakes its streams itself.)"""
        return self._bells.add(bell)

    # ---- the checks every door asks -------------------------------------------------

    def check(self, kind: str, state) -> dict:
        """`state` as a game of `kind` is kept, or BadInput naming the field (`kind`, `state…`): what the API
        refuses, this refuses, whichever door a state comes in by (a history import checks here)."""
        return self._checked(kind, state)[0]

    def check_card(self, kind: str, name, card) -> dict:
        """`card` as it is kept under `name` for `kind`, or BadInput naming `kind`, `name` or `card…`."""
        return self._kind(kind).check_card(name, card)

    def _kind(self, kind) -> GameKind:
        return self.kinds[choice(kind, "kind", tuple(self.kinds))]

    def _checked(self, kind: str, state) -> tuple[dict, str]:
        """The state as kept and its JSON text: first its size (cheap), then the rules' whole check."""
        rules = self._kind(kind)
        _text(state, rules.max_state_bytes)
        state = rules.check(state)
        return state, _text(state, rules.max_state_bytes)

    # ---- games ------------------------------------------------------------------

    def create(self, kind: str, state: dict) -> dict:
        """Store `state` as a new game, at version 1 (checked by its kind in the same transaction)."""
        with self._db.transaction() as db:
            state, text = self._checked(kind, state)
            now = self._wall()
            game_id = db.execute("INSERT INTO games (kind, version, state, created, updated) VALUES (?, 1, ?, ?, ?)",
                                 (kind, text, now, now)).lastrowid
        self._bells.ring()
        return {"id": game_id, "kind": kind, "version": 1, "state": state, "updated": now}

    def change(self, kind: str, game_id: int, step: Callable[[dict], dict], *, version: int | None = None,
               key: str | None = None) -> dict:
        """The game after `step(state)`, saved as its next version, all in one transaction.

        With `version`, a change made on another version than the current one
        is refused (VersionClash); without, it applies to the current state.
        With `key` (a request's Idempotency-Key), a change already made under
        that key is not made again: the game is answered as it is, with
        `"replayed": True`. Whatever `step` refuses (BadInput) leaves the game as it was, and so does
        a new state its kind's check refuses.
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
            state, text = self._checked(kind, step(_object(row["state"], f"games row {game_id}")))
            now, version = self._wall(), row["version"] + 1
            db.execute("UPDATE games SET version = ?, state = ?, updated = ? WHERE id = ?",
                       (version, text, now, game_id))
            if key is not None:
                db.execute("INSERT INTO game_requests (game, key, version) VALUES (?, ?, ?)", (game_id, key, version))
                db.execute("DELETE FROM game_requests WHERE game = ? AND version <= ?", (game_id, version - KEYS_KEPT))
        self._bells.ring()
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

    # ---- cards entered once -------------------------------------------------------

    def save_card(self, kind: str, name: str, card: dict) -> dict:
        """Keep a card the players entered (a nest card, a movement card) under its name; answers it as kept.

        The card is checked by its kind, and its room counted, in the transaction that keeps it: two phones
        keeping cards at once never pass the kind's limit.
        """
        with self._db.transaction() as db:
            card = self.check_card(kind, name, card)
            kept = db.execute("SELECT COUNT(*) AS n FROM game_cards WHERE kind = ? AND name != ?",
                              (kind, name)).fetchone()["n"]
            self._kind(kind).check_room(kept)  # a card kept again under its name takes no more room
            db.execute("INSERT OR REPLACE INTO game_cards (kind, name, card, saved) VALUES (?, ?, ?, ?)",
                       (kind, name, json.dumps(card, ensure_ascii=False, allow_nan=False), self._wall()))
        return card

    def cards(self, kind: str) -> dict[str, dict]:
        """Every card of `kind` kept so far, by name."""
        rows = self._db.read("SELECT name, card FROM game_cards WHERE kind = ? ORDER BY name", (kind,))
        return {row["name"]: _object(row["card"], f"game_cards row {kind}/{row['name']}") for row in rows}


def _text(state, limit: int) -> str:
    """A state's JSON text, or BadInput when it is no JSON or more than `limit` bytes of it."""
    try:
        text = json.dumps(state, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        raise BadInput("state", "expected a JSON object", code="errors.shape") from None
    if len(text.encode("utf-8", "surrogatepass")) > limit:
        raise BadInput("state", f"larger than {limit // 1024} KiB", code="errors.too_large",
                       params={"limit": limit // 1024})
    return text


def _game(kind: str, row) -> dict:
    return {"id": row["id"], "kind": kind, "version": row["version"],
            "state": _object(row["state"], f"games row {row['id']}"), "updated": row["updated"]}


def _object(text: str, where: str) -> dict:
    try:
        return mapping(json.loads(text), "state", code="errors.stored")
    except ValueError:
        raise DamagedRow(where, BadInput("state", "stored data is not JSON", code="errors.stored")) from None
    except BadInput as e:
        raise DamagedRow(where, e) from None
