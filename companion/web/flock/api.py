"""The Über den Wolken JSON API: stage scoring, setup, saved games and entered cards.

`POST /api/flock/stage` only computes (no PIN, no CSRF token); every other
change needs the table PIN. A game's changes carry the version they were
made on, so two phones never overwrite each other; every phone follows a
game live on `GET /api/flock/games/<id>/events`.
"""

import random
import secrets

from flask import jsonify, request

from companion.fields import digits
from companion.flock import score
from companion.flock.birds import SPECIES, columns_for, read_players
from companion.flock.game import MAX_SEED
from companion.flock.kind import FLOCK, KIND, WIDEST
from companion.flock.setup import DEFAULT_MOVEMENT_SET, setup
from companion.web import games
from companion.web.api import changed_game, document, game_feed, json_body, read_version, saved_game
from companion.web.download import cell, csv_download, json_download
from companion.web.flock import bp
from companion.web.security import changes_nothing, needs_pin

NAME = "Über den Wolken"


def answer(game: dict) -> dict:
    state = game["state"]
    return {"id": game["id"], "version": game["version"], "updated": game["updated"], "mode": state["mode"],
            "players": state["players"], "seed": state["seed"], "view": FLOCK.view(state)}


def change(game_id: int, step) -> dict:
    """Apply `step(state, data)` to a game at the version the phone saw (or the current one), and save it."""
    data = json_body("version", "action", "stage")
    version = read_version(data)
    return answer(changed_game(KIND, game_id, NAME, lambda state: step(state, data), version))


def new_seed() -> int:
    """A seed for a table nobody asked to see again: drawn here, in the shell, so the rules stay seeded."""
    return secrets.randbelow(MAX_SEED)


@bp.post("/api/flock/stage")
@changes_nothing
def stage_score():
    return jsonify(score(document()))


@bp.get("/api/flock/setup")
def setup_preview():
    """A table laid out for the players (comma-separated species) from a seed (a new one if none)."""
    players = read_players([p for p in request.args.get("players", "").split(",") if p])
    seed = request.args.get("seed")
    seed = new_seed() if seed is None else digits(seed, "seed", 0, MAX_SEED)
    laid = setup(players, random.Random(seed), request.args.get("movement_set", DEFAULT_MOVEMENT_SET, type=int))
    return jsonify({"seed": seed, **laid})


@bp.get("/api/flock/games")
def list_games():
    return jsonify([FLOCK.summary(g) for g in games().saved_games(KIND)])  # as the page lists them


@bp.post("/api/flock/games")
@needs_pin
def new_game():
    data = json_body("mode", "players", "seed", "movement_set", "names")
    seed = data.get("seed")
    state = FLOCK.new(data.get("mode", "moves"), data.get("players"), new_seed() if seed is None else seed,
                      data.get("movement_set", DEFAULT_MOVEMENT_SET), data.get("names"))
    return jsonify(answer(games().new_game(KIND, state))), 201


@bp.get("/api/flock/games/<int:game_id>")
def game_json(game_id: int):
    return jsonify(answer(saved_game(KIND, game_id, NAME)))


@bp.post("/api/flock/games/<int:game_id>/actions")
@needs_pin
def act(game_id: int):
    return jsonify(change(game_id, lambda state, data: FLOCK.play(state, data.get("action"))))


@bp.post("/api/flock/games/<int:game_id>/stages")
@needs_pin
def enter_stage(game_id: int):
    return jsonify(change(game_id, lambda state, data: FLOCK.enter_stage(state, data.get("stage"))))


@bp.post("/api/flock/games/<int:game_id>/undo")
@needs_pin
def undo(game_id: int):
    return jsonify(change(game_id, lambda state, data: FLOCK.undo(state)))


@bp.get("/api/flock/games/<int:game_id>/events")
def game_events(game_id: int):
    return game_feed(KIND, game_id, NAME, answer)


@bp.get("/api/flock/cards")
def cards():
    return jsonify(FLOCK.by_type(games().game_cards(KIND)))


@bp.post("/api/flock/cards")
@needs_pin
def save_card():
    data = json_body("type", "name", "card", "players")
    movement = data.get("type") == "movement"  # its spaces lie on its players' board (no players: the widest)
    columns = columns_for(len(read_players(data.get("players", list(SPECIES))))) if movement else WIDEST
    key, card = FLOCK.read_card(data.get("type"), data.get("name"), data.get("card"), columns)
    card = games().keep_game_card(KIND, key, card)
    card_type, name = FLOCK.split_key(key)
    return jsonify({"type": card_type, "name": name, "card": card}), 201


@bp.get("/api/flock/games/<int:game_id>/export.json")
def export_json(game_id: int):
    """A game's record (what the table replays) with its result, to keep or share."""
    game = saved_game(KIND, game_id, NAME)
    body = {"game": game_id, "updated": game["updated"], "record": game["state"], "result": FLOCK.summary(game)}
    return json_download(body, f"flock-{game_id}.json")


@bp.get("/api/flock/games/<int:game_id>/export.csv")
def export_csv(game_id: int):
    """A game's points, one row a player, for a spreadsheet."""
    rows = FLOCK.export_rows(saved_game(KIND, game_id, NAME))
    return csv_download([[cell(v) if isinstance(v, str) else v for v in row] for row in rows], f"flock-{game_id}.csv")
