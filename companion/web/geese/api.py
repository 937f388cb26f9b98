"""The 帰る雁 JSON API: scoring and checking (open: they store nothing), tracked games (PIN), the live feed."""


from flask import jsonify

from companion.errors import BadInput
from companion.fields import items, record, whole, yes_no
from companion.geese import deck, parse_card, score
from companion.geese.grouping import check_hand
from companion.geese.kind import GEESE, KIND
from companion.geese.rules import DEFAULT_RULES
from companion.web import games
from companion.web.api import changed_game, document, game_feed, json_body, read_version, saved_game
from companion.web.download import cell, csv_download, json_download
from companion.web.geese import bp
from companion.web.security import changes_nothing, needs_pin

NAME = "帰る雁"
LIST_LIMIT = 30  # saved games offered for resuming
MAX_HAND = max(DEFAULT_RULES.deal.values()) + 10  # a dealt hand, and what can be taken back into it
MAX_GROUND = len(deck(DEFAULT_RULES, max(DEFAULT_RULES.player_counts)))  # every card of the deck, at most


def view(game: dict) -> dict:
    """A stored game as the pages and the API show it."""
    return {"id": game["id"], "version": game["version"], "updated": game["updated"], **GEESE.view(game["state"])}


def saved() -> list[dict]:
    """The games offered for resuming, most recently changed first."""
    return [view(g) for g in games().saved_games(KIND, LIST_LIMIT)]


def found(game_id: int) -> dict:
    return saved_game(KIND, game_id, NAME)


def changed(game_id: int, step, data: dict) -> dict:
    return view(changed_game(KIND, game_id, NAME, step, read_version(data)))


@bp.post("/api/geese/score")
@changes_nothing
def score_record():
    """Score a record in either form; computes and stores nothing, so it needs no PIN."""
    return jsonify(score(document()))


@bp.post("/api/geese/check")
@changes_nothing
def check():
    """The migration checker: a hand and w(n) → every value it can migrate as, each best group explained."""
    data = json_body("hand", "wintering")
    hand = data.get("hand", [])
    try:
        items(hand, "hand", 0, MAX_HAND)
    except BadInput:
        raise BadInput("hand", f"expected a list of up to {MAX_HAND} cards",
                       code="geese.refused.hand_long", params={"limit": MAX_HAND}) from None
    cards = [parse_card(c, f"hand[{i}]") for i, c in enumerate(hand)]
    numbers = [str(n) for n in range(1, DEFAULT_RULES.max_number + 1)]
    try:
        w = record(data.get("wintering", {}), "wintering", numbers)  # w(n) by number: {"1": 0, ...}
    except BadInput as e:
        if e.error_code != "errors.unknown_field":
            raise
        raise BadInput(e.field, f"expected a number 1–{DEFAULT_RULES.max_number}",
                       code="errors.range", params={"low": 1, "high": DEFAULT_RULES.max_number}) from None
    counts = {int(key): whole(count, f"wintering.{key}", 0, MAX_GROUND) for key, count in w.items()}
    return jsonify(check_hand(cards, counts))


@bp.get("/api/geese/games")
def list_games():
    return jsonify(saved())


@bp.post("/api/geese/games")
@needs_pin
def create_game():
    data = json_body("players")
    return jsonify(view(games().new_game(KIND, GEESE.new(data.get("players"))))), 201


@bp.get("/api/geese/games/<int:game_id>")
def game(game_id: int):
    return jsonify(view(found(game_id)))


@bp.post("/api/geese/games/<int:game_id>/setup")
@needs_pin
def lay_out(game_id: int):
    data = json_body("card", "put", "version")
    found(game_id)
    put = yes_no(data.get("put", True), "put")  # true: into the ground; false: out again
    return jsonify(changed(game_id, lambda state: GEESE.lay_out(state, data.get("card"), put), data))


@bp.post("/api/geese/games/<int:game_id>/actions")
@needs_pin
def add_action(game_id: int):
    data = json_body("action", "version")
    return jsonify(changed(game_id, lambda state: GEESE.act(state, data.get("action")), data))


@bp.post("/api/geese/games/<int:game_id>/undo")
@needs_pin
def undo(game_id: int):
    data = json_body("version")
    return jsonify(changed(game_id, GEESE.undo, data))


@bp.get("/api/geese/games/<int:game_id>/events")
def game_events(game_id: int):
    return game_feed(KIND, game_id, NAME, view)


@bp.get("/api/geese/games/<int:game_id>/export.json")
def export_json(game_id: int):
    """A game as a whole-game record (what `companion score geese` reads) with its result."""
    game = found(game_id)
    shown = view(game)
    body = {"game": game_id, "updated": game["updated"], "over": shown["over"], "record": game["state"],
            "result": shown["result"]}
    return json_download(body, f"geese-{game_id}.json")


@bp.get("/api/geese/games/<int:game_id>/export.csv")
def export_csv(game_id: int):
    """A game's scores, one row a player in ranking order, for a spreadsheet."""
    rows = GEESE.export_rows(found(game_id))
    return csv_download([[cell(v) if isinstance(v, str) else v for v in row] for row in rows], f"geese-{game_id}.csv")
