"""The past shows' pages: the list, and each show's timeline drawn from its log.

Times are stored in UTC; the page writes them in UTC and its script shows them
in the phone's own time zone.
"""


from datetime import datetime

from flask import abort, render_template
from markupsafe import Markup

from companion.errors import BadInput
from companion.skyrockets import COLOURS
from companion.web import ledger
from companion.web.i18n import translate, when
from companion.web.shows import bp
from companion.web.shows.timeline import LABELS, timeline_svg

@bp.app_template_global()
def moment(iso: str | None) -> Markup:
    """A stored UTC instant as a <time> element (in UTC until the page's script puts it in local time)."""
    if not iso:
        return Markup("–")
    return Markup('<time datetime="{}">{}</time>').format(iso, when(iso))


@bp.app_template_global()
def lasted(show: dict) -> str:
    """How long a past show lasted on its own clock, m:ss, as its card and timeline count (– while it runs, or
    without a journal). A demo at 10x runs ten show seconds a second: the table's clock says another length.

    >>> lasted({"started": "2025-05-04T19:30:00Z", "ended": "2025-05-04T19:34:07Z", "show_s": 60.4})
    '1:00'
    """
    return _m_ss(show["show_s"]) if show.get("ended") and show.get("show_s") is not None else "–"


@bp.app_template_global()
def lasted_at_table(show: dict) -> str:
    """How long a past show lasted on the table's (wall) clock, from its start to its end, m:ss (– while it runs).

    >>> lasted_at_table({"started": "2025-05-04T19:30:00Z", "ended": "2025-05-04T19:34:07Z", "show_s": 60.4})
    '4:07'
    """
    try:
        return _m_ss((datetime.fromisoformat(show["ended"]) - datetime.fromisoformat(show["started"])).total_seconds())
    except (KeyError, TypeError, ValueError):  # still running, or a stored instant that does not read
        return "–"


def _m_ss(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds >= 0 else "–"


@bp.get("/shows")
def index():
    return render_template("shows/index.html", area="shows", shows=ledger().shows())


@bp.get("/shows/<int:show_id>")
def show(show_id: int):
    kept = ledger()
    record = kept.show_record(show_id)
    if record is None:
        abort(404, translate("shows.unknown", id=show_id))
    labels = {key: translate(key if "." in key else f"timer.{key}" if key in COLOURS else f"timeline.{key}")
              for key in LABELS}
    try:
        svg, problem = timeline_svg(kept.show_log(show_id), labels), None
    except BadInput as e:  # a damaged journal still gets its page, with the reason
        svg, problem = None, str(e)
    return render_template("shows/show.html", area="shows", show=record, timeline=svg, problem=problem)
