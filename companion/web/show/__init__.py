"""The live show: the table page (`pages.py`) and the show's JSON API under /api (`api.py`, CONTRACTS §4)."""

from pathlib import Path

from flask import Blueprint

from companion.web.areas import Area

# The area keeps the name "table": its pages and links have always been table.index and /.
bp = Blueprint("table", __name__, template_folder="templates", static_folder="static",
               static_url_path="/table/static")

from companion.web.show import api, pages  # noqa: E402,F401  (their routes join bp)

area = Area("table", bp, "table.index", 10, catalogs=Path(__file__).parent / "i18n")
