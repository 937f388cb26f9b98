"""Past shows: the list, and each show's timeline drawn from its log, with the log to download."""

from pathlib import Path

from flask import Blueprint, abort, render_template

from companion.errors import BadInput
from companion.skyrockets import COLOURS
from companion.web import get_table
from companion.web.api import SQLITE_MAX_ID
from companion.web.areas import Area
from companion.web.i18n import translate
from companion.web.shows.timeline import LABELS, timeline_svg

bp = Blueprint("shows", __name__, template_folder="templates")


@bp.get("/shows")
def index():
    return render_template("shows/index.html", area="shows", shows=get_table().shows())


@bp.get("/shows/<int:show_id>")
def show(show_id: int):
    table = get_table()
    record = table.show_record(show_id) if show_id <= SQLITE_MAX_ID else None
    if record is None:
        abort(404, translate("shows.unknown", id=show_id))
    labels = {key: translate(f"timer.{key}" if key in COLOURS else f"timeline.{key}") for key in LABELS}
    try:
        svg, problem = timeline_svg(table.show_log(show_id), labels), None
    except BadInput as e:  # a damaged journal still gets its page, with the reason
        svg, problem = None, str(e)
    return render_template("shows/show.html", area="shows", show=record, timeline=svg, problem=problem)


area = Area("shows", bp, "shows.index", 30, catalogs=Path(__file__).parent / "i18n")
