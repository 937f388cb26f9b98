"""The maintenance page: the owner's session (the setup code) first, then a backup to download and a form that restores one."""

from flask import render_template, request

from companion.web import owner
from companion.web.backup import bp
from companion.web.backup.api import PIECE_BYTES


@bp.get("/maintenance/")
def index():
    return render_template("backup/index.html", area="maintenance", unlocked=owner.is_owner(), next=request.path,
                           piece_bytes=PIECE_BYTES)
