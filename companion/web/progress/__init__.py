"""Progress: the table's records over nights, for each game, in figures, sentences and pictures (page and API).

Pages under /progress, the JSON API under /api/progress; the figures are
companion.progress's, computed by the table from its records (the Progress
port), drawn here as SVG (charts.py) beside a sentence and a table.
"""

from pathlib import Path

from flask import Blueprint
from werkzeug.exceptions import NotFound

from companion.ports import Progress
from companion.web.areas import Area
from companion.web.errors import coded

bp = Blueprint("progress", __name__, template_folder="templates", static_folder="static",
               static_url_path="/progress/static")


def book() -> Progress:
    """The table's progress figures; a stand-in table that keeps none has no progress pages (404)."""
    from companion.web import figures

    found = figures()
    if found is None:
        raise coded(NotFound("this table keeps no progress figures"), "errors.not_found")
    return found


from companion.web.progress import api, pages  # noqa: E402,F401  (their routes join bp)

area = Area("progress", bp, "progress.index", 70, catalogs=Path(__file__).parent / "i18n")
