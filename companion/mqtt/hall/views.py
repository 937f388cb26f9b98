"""The hall's routes: the page, its state as JSON, and the live stream of changed cards (the site's one loop)."""

import json
from collections.abc import Iterator

from flask import Blueprint, current_app, render_template, request

from companion.skyrockets.colours import COLOURS
from companion.skyrockets.show import CROWD_TOKENS
from companion.web.live import Compact, follow, last_event_id
from companion.web.looks import LOOKS


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


def hall_stream(hall, after: int | None, **settings) -> Iterator[str]:
    """One `hall` event per frame: the cards that moved (all of them first) and the board when it moved.

    A frame is serialised once by the hall for every viewer at the same point, and sent as it is.
    """
    return follow("hall", hall.published, hall.frame, lambda frame: Compact(frame["text"]), after, number="seq",
                  **settings)
