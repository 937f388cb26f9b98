"""Über den Wolken on the phone: setup, the game kept move by move, stage scoring and the three-stage sheet.

Pages under /flock, the JSON API under /api/flock; the rules are
companion.flock's, the saved games and entered cards the table's game shelf.
"""

from pathlib import Path

from flask import Blueprint

from companion.web.areas import Area

bp = Blueprint("flock", __name__, template_folder="templates", static_folder="static",
               static_url_path="/flock/static")

from companion.web.flock import api, pages  # noqa: E402,F401  (their routes join bp)

area = Area("flock", bp, "flock.index", 40, catalogs=Path(__file__).parent / "i18n")
