"""The 帰る雁 pages: setup and saved games, the live tracker, the migration checker, the score sheet."""

import json

from flask import render_template, request
from werkzeug.exceptions import NotFound

from companion.geese.cards import SUITS, copies
from companion.players import MAX_NAME
from companion.geese.rules import DEFAULT_RULES
from companion.geese.sheet import score_sheet
from companion.web.geese import bp, games
from companion.web import get_table
from companion.web.geese.api import MAX_GROUND, MAX_HAND, found
from companion.web.security import unlocked


def setup_plan(players: int) -> dict:
    """What the table does before the first turn with `players` players."""
    rules = DEFAULT_RULES
    deck = sum(copies(rules, players).values())
    hand = rules.deal[players]
    return {"players": players, "removed": list(rules.removed_numbers(players)), "deck": deck, "hand": hand,
            "wintering": deck - players * hand}


def page_rules() -> str:
    """The limits the pages' scripts check by, handed over as data (never restated in the scripts)."""
    rules = DEFAULT_RULES
    return json.dumps({"max_number": rules.max_number, "suits": list(SUITS),
                       "geese": {str(n): c for n, c in rules.geese.items()}, "max_hand": MAX_HAND,
                       "players": list(rules.player_counts), "max_name": MAX_NAME,
                       "setup_sizes": {str(p): setup_plan(p)["wintering"] for p in rules.player_counts}})


@bp.get("/geese")
def index():
    counts = DEFAULT_RULES.player_counts
    chosen = request.args.get("players", type=int)
    chosen = chosen if chosen in counts else 4
    return render_template("geese/index.html", area="geese", plans=[setup_plan(p) for p in counts],
                           chosen=chosen, saved=[games.view(g) for g in get_table().saved_games(games.KIND, games.LIST_LIMIT)],
                           unlocked=unlocked(), rules_json=page_rules(), counts=counts, max_name=MAX_NAME)


@bp.get("/geese/games/<int:game_id>")
def tracker(game_id: int):
    game = games.view(found(game_id))
    return render_template("geese/tracker.html", area="geese", game=game, unlocked=unlocked(),
                           rules_json=page_rules(), suits=SUITS)


@bp.get("/geese/games/<int:game_id>/score")
def sheet(game_id: int):
    game = found(game_id)
    return render_template("geese/sheet.html", area="geese", game=games.view(game), sheet=score_sheet(game["state"]))


@bp.get("/geese/check")
def checker():
    saved = [games.view(g) for g in get_table().saved_games(games.KIND, games.LIST_LIMIT)]
    chosen = request.args.get("game", type=int)
    ground = next((g["ground"] for g in saved if g["id"] == chosen), None)
    if chosen is not None and ground is None:
        raise NotFound(f"no game {chosen}")
    return render_template("geese/check.html", area="geese", saved=saved, chosen=chosen,
                           w={row["n"]: row["w"] for row in ground} if ground else {},
                           numbers=range(1, DEFAULT_RULES.max_number + 1), rules_json=page_rules(), suits=SUITS,
                           max_ground=MAX_GROUND)
