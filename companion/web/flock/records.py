"""Saved Über den Wolken games as the table's game shelf keeps them, and what each phone is shown of one.

A record is either a game kept move by move (`{"mode": "moves", "players",
"seed", "log"}`, replayed by the rules on every read) or a score sheet
(`{"mode": "sheet", "players", "seed", "start_board", "stages"}`).
"""

import random
import secrets

from companion.errors import BadInput, Conflict, NothingToUndo
from companion.flock.birds import STAGES
from companion.flock.game import MAX_LOG, MAX_SEED, Game
from companion.flock.setup import DEFAULT_MOVEMENT_SET, setup
from companion.flock.sheet import read_stage, sheet
from companion.fields import whole
from companion.players import MAX_NAME, check_name
from companion.web.download import cell

KIND = "flock"
MODES = ("moves", "sheet")
CARD_TYPES = ("nest", "movement")
MAX_CARD_NAME = 40
MAX_CARDS = 200  # cards kept per table: every nest and movement card of the game, many times over


def read_seed(value) -> int:
    return secrets.randbelow(MAX_SEED) if value is None else whole(value, "seed", 0, MAX_SEED)


def new_record(mode, players, seed, movement_set=DEFAULT_MOVEMENT_SET, names=None) -> dict:
    """A fresh game record, checked by setting the game up; `names`: the people playing each species (optional)."""
    if mode not in MODES:
        raise BadInput("mode", f"expected {' or '.join(MODES)}", code="errors.choice")
    laid = setup(players, random.Random(seed), movement_set)
    named = {"names": read_names(names, laid["players"])} if names else {}
    if mode == "moves":
        return {"mode": mode, "players": laid["players"], "seed": seed, "movement_set": movement_set, "log": [],
                **named}
    return {"mode": mode, "players": laid["players"], "seed": seed, "start_board": laid["board"], "stages": [],
            **named}


def read_names(value, players: list[str]) -> dict[str, str]:
    """Who plays each species: {species: name}, every name 1–MAX_NAME characters, none twice."""
    if not isinstance(value, dict):
        raise BadInput("names", "expected {species: name}", code="errors.shape")
    names = {}
    for species, name in value.items():
        if species not in players:
            raise BadInput(f"names.{species}", "not one of the players' species", code="errors.choice")
        name = check_name(name, f"names.{species}")  # the one name rule of every game
        if name in names.values():
            raise BadInput(f"names.{species}", f"{name} is named twice", code="players.twice", params={"name": name})
        names[species] = name
    return names


def view(record: dict) -> dict:
    """What the pages show of a record: the game as it stands, and who plays each species (names, if given)."""
    if record.get("mode") == "moves":
        shown = Game.replay(record).view()
        shown["last"] = record["log"][-1] if record["log"] else None
    else:
        shown = sheet(record.get("players"), record.get("stages"), record.get("start_board"))
    shown["names"] = dict(record.get("names", {}))
    return shown


def played(record: dict, action) -> dict:
    """The record with `action` added to its log (refused, naming why, when the rules do not allow it)."""
    if record.get("mode") != "moves":
        raise Conflict("mode", "this game is kept as a score sheet: enter stages, not moves",
                       code="flock.refused.sheet_mode")
    if len(record["log"]) >= MAX_LOG:
        raise BadInput("action", f"the game has {MAX_LOG} actions already",
                       code="errors.game_full", params={"limit": MAX_LOG})
    game = Game.replay(record)
    game.apply(action)
    return {**record, "log": [*record["log"], action]}


def staged(record: dict, stage) -> dict:
    """The sheet with the next stage's end entered."""
    if record.get("mode") != "sheet":
        raise Conflict("mode", "this game is kept move by move: the stage ends with the landing action",
                       code="flock.refused.moves_mode")
    if len(record["stages"]) >= STAGES:
        raise Conflict("stage", f"all {STAGES} stages are entered",
                       code="flock.refused.stages_done", params={"n": STAGES})
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



def summary(game: dict) -> dict:
    """A saved game as the list of games shows it: who played, when, and the result once it is over."""
    record = game["state"]
    shown = view(record)
    totals = shown.get("scores", shown.get("totals", {}))
    return {"id": game["id"], "mode": record.get("mode"), "players": record.get("players", []),
            "names": shown["names"], "updated": game["updated"], "over": shown["over"], "totals": totals,
            "winners": shown.get("winners", []), "stage": shown.get("stage")}


def export_rows(game: dict) -> list[list]:
    """A game's scores as CSV rows: a header, then one row a player, most points first."""
    shown = summary(game)
    rows = [["game", "place", "species", "name", "points", "winner", "over"]]
    ordered = sorted(shown["players"], key=lambda p: -shown["totals"].get(p, 0))
    for place, player in enumerate(ordered, start=1):
        name = shown["names"].get(player, "")
        rows.append([game["id"], place, player, cell(name),
                     shown["totals"].get(player, 0), "yes" if player in shown["winners"] else "no",
                     "yes" if shown["over"] else "no"])
    return rows
