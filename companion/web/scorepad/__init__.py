"""The score pad: every event's best stars and attempts, and whose turn it is to start (page and API)."""

from pathlib import Path

from flask import Blueprint

from companion.web.areas import Area

bp = Blueprint("scorepad", __name__, template_folder="templates", static_folder="static",
               static_url_path="/scorepad/static")

from companion.web.scorepad import api, pages, results  # noqa: E402,F401  (their routes join bp)

area = Area("scorepad", bp, "scorepad.index", 20, catalogs=Path(__file__).parent / "i18n")
