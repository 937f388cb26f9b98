"""The maintenance page: the PIN (or the setup code) first, then a backup to download and a form that restores one;
the versions (running, and the one before) and, with the setup code, a form that updates the program."""

from flask import render_template, request

from companion.errors import Conflict
from companion.web import setup
from companion.web.backup import bp
from companion.web.backup.api import PIECE_BYTES, owners_access


@bp.get("/maintenance/")
def index():
    access = owners_access()
    try:
        versions = setup().releases()
    except (AttributeError, Conflict):  # a stand-in table, or one that keeps no files (the demo): no updates
        versions = None
    return render_template("backup/index.html", area="maintenance", unlocked=access.allowed(), next=request.path,
                           piece_bytes=PIECE_BYTES, owner=access.holds_code(), versions=versions)
