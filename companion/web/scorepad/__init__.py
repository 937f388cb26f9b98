"""The score pad: every event's best stars and attempts, and whose turn it is to start."""

from pathlib import Path

from flask import Blueprint, render_template

from companion.store import MAX_NAME, MAX_PLAYERS
from companion.web import get_table
from companion.web.areas import Area
from companion.web.security import unlocked

bp = Blueprint("scorepad", __name__, template_folder="templates", static_folder="static",
               static_url_path="/scorepad/static")


@bp.get("/scorepad")
def index():
    return render_template("scorepad/index.html", area="scorepad", pad=get_table().scorepad(),
                           unlocked=unlocked(), max_players=MAX_PLAYERS, max_name=MAX_NAME)


area = Area("scorepad", bp, "scorepad.index", 20, catalogs=Path(__file__).parent / "i18n")
