"""Past shows: the list, and each show's timeline drawn from its log, with the log to download (page and API)."""

from pathlib import Path

from flask import Blueprint

from companion.web.areas import Area

bp = Blueprint("shows", __name__, template_folder="templates", static_folder="static",
               static_url_path="/shows/static")

from companion.web.shows import api, pages  # noqa: E402,F401  (their routes join bp)

area = Area("shows", bp, "shows.index", 30, catalogs=Path(__file__).parent / "i18n")
