"""The 帰る雁 pages: setup and saved games, the live tracker, the migration checker, the score sheet."""

import json

from flask import render_template, request
from werkzeug.exceptions import NotFound

from companion.geese.cards import SUITS
from companion.players import MAX_NAME
from companion.geese.rules import DEFAULT_RULES
from companion.geese.sheet import score_sheet
from companion.web.errors import coded
from companion.web.geese import bp
from companion.web.geese.api import MAX_GROUND, MAX_HAND, found, saved, view
from companion.web.security import unlocked


def setup_plan(players: int) -> dict:
    """What the table does before the first turn with `players` players."""
    rules = DEFAULT_RULES
    return {"players": players, "removed": list(rules.removed_numbers(players)),
            "deck": rules.deck_size(players), "hand": rules.hand_size(players), "wintering": rules.setup_size(players)}


def page_rules() -> str:
    """The limits the pages' scripts check by, handed over as data (never restated in the scripts)."""
    rules = DEFAULT_RULES
    return json.dumps({"max_number": rules.max_number, "suits": list(SUITS),
                       "geese": {str(n): c for n, c in rules.geese.items()}, "max_hand": MAX_HAND,
                       "players": list(rules.player_counts), "max_name": MAX_NAME,
                       "removed": {str(p): list(rules.removed_numbers(p)) for p in rules.player_counts},
                       "setup_sizes": {str(p): setup_plan(p)["wintering"] for p in rules.player_counts}})


@bp.get("/geese")
def index():
    counts = DEFAULT_RULES.player_counts
    chosen = request.args.get("players", type=int)
    chosen = chosen if chosen in counts else 4
    return render_template("geese/index.html", area="geese", plans=[setup_plan(p) for p in counts],
                           chosen=chosen, saved=saved(),
                           unlocked=unlocked(), rules_json=page_rules(), counts=counts, max_name=MAX_NAME)


@bp.get("/geese/games/<int:game_id>")
def tracker(game_id: int):
    game = view(found(game_id))
    return render_template("geese/tracker.html", area="geese", game=game, unlocked=unlocked(),
                           rules_json=page_rules(), suits=SUITS)


@bp.get("/geese/games/<int:game_id>/score")
def sheet(game_id: int):
    game = found(game_id)
    return render_template("geese/sheet.html", area="geese", game=view(game), sheet=score_sheet(game["state"]))


@bp.get("/geese/check")
def checker():
    games = saved()
    chosen = request.args.get("game", type=int)
    ground = next((g["ground"] for g in games if g["id"] == chosen), None)
    if chosen is not None and ground is None:
        raise coded(NotFound(f"no game {chosen}"), "errors.game.gone")
    players = next((len(g["players"]) for g in games if g["id"] == chosen), None)
    return render_template("geese/check.html", area="geese", saved=games, chosen=chosen, players=players,
                           w={row["n"]: row["w"] for row in ground} if ground else {},
                           numbers=range(1, DEFAULT_RULES.max_number + 1), rules_json=page_rules(), suits=SUITS,
                           max_ground=MAX_GROUND)
