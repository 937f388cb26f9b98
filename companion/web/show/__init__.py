"""The live show: the table page (`pages.py`) and the show's JSON API under /api (`api.py`, CONTRACTS §4)."""

from pathlib import Path

from flask import Blueprint

from companion.web.areas import Area

# People call this page "the table" (its navigation label, templates and static URLs keep that word);
# its blueprint is named after its package.
bp = Blueprint("show", __name__, template_folder="templates", static_folder="static",
               static_url_path="/table/static")

from companion.web.show import api, pages  # noqa: E402,F401  (their routes join bp)

area = Area("table", bp, "show.index", 10, catalogs=Path(__file__).parent / "i18n")
