"""The setup page: the code (or the PIN) first, then the settings form, the wiring check, timing a glass.

The server draws the form from the table's settings and the pin map's
defaults; the page's script sends it to the API and fills the live parts.
Reopening setup is a button on the table's own screen (the kiosk).
"""

from flask import redirect, render_template, request
from werkzeug.exceptions import Forbidden

from companion.calibration import CALIBRATION_BAND
from companion.config import LANGUAGES, MAX_TABLE_NAME, SOURCES, default_timers
from companion.hardware.pins import load_pinout
from companion.hardware.strip import DRIVERS
from companion.skyrockets import COLOURS
from companion.skyrockets.beams import MAX_RUNS
from companion.web import get_table
from companion.web.errors import coded
from companion.web.looks import LOOKS
from companion.web.security import from_the_table
from companion.web.setup import access, bp
from companion.table.firstrun import grouped
from companion.web.setup.access import allowed


def pin_map() -> dict:
    """The reference pin map's defaults, offered beside each pin field."""
    pinout = load_pinout()
    return {"timers": {c: list(t.pins) for c, t in default_timers().items()}, "buzzer": pinout["buzzer"]["pin"]}


@bp.app_context_processor
def door():
    """For the table's own screen: the setup code while setup is open, else a button that reopens it."""
    def setup_door() -> dict:
        table = get_table()
        first_run = getattr(table, "first_run", None)
        code = first_run.code if first_run is not None else None
        return {"code": grouped(code) if code else None, "can_reopen": getattr(table.config, "path", None) is not None}
    return {"setup_door": setup_door}


@bp.get("/setup/")
def index():
    table = get_table()
    door = table.first_run
    if not allowed():
        return render_template("setup/enter.html", area="setup", open=door.is_open, next=request.path)
    return render_template(
        "setup/index.html", area="setup", first_run=access.holds_code(), settings=table.settings(),
        colours=COLOURS, looks=LOOKS, sources=SOURCES, languages=LANGUAGES, drivers=DRIVERS,
        defaults=pin_map(), name_max=MAX_TABLE_NAME, max_runs=MAX_RUNS, band=CALIBRATION_BAND,
        saved=request.args.get("saved") == "1")


@bp.post("/setup/reopen")
def reopen():
    """Open the setup flow again with a new code: from the table's own screen only."""
    if not from_the_table():
        raise coded(Forbidden("setup is reopened from the table's own screen or with `companion setup --reopen`"),
                    "setup.reopen_here")
    get_table().reopen_setup()
    return redirect("/kiosk/", 303)
