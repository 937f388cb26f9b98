"""The score pad page: every event's best stars and attempts, and whose turn it is to start."""

from flask import current_app, render_template

from companion.players import MAX_NAME, MAX_PLAYERS
from companion.web import ledger
from companion.web.scorepad import bp
from companion.web.scorepad.pieces import MAX_UPLOAD_BYTES, piece_length
from companion.web.security import unlocked


@bp.get("/scorepad")
def index():
    return render_template("scorepad/index.html", area="scorepad", pad=ledger().scorepad(),
                           festivals=ledger().festival_pad(), unlocked=unlocked(), max_players=MAX_PLAYERS,
                           max_name=MAX_NAME, history_piece=piece_length(current_app.config["MAX_CONTENT_LENGTH"]),
                           history_max_bytes=MAX_UPLOAD_BYTES)
