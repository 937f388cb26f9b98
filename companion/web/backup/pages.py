"""The maintenance page: the owner's session (the setup code) first, then a backup to download, a form that
restores one, the versions (running, and the one before) and a form that updates the program."""

from flask import render_template, request

from companion.errors import Conflict
from companion.web import owner, setup
from companion.web.backup import bp
from companion.web.backup.api import PIECE_BYTES, said_here


@bp.get("/maintenance/")
def index():
    unlocked = owner.is_owner()
    versions = None
    if unlocked:
        try:
            versions = said_here(setup().releases())
        except (AttributeError, Conflict):  # a stand-in table, or one that keeps no files (the demo): no updates
            pass
    return render_template("backup/index.html", area="maintenance", unlocked=unlocked, next=request.path,
                           piece_bytes=PIECE_BYTES, versions=versions)
