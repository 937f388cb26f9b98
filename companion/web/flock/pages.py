"""The Über den Wolken pages: setup, stage scoring, and one saved game (move by move or as a sheet)."""

from flask import render_template

from companion.flock import birds, cards
from companion.flock.kind import FLOCK, KIND
from companion.players import MAX_NAME
from companion.web import games
from companion.web.api import saved_game
from companion.web.flock import bp
from companion.web.flock.api import NAME
from companion.web.looks import BIRD_LOOKS, SEX_SYMBOLS
from companion.web.security import unlocked


def limits() -> dict:
    """Every limit and size the pages' scripts need, named once in the rules and handed over as data."""
    return {"species": birds.SPECIES, "neutral": birds.NEUTRAL, "rows": birds.ROWS, "columns": birds.COLUMNS,
            "column_limit": birds.COLUMN_LIMIT, "hand_limit": birds.HAND_LIMIT, "max_points": cards.MAX_POINTS,
            "max_nest_entries": cards.MAX_NEST_ENTRIES, "max_card_name": cards.MAX_CARD_NAME,
            "stages": birds.STAGES, "min_players": birds.PLAYER_COUNTS[0], "max_players": birds.PLAYER_COUNTS[-1],
            "both_bonus": cards.BOTH_BONUS, "looks": BIRD_LOOKS, "sexes": SEX_SYMBOLS}


@bp.get("/flock")
def index():
    saved = [FLOCK.summary(g) for g in games().saved_games(KIND)]
    return render_template("flock/index.html", area="flock", games=saved, unlocked=unlocked(), limits=limits(),
                           max_name=MAX_NAME)


@bp.get("/flock/stage")
def stage():
    return render_template("flock/stage.html", area="flock", limits=limits(), unlocked=unlocked())


@bp.get("/flock/games/<int:game_id>")
def game(game_id: int):
    found = saved_game(KIND, game_id, NAME)
    return render_template("flock/game.html", area="flock", game_id=game_id, mode=found["state"]["mode"],
                           unlocked=unlocked(), limits=limits(), summary=FLOCK.summary(found))
