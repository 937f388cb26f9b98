"""The Über den Wolken JSON API: stage scoring, setup, saved games and entered cards.

`POST /api/flock/stage` only computes (no PIN, no CSRF token); every other
change needs the table PIN. A game's changes carry the version they were
made on, so two phones never overwrite each other; every phone follows a
game live on `GET /api/flock/games/<id>/events`.
"""

import random


from flask import jsonify, request

from companion import jsonin
from companion.errors import BadInput
from companion.flock import score
from companion.flock.birds import columns_for, read_players
from companion.flock.cards import read_movement, read_nest
from companion.flock.setup import DEFAULT_MOVEMENT_SET, setup
from companion.web import get_table
from companion.web.api import changed_game, document, game_feed, json_body, read_version, saved_game
from companion.web.download import csv_download, json_download
from companion.web.flock import bp, records
from companion.web.security import changes_nothing, needs_pin

NAME = "Über den Wolken"


def answer(game: dict) -> dict:
    record = game["state"]
    return {"id": game["id"], "version": game["version"], "updated": game["updated"], "mode": record.get("mode"),
            "players": record.get("players"), "seed": record.get("seed"), "view": records.view(record)}


def change(game_id: int, step) -> dict:
    """Apply `step(record, data)` to a game at the version the phone saw (or the current one), and save it."""
    data = json_body("version", "action", "stage")
    version = read_version(data)
    return answer(changed_game(records.KIND, game_id, NAME, lambda record: step(record, data), version))


@bp.post("/api/flock/stage")
@changes_nothing
def stage_score():
    return jsonify(score(document()))


@bp.get("/api/flock/setup")
def setup_preview():
    """A table laid out for the players (comma-separated species) from a seed (a new one if none)."""
    players = read_players([p for p in request.args.get("players", "").split(",") if p])
    seed = request.args.get("seed")
    if seed is not None and not (seed.isdigit() and len(seed) <= jsonin.MAX_INT_DIGITS):
        raise BadInput("seed", "expected a whole number", code="errors.whole")
    seed = records.read_seed(None if seed is None else int(seed))
    laid = setup(players, random.Random(seed), request.args.get("movement_set", DEFAULT_MOVEMENT_SET, type=int))
    return jsonify({"seed": seed, **laid})


@bp.get("/api/flock/games")
def games():
    rows = get_table().saved_games(records.KIND)
    return jsonify([{"id": g["id"], "version": g["version"], "updated": g["updated"], "mode": g["state"].get("mode"),
                     "players": g["state"].get("players"),
                     "stage": len(g["state"].get("stages", [])) + 1 if g["state"].get("mode") == "sheet" else None}
                    for g in rows])


@bp.post("/api/flock/games")
@needs_pin
def new_game():
    data = json_body("mode", "players", "seed", "movement_set", "names")
    record = records.new_record(data.get("mode", "moves"), data.get("players"), records.read_seed(data.get("seed")),
                                data.get("movement_set", DEFAULT_MOVEMENT_SET), data.get("names"))
    return jsonify(answer(get_table().new_game(records.KIND, record))), 201


@bp.get("/api/flock/games/<int:game_id>")
def game_json(game_id: int):
    return jsonify(answer(saved_game(records.KIND, game_id, NAME)))


@bp.post("/api/flock/games/<int:game_id>/actions")
@needs_pin
def act(game_id: int):
    return jsonify(change(game_id, lambda record, data: records.played(record, data.get("action"))))


@bp.post("/api/flock/games/<int:game_id>/stages")
@needs_pin
def enter_stage(game_id: int):
    return jsonify(change(game_id, lambda record, data: records.staged(record, data.get("stage"))))


@bp.post("/api/flock/games/<int:game_id>/undo")
@needs_pin
def undo(game_id: int):
    return jsonify(change(game_id, lambda record, data: records.undone(record)))


@bp.get("/api/flock/games/<int:game_id>/events")
def game_events(game_id: int):
    return game_feed(records.KIND, game_id, NAME, answer)


@bp.get("/api/flock/cards")
def cards():
    kept = {t: {} for t in records.CARD_TYPES}
    for key, card in get_table().game_cards(records.KIND).items():
        card_type, _, name = key.partition("/")
        if card_type in kept:
            kept[card_type][name] = card
    return jsonify(kept)


@bp.post("/api/flock/cards")
@needs_pin
def save_card():
    data = json_body("type", "name", "card", "players")
    card_type = data.get("type")
    if card_type not in records.CARD_TYPES:
        raise BadInput("type", f"expected {' or '.join(records.CARD_TYPES)}", code="errors.choice")
    name = records.read_card_name(data.get("name"))
    if card_type == "nest":
        card = read_nest(data.get("card"), "card")
    else:
        columns = columns_for(len(read_players(data.get("players", ["crane", "kite", "goose", "swallow"]))))
        card = {"spaces": read_movement(data.get("card"), columns, "card")["spaces"]}
    if len(get_table().game_cards(records.KIND)) >= records.MAX_CARDS:
        raise BadInput("name", f"the table keeps at most {records.MAX_CARDS} cards",
                       code="flock.refused.cards_full", params={"limit": records.MAX_CARDS})
    get_table().keep_game_card(records.KIND, records.card_key(card_type, name), card)
    return jsonify({"type": card_type, "name": name, "card": card}), 201


@bp.get("/api/flock/games/<int:game_id>/export.json")
def export_json(game_id: int):
    """A game's record (what the table replays) with its result, to keep or share."""
    game = saved_game(records.KIND, game_id, NAME)
    body = {"game": game_id, "updated": game["updated"], "record": game["state"], "result": records.summary(game)}
    return json_download(body, f"flock-{game_id}.json")


@bp.get("/api/flock/games/<int:game_id>/export.csv")
def export_csv(game_id: int):
    """A game's points, one row a player, for a spreadsheet."""
    return csv_download(records.export_rows(saved_game(records.KIND, game_id, NAME)), f"flock-{game_id}.csv")
