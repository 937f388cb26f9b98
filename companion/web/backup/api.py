"""The maintenance area's routes: a backup downloaded, a backup restored (docs/install.md, Backup and restore).

Both are the owner's (the owner's session the setup code opens, companion.web.owner): a backup carries the
config, the PIN, the hosts and the broker among it, so the table PIN neither takes one away nor puts one
back. The restore's pieces carry the page's CSRF token. The table checks a backup whole once its last piece
is in: one that does not read is refused with 400 naming what is wrong (backup.config.toml.timers.red.pins,
...) and nothing is kept; a good one is kept for the next start, and a daemon under systemd restarts on it
at once.

A release file (the program and its hashed wheels) is uploaded the same way, by the owner alone too: the
PIN, which players share, never changes the program. The table checks it whole and hands it to the update
service, which installs it as root; the daemon itself never runs pip nor writes the program's folder.
"""

import atexit
import os
import signal

from flask import Response, jsonify, request
from werkzeug.exceptions import NotFound

from companion import fields
from companion.web import setup
from companion.web.backup import bp
from companion.web.errors import coded
from companion.web.i18n import translate
from companion.web.owner import needs_owner

RESTART_EXIT_STATUS = 75  # the daemon's exit to be started again on a restored backup (the unit's RestartForceExitStatus)
PIECE_BYTES = 24 * 1024  # the page's pieces: within the API's largest body (MAX_CONTENT_LENGTH), with room
MAX_BACKUP_PIECES = 1 << 16  # far more than a backup at its limit takes in pieces of PIECE_BYTES
MAX_SIZE = 1 << 40  # a size to read as a number at all: the table refuses any over its own limit


def _desk(port: str):
    """The table's side of backups (404 for a stand-in table that has none)."""
    answer = getattr(setup(), port, None)
    if answer is None:
        raise coded(NotFound("this table keeps no files to back up"), "errors.backup.none")
    return answer


@bp.get("/maintenance/backup.tar.gz")
@needs_owner
def download():
    name, data = _desk("back_up")()
    return Response(data, mimetype="application/gzip", headers={
        "Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})


@bp.post("/api/maintenance/restore")
@needs_owner
def restore():
    answer = _desk("receive_backup")(*_piece(), with_config=True)
    if answer.get("restore") != "pending":
        return jsonify(answer), 202
    restarts = bool(os.environ.get("NOTIFY_SOCKET"))  # under systemd, which starts it again
    response = jsonify(**answer, restart=restarts)
    if restarts:
        response.call_on_close(_restart)
    return response, 202


def _piece() -> tuple[bytes, int, int, int, str | None]:
    """A piece of a file sent from the page: its bytes, its number, how many, the whole's size, the upload's id."""
    args = request.args
    part = fields.digits(args.get("part"), "part", 1, MAX_BACKUP_PIECES)
    parts = fields.digits(args.get("parts"), "parts", part, MAX_BACKUP_PIECES)
    size = fields.digits(args.get("size", "0"), "size", 0, MAX_SIZE)
    upload = fields.line(args["upload"], "upload", 64) if "upload" in args else None
    return request.get_data(cache=False), part, parts, size, upload


@bp.post("/api/maintenance/release")
@needs_owner
def upload_release():
    return jsonify(_desk("receive_release")(*_piece())), 202


@bp.get("/api/maintenance/release")
def releases():
    """The release running, the one before it, the last update's status: open to look at, as the show is, so a
    page that waits through the restart an update makes (its session ends with the daemon) still hears it."""
    return jsonify(said_here(_desk("releases")()))


def said_here(versions: dict) -> dict:
    """The versions with the last update's line in the page's language, from its code (the English line as it was
    written when it has none: a refusal's words are the system's)."""
    update = versions.get("update")
    if update and "code" in update:
        values = dict(update.get("params", {}))
        if "why" in values:
            values["why"] = translate(values["why"], **values)
        versions = {**versions, "update": {**update, "line": translate(update["code"], **values)}}
    return versions


def _restart() -> None:
    """Stop as cleanly as `systemctl stop` would, then leave with the status that has systemd start us again."""
    atexit.register(os._exit, RESTART_EXIT_STATUS)
    os.kill(os.getpid(), signal.SIGTERM)
