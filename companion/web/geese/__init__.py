"""The 帰る雁 area: setup, the live wintering-ground tracker, the migration checker and the score sheet.

Pages in `pages.py`, the JSON API (under /api/geese) in `api.py`; both ask
the rules package (companion.geese) for every rule and keep games on the
table's game shelf (kind "geese").
"""

from pathlib import Path

from flask import Blueprint

from companion.web.areas import Area

bp = Blueprint("geese", __name__, template_folder="templates", static_folder="static",
               static_url_path="/geese/static")

from companion.web.geese import api, pages  # noqa: E402,F401  (their routes join bp)

area = Area("geese", bp, "geese.index", 60, catalogs=Path(__file__).parent / "i18n")
