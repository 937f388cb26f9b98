"""The 帰る雁 JSON API: scoring and checking (open: they store nothing), tracked games (PIN), the live feed."""

import threading
import time
from collections.abc import Iterator

from flask import jsonify, request
from werkzeug.exceptions import NotFound

from companion.errors import BadInput
from companion.geese import deck, parse_card, score
from companion.geese.grouping import check_hand
from companion.geese.rules import DEFAULT_RULES
from companion.web import get_table
from companion.web.api import SQLITE_MAX_ID, streams
from companion.web.geese import bp, games
from companion.web.api import json_body
from companion.web.live import KEEP_ALIVE, WAKE_S, compact, last_event_id, message
from companion.web.security import changes_nothing, needs_pin

MAX_HAND = max(DEFAULT_RULES.deal.values()) + 10  # a dealt hand, and what can be taken back into it
MAX_GROUND = len(deck(DEFAULT_RULES, max(DEFAULT_RULES.player_counts)))  # every card of the deck, at most


def body(*allowed: str) -> dict:
    """The request's JSON object, read strictly: only `allowed` fields, or with none named, a whole document."""
    return json_body(*allowed, any_field=not allowed)


def version(data: dict):
    value = data.get("version")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise BadInput("version", "expected the game's version as a whole number")
    return value


def shelf():
    return get_table().games


def found(game_id: int) -> dict:
    if game_id > SQLITE_MAX_ID:
        raise NotFound(f"no game {game_id}")
    try:
        return games.load(shelf(), game_id)
    except LookupError:
        raise NotFound(f"no game {game_id}") from None


@bp.post("/api/geese/score")
@changes_nothing
def score_record():
    """Score a record in either form; computes and stores nothing, so it needs no PIN."""
    return jsonify(score(body()))


@bp.post("/api/geese/check")
@changes_nothing
def check():
    """The migration checker: a hand and w(n) → every value it can migrate as, each best group explained."""
    data = body("hand", "wintering")
    hand = data.get("hand", [])
    if not isinstance(hand, list) or len(hand) > MAX_HAND:
        raise BadInput("hand", f"expected a list of up to {MAX_HAND} cards")
    cards = [parse_card(c, f"hand[{i}]") for i, c in enumerate(hand)]
    w = data.get("wintering", {})
    if not isinstance(w, dict):
        raise BadInput("wintering", 'expected w(n) by number: {"1": 0, ...}')
    counts = {}
    for key, count in w.items():
        if key not in {str(n) for n in range(1, DEFAULT_RULES.max_number + 1)}:
            raise BadInput(f"wintering.{key}", f"expected a number 1–{DEFAULT_RULES.max_number}")
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_GROUND:
            raise BadInput(f"wintering.{key}", f"expected how many cards of that number lie there (0–{MAX_GROUND})")
        counts[int(key)] = count
    return jsonify(check_hand(cards, counts))


@bp.get("/api/geese/games")
def list_games():
    return jsonify([games.view(g) for g in shelf().games(games.KIND, games.LIST_LIMIT)])


@bp.post("/api/geese/games")
@needs_pin
def create_game():
    data = body("players")
    return jsonify(games.view(games.new_game(shelf(), data.get("players")))), 201


@bp.get("/api/geese/games/<int:game_id>")
def game(game_id: int):
    return jsonify(games.view(found(game_id)))


@bp.post("/api/geese/games/<int:game_id>/setup")
@needs_pin
def lay_out(game_id: int):
    data = body("card", "put", "version")
    found(game_id)
    put = data.get("put", True)
    if not isinstance(put, bool):
        raise BadInput("put", "expected true (into the ground) or false (out again)")
    return jsonify(games.view(games.lay_out(shelf(), game_id, data.get("card"), put, version(data))))


@bp.post("/api/geese/games/<int:game_id>/actions")
@needs_pin
def add_action(game_id: int):
    data = body("action", "version")
    found(game_id)
    return jsonify(games.view(games.add_action(shelf(), game_id, data.get("action"), version(data))))


@bp.post("/api/geese/games/<int:game_id>/undo")
@needs_pin
def undo(game_id: int):
    data = body("version")
    found(game_id)
    return jsonify(games.view(games.undo(shelf(), game_id, version(data))))


@bp.get("/api/geese/games/<int:game_id>/events")
def game_events(game_id: int):
    found(game_id)
    last = last_event_id(request.headers.get("Last-Event-ID"))
    return streams().open(game_stream(shelf(), game_id, last, **streams().settings))


def game_stream(games_shelf, game_id: int, last_version: int | None, *, keepalive_s: float, retry_ms: int,
                closing: threading.Event, clock=time.monotonic) -> Iterator[str]:
    """The game after every change (the current one first, unless the phone has it), keep-alives between."""
    yield f"retry: {retry_ms}\n\n"
    seen = -1
    current = games_shelf.load(games.KIND, game_id)
    if current is not None and last_version is not None and last_version <= current["version"]:
        seen = last_version
    said = clock()
    while not closing.is_set():
        game = games_shelf.wait_for_change(games.KIND, game_id, seen, min(keepalive_s, WAKE_S))
        if game is None:
            return
        if game["version"] > seen:
            seen = game["version"]
            yield message("game", compact(games.view(game)), event_id=seen)
            said = clock()
        elif clock() - said >= keepalive_s:
            yield KEEP_ALIVE
            said = clock()
