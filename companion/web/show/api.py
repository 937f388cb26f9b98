"""The live show's JSON API (CONTRACTS §4): the show, its live feed, its commands, the table's settings."""

import threading
from collections.abc import Iterator

from flask import current_app, jsonify, request, url_for
from werkzeug.exceptions import NotFound

from companion.skyrockets.colours import check_colour
from companion.web import desk, ledger, setup
from companion.web.api import boolean, json_body, need, streams
from companion.web.live import compact, follow, last_event_id, message, show_stream
from companion.web.owner import needs_owner
from companion.web.security import needs_pin
from companion.web.show import bp


# ---- the show -------------------------------------------------------------

@bp.get("/api/show")
def show():
    """The show as it is now; a page polling it (past the stream cap) is answered 304 while it has the latest."""
    return streams().conditional(desk().snapshot()["seq"], desk().current)


@bp.get("/api/show/events")
def show_events():
    last = last_event_id(request.headers.get("Last-Event-ID"))
    return streams().open(show_stream(desk(), last, fanout=streams().fanout, push=streams().push,
                                      **streams().settings), poll=url_for("show.show"))


@bp.post("/api/show/start")
@needs_pin
def start():
    data = json_body("event", "challenge")
    snapshot = desk().start_show(need(data, "event"), challenge=boolean(data, "challenge", False))
    return jsonify(snapshot), 201


@bp.post("/api/show/flip")
@needs_pin
def flip():
    data = json_body("timer")
    return jsonify(desk().flip(check_colour(need(data, "timer"), "timer")))


@bp.post("/api/show/lay")
@needs_pin
def lay():
    data = json_body("timer")
    return jsonify(desk().lay(check_colour(need(data, "timer"), "timer")))


@bp.post("/api/show/abort")
@needs_pin
def abort_show():
    json_body()
    return jsonify(desk().abort())


@bp.get("/api/events")
def events():
    return jsonify(ledger().events())


# ---- the table's settings ---------------------------------------------------

@bp.post("/api/mute")
@needs_pin
def mute():
    data = json_body("muted")
    return jsonify(desk().set_muted(boolean(data, "muted")))


@bp.post("/api/calibration")
@needs_owner
def calibrate():
    data = json_body("timer", "seconds")
    return jsonify(setup().calibrate(need(data, "timer"), need(data, "seconds")))


def strip_now() -> dict:
    """What the strip shows now; 404 for a table without one."""
    picture = desk().strip_picture(0, 0)
    if picture is None:
        raise NotFound("this table has no LED strip to show")
    return picture


@bp.get("/api/strip")
def strip():
    """The strip's layout and what it shows now, in one record: read by a page polling past the stream cap
    (304 while it has picture `n`)."""
    picture = strip_now()
    return streams().conditional(picture["n"], lambda: {"layout": picture["layout"], "state": picture["state"],
                                                        "hold": picture["hold"], "now": desk().show_time(),
                                                        "n": picture["n"]})


@bp.get("/api/strip/events")
def strip_events():
    """The strip's layout and look once, then what it shows at every change (never frames: the page draws them)."""
    first = strip_now()
    return streams().open(strip_stream(desk(), first, **streams().settings), poll=url_for("show.strip"),
                          number="n")


def strip_stream(shown, first: dict, **settings) -> Iterator[str]:
    """`event: layout` once, then `event: picture` with each new picture, stamped with the show time it is sent at
    (the page's clock runs on from there). Every connection starts from the current picture: a page that
    reconnects has just redrawn its layout. New settings (another strip, or none) end the stream: the page
    comes back for the new layout. The stream sleeps until the strip shows something new (its bell)."""
    bell = threading.Event()
    bell.set()  # the picture it starts from

    def now() -> dict | None:
        picture = shown.strip_picture(0, 0)
        return picture if picture is not None and picture["layout"] is first["layout"] else None

    def wait(seen: int, timeout: float) -> dict | None:
        bell.wait(timeout)
        bell.clear()
        return now()

    def current() -> int | None:
        picture = now()
        return None if picture is None else picture["n"]

    def sent(picture: dict) -> dict:
        return {"state": picture["state"], "hold": picture["hold"], "now": shown.show_time()}

    leave = shown.ring_on_picture(bell)
    try:
        pictures = follow("picture", current, wait, sent, None, number="n", bell=bell, **settings)
        yield next(pictures)  # the reconnection delay, first as on every stream
        yield message("layout", compact(first["layout"]))
        yield from pictures
    finally:
        leave()
