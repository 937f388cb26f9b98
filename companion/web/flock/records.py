"""Saved Über den Wolken games as the table's game shelf keeps them, and what each phone is shown of one.

A record is either a game kept move by move (`{"mode": "moves", "players",
"seed", "log"}`, replayed by the rules on every read) or a score sheet
(`{"mode": "sheet", "players", "seed", "start_board", "stages"}`).
"""

import random
import secrets

from companion.players import check_name
from companion.errors import BadInput, Conflict, NothingToUndo
from companion.flock.birds import STAGES, read_int
from companion.flock.game import MAX_LOG, MAX_SEED, Game
from companion.flock.setup import DEFAULT_MOVEMENT_SET, setup
from companion.flock.sheet import read_stage, sheet

KIND = "flock"
MODES = ("moves", "sheet")
CARD_TYPES = ("nest", "movement")
MAX_CARD_NAME = 40
MAX_CARDS = 200  # cards kept per table: every nest and movement card of the game, many times over


def read_seed(value) -> int:
    return secrets.randbelow(MAX_SEED) if value is None else read_int(value, "seed", 0, MAX_SEED)


def new_record(mode, players, seed, movement_set=DEFAULT_MOVEMENT_SET) -> dict:
    """A fresh game record, checked by setting the game up."""
    if mode not in MODES:
        raise BadInput("mode", f"expected {' or '.join(MODES)}")
    laid = setup(players, random.Random(seed), movement_set)
    if mode == "moves":
        return {"mode": mode, "players": laid["players"], "seed": seed, "movement_set": movement_set, "log": []}
    return {"mode": mode, "players": laid["players"], "seed": seed, "start_board": laid["board"], "stages": []}


def view(record: dict) -> dict:
    """What the pages show of a record: the game as it stands."""
    if record.get("mode") == "moves":
        shown = Game.replay(record).view()
        shown["last"] = record["log"][-1] if record["log"] else None
        return shown
    return sheet(record.get("players"), record.get("stages"), record.get("start_board"))


def played(record: dict, action) -> dict:
    """The record with `action` added to its log (refused, naming why, when the rules do not allow it)."""
    if record.get("mode") != "moves":
        raise Conflict("mode", "this game is kept as a score sheet: enter stages, not moves")
    if len(record["log"]) >= MAX_LOG:
        raise BadInput("action", f"the game has {MAX_LOG} actions already")
    game = Game.replay(record)
    game.apply(action)
    return {**record, "log": [*record["log"], action]}


def staged(record: dict, stage) -> dict:
    """The sheet with the next stage's end entered."""
    if record.get("mode") != "sheet":
        raise Conflict("mode", "this game is kept move by move: the stage ends with the landing action")
    if len(record["stages"]) >= STAGES:
        raise Conflict("stage", f"all {STAGES} stages are entered")
    read_stage(stage, record["players"], "stage")
    return {**record, "stages": [*record["stages"], stage]}


def undone(record: dict) -> dict:
    """The record without its last move (or its last stage, for a sheet)."""
    entries = "log" if record.get("mode") == "moves" else "stages"
    if not record[entries]:
        raise NothingToUndo(entries)
    return {**record, entries: record[entries][:-1]}


def card_key(card_type: str, name: str) -> str:
    return f"{card_type}/{name}"


def read_card_name(value) -> str:
    return check_name(value, "name", limit=MAX_CARD_NAME)  # the one name rule of every game
