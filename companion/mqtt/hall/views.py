"""The hall's routes: the page, its state as JSON, and the live stream of changed cards."""

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator

from flask import Blueprint, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from companion.skyrockets.colours import COLOURS
from companion.skyrockets.show import CROWD_TOKENS
from companion.web.live import KEEP_ALIVE, WAKE_S, compact, last_event_id, message
from companion.web.looks import LOOKS

log = logging.getLogger(__name__)

bp = Blueprint("hall", __name__, template_folder="templates", static_folder="static",
               static_url_path="/hall/static")


def get_hall():
    return current_app.extensions["hall"]


@bp.get("/")
def index():
    limits = {"crowd_tokens": CROWD_TOKENS}
    return render_template("hall/index.html", area="hall", looks={c: LOOKS[c] for c in COLOURS}, limits=limits)


@bp.get("/api/hall")
def state():
    """Every card and the leaderboard, as the page's first message would carry them."""
    return current_app.response_class(json.dumps(get_hall().view(), ensure_ascii=False),
                                      mimetype="application/json")


@bp.get("/api/hall/events")
def events():
    streams = current_app.extensions["streams"]
    after = last_event_id(request.headers.get("Last-Event-ID"))
    return streams.open(hall_stream(get_hall(), after, **streams.settings))


def hall_stream(hall, after: int | None, *, keepalive_s: float, retry_ms: int, closing: threading.Event,
                clock: Callable[[], float] = time.monotonic) -> Iterator[str]:
    """One `hall` event per change: the cards that moved (all of them first) and the board when it moved."""
    yield f"retry: {retry_ms}\n\n"
    seq = -1 if after is None or after > hall.view()["seq"] else after  # a larger id is from an earlier hall
    said = clock()
    while not closing.is_set():
        changed = hall.changes(seq, min(keepalive_s, WAKE_S))
        if changed["seq"] > seq:
            seq = changed["seq"]
            yield message("hall", compact(changed), event_id=seq)
            said = clock()
        elif clock() - said >= keepalive_s:
            yield KEEP_ALIVE
            said = clock()


def init_errors(app) -> None:
    """Errors as JSON under /api/ and as one plain line elsewhere; never a traceback."""
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)


def _http_error(e: HTTPException):
    if request.path.startswith("/api/"):
        return jsonify(error=e.description), e.code
    return current_app.response_class(f"{e.code} {e.name}: {e.description}\n", e.code, mimetype="text/plain")


def _unexpected(e: Exception):
    log.exception("request %s %s failed", request.method, request.path)
    return _http_error(InternalServerError("something went wrong in the hall; the error is in its log"))
