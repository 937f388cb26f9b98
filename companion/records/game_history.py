"""The board games' records in the history file: each saved game with its state, and each card players entered.

A game's state and a card are the board games' own to judge: every line is
checked by the shelf's `check(kind, state)` and `check_card(kind, name,
card)`, the checks their API routes make (companion.records.kinds).
"""

import json

from companion import fields
from companion.records.database import MAX_ROW_ID
from companion.records.kinds import Kind, Known
from companion.records.shows import MAX_COUNT, MAX_WALL


def _kind(data: dict, known: Known) -> str:
    """The line's game kind: one the shelf keeps (its kinds are the table's one list)."""
    return fields.choice(data["kind"], "kind", tuple(known.shelf.kinds))


def _game_lines(db):
    for r in db.execute("SELECT * FROM games ORDER BY id"):
        yield {"record": "game", "id": r["id"], "kind": r["kind"], "version": r["version"],
               "state": json.loads(r["state"]), "created": r["created"], "updated": r["updated"]}


def _read_game(data: dict, known: Known) -> dict:
    kind = _kind(data, known)
    return {"id": fields.whole(data["id"], "id", 1, MAX_ROW_ID), "kind": kind,
            "version": fields.whole(data["version"], "version", 1, MAX_COUNT),
            "state": known.shelf.check(kind, data["state"]),
            "created": fields.real(data["created"], "created", 0, MAX_WALL),
            "updated": fields.real(data["updated"], "updated", 0, MAX_WALL)}


def _restore_game(db, r: dict) -> None:
    db.execute("INSERT INTO games (id, kind, version, state, created, updated) VALUES (?, ?, ?, ?, ?, ?)",
               (r["id"], r["kind"], r["version"], json.dumps(r["state"], ensure_ascii=False), r["created"],
                r["updated"]))


def _card_lines(db):
    for r in db.execute("SELECT * FROM game_cards ORDER BY kind, name"):
        yield {"record": "card", "kind": r["kind"], "name": r["name"], "card": json.loads(r["card"]),
               "saved": r["saved"]}


def _read_card(data: dict, known: Known) -> dict:
    kind = _kind(data, known)
    return {"kind": kind, "name": data["name"], "card": known.shelf.check_card(kind, data["name"], data["card"]),
            "saved": fields.real(data["saved"], "saved", 0, MAX_WALL)}


def _restore_card(db, r: dict) -> None:
    db.execute("INSERT INTO game_cards (kind, name, card, saved) VALUES (?, ?, ?, ?)",
               (r["kind"], r["name"], json.dumps(r["card"], ensure_ascii=False), r["saved"]))


GAME_KINDS = (
    Kind("game", ("id", "kind", "version", "state", "created", "updated"),
         ("id", "kind", "version", "state", "created", "updated"), _game_lines, _read_game, _restore_game,
         key=lambda r: r["id"], table="games"),
    Kind("card", ("kind", "name", "card", "saved"), ("kind", "name", "card", "saved"), _card_lines, _read_card,
         _restore_card, key=lambda r: (r["kind"], r["name"]), table="game_cards"),
)
