"""The Über den Wolken JSON API: stage scoring, setup, saved games and entered cards.

`POST /api/flock/stage` only computes (no PIN, no CSRF token); every other
change needs the table PIN. A game's changes carry the version they were
made on, so two phones never overwrite each other; every phone follows a
game live on `GET /api/flock/games/<id>/events`.
"""

import random
import time

from flask import current_app, jsonify, request
from werkzeug.exceptions import NotFound

from companion import jsonin
from companion.errors import BadInput
from companion.flock import score
from companion.flock.birds import columns_for, read_int, read_players
from companion.flock.cards import read_movement, read_nest
from companion.flock.setup import DEFAULT_MOVEMENT_SET, setup
from companion.web import get_table
from companion.web.flock import bp, records
from companion.web.api import json_body
from companion.web.live import KEEP_ALIVE, WAKE_S, compact, last_event_id, message
from companion.web.security import changes_nothing, needs_pin


def body(*allowed: str) -> dict:
    """The request's JSON object, read strictly: only `allowed` fields, or with none named, a whole document."""
    return json_body(*allowed, any_field=not allowed)


def shelf():
    return get_table().games


def answer(game: dict) -> dict:
    record = game["state"]
    return {"id": game["id"], "version": game["version"], "updated": game["updated"], "mode": record.get("mode"),
            "players": record.get("players"), "seed": record.get("seed"), "view": records.view(record)}


def load(game_id: int) -> dict:
    game = shelf().load(records.KIND, game_id) if game_id <= records.MAX_GAME_ID else None
    if game is None:
        raise NotFound(f"no Über den Wolken game {game_id}")
    return game


def change(game_id: int, step) -> dict:
    """Apply `step(record, data)` to a game at the version the phone saw, and save the result."""
    data = body("version", "action", "stage")
    game = load(game_id)
    version = read_int(data.get("version", game["version"]), "version", 1, records.MAX_GAME_ID)
    record = step(game["state"], data)
    return answer(shelf().save(records.KIND, game_id, record, expect_version=version))


@bp.post("/api/flock/stage")
@changes_nothing
def stage_score():
    return jsonify(score(body()))


@bp.get("/api/flock/setup")
def setup_preview():
    """A table laid out for the players (comma-separated species) from a seed (a new one if none)."""
    players = read_players([p for p in request.args.get("players", "").split(",") if p])
    seed = request.args.get("seed")
    if seed is not None and not (seed.isdigit() and len(seed) <= jsonin.MAX_INT_DIGITS):
        raise BadInput("seed", "expected a whole number")
    seed = records.read_seed(None if seed is None else int(seed))
    laid = setup(players, random.Random(seed), request.args.get("movement_set", DEFAULT_MOVEMENT_SET, type=int))
    return jsonify({"seed": seed, **laid})


@bp.get("/api/flock/games")
def games():
    rows = shelf().games(records.KIND)
    return jsonify([{"id": g["id"], "version": g["version"], "updated": g["updated"], "mode": g["state"].get("mode"),
                     "players": g["state"].get("players"),
                     "stage": len(g["state"].get("stages", [])) + 1 if g["state"].get("mode") == "sheet" else None}
                    for g in rows])


@bp.post("/api/flock/games")
@needs_pin
def new_game():
    data = body("mode", "players", "seed", "movement_set")
    record = records.new_record(data.get("mode", "moves"), data.get("players"), records.read_seed(data.get("seed")),
                                data.get("movement_set", DEFAULT_MOVEMENT_SET))
    return jsonify(answer(shelf().save(records.KIND, None, record))), 201


@bp.get("/api/flock/games/<int:game_id>")
def game_json(game_id: int):
    return jsonify(answer(load(game_id)))


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
    load(game_id)
    streams = current_app.extensions["streams"]
    after = last_event_id(request.headers.get("Last-Event-ID"))
    return streams.open(game_stream(shelf(), game_id, after, **streams.settings))


def game_stream(games, game_id: int, after: int | None, *, keepalive_s: float, retry_ms: int, closing,
                clock=time.monotonic):
    """The game after every change (its version is the event id), with keep-alive comments between.

    A phone that reconnects with Last-Event-ID gets only the versions after it.
    """
    yield f"retry: {retry_ms}\n\n"
    version, said = -1 if after is None else after, clock()
    while not closing.is_set():
        game = games.wait_for_change(records.KIND, game_id, version, min(keepalive_s, WAKE_S))
        if game is None:
            return
        if game["version"] > version:
            version, said = game["version"], clock()
            yield message("game", compact(answer(game)), event_id=version)
        elif clock() - said >= keepalive_s:
            yield KEEP_ALIVE
            said = clock()


@bp.get("/api/flock/cards")
def cards():
    kept = {t: {} for t in records.CARD_TYPES}
    for key, card in shelf().cards(records.KIND).items():
        card_type, _, name = key.partition("/")
        if card_type in kept:
            kept[card_type][name] = card
    return jsonify(kept)


@bp.post("/api/flock/cards")
@needs_pin
def save_card():
    data = body("type", "name", "card", "players")
    card_type = data.get("type")
    if card_type not in records.CARD_TYPES:
        raise BadInput("type", f"expected {' or '.join(records.CARD_TYPES)}")
    name = records.read_card_name(data.get("name"))
    if card_type == "nest":
        card = read_nest(data.get("card"), "card")
    else:
        columns = columns_for(len(read_players(data.get("players", ["crane", "kite", "goose", "swallow"]))))
        card = {"spaces": read_movement(data.get("card"), columns, "card")["spaces"]}
    if len(shelf().cards(records.KIND)) >= records.MAX_CARDS:
        raise BadInput("name", f"the table keeps at most {records.MAX_CARDS} cards")
    shelf().save_card(records.KIND, records.card_key(card_type, name), card)
    return jsonify({"type": card_type, "name": name, "card": card}), 201
