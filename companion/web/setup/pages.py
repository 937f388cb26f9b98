"""The setup page: the setup code (the owner's session) first, then the settings form, the wiring check, timing a glass.

The server draws the form from the table's settings and the pin map's
defaults; the page's script sends it to the API and fills the live parts.
Reopening setup is a button on the table's own screen (the kiosk).
"""

from flask import redirect, render_template, request
from werkzeug.exceptions import Forbidden

from companion.skyrockets import COLOURS
from companion.skyrockets.beams import MAX_RUNS
from companion.web import setup
from companion.web.errors import coded
from companion.web.looks import LOOKS
from companion.web.security import from_the_table
from companion.web import owner
from companion.web.setup import bp


@bp.app_context_processor
def door():
    """For every page: the table's name (titles); for the table's own screen: the setup code while setup is
    open, else a button that reopens it."""
    def setup_door() -> dict:
        desk = setup()  # None: a stand-in table of a test, with no setup desk
        return desk.setup_door() if desk else {"open": False, "code": None, "can_reopen": False, "name": ""}
    return {"setup_door": setup_door}


@bp.get("/setup/")
def index():
    desk = setup()
    if not owner.is_owner():
        return render_template("setup/enter.html", area="setup", open=desk.setup_door()["open"], next=request.path)
    choices = desk.setup_choices()
    return render_template(
        "setup/index.html", area="setup", first_run=owner.holds_code(), settings=desk.settings(),
        colours=COLOURS, looks=LOOKS, sources=choices["sources"], languages=choices["languages"],
        drivers=choices["drivers"], defaults=choices["pin_map"], name_max=choices["name_max"], max_runs=MAX_RUNS,
        band=choices["band"], saved=request.args.get("saved") == "1")


@bp.post("/setup/reopen")
def reopen():
    """Open the setup flow again with a new code: from the table's own screen only."""
    if not from_the_table():
        raise coded(Forbidden("setup is reopened from the table's own screen or with `companion setup --reopen`"),
                    "setup.reopen_here")
    setup().reopen_setup()
    return redirect("/kiosk/", 303)
