"""The JSON API (docs/web.md): what the pages do, scripts and tests can do.

Reading needs nothing; every change needs the PIN (security.needs_pin). Bodies
are JSON objects, checked field by field before the table sees them: a wrong
one is 400 naming the field.
"""

import csv
import io
import json

from flask import Blueprint, current_app, jsonify, request
from werkzeug.exceptions import NotFound

from companion import jsonin
from companion.errors import BadInput
from companion.skyrockets.colours import check_colour
from companion.web import get_table
from companion.web.live import last_event_id, show_stream, strip_stream
from companion.web.security import needs_pin

bp = Blueprint("api", __name__, url_prefix="/api")

SQLITE_MAX_ID = 2**63 - 1  # larger ids cannot be looked up (and cannot exist)


def json_body(*allowed: str, any_field: bool = False) -> dict:
    """The request's JSON object (an empty body is {}), refusing fields not in `allowed`
    (`any_field`: a whole document, whose fields its reader checks)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    data = jsonin.parse(raw, "body")  # no NaN, huge integers, lone surrogates or deep nesting get past here
    if not isinstance(data, dict):
        raise BadInput("body", f"expected a JSON object, got {type(data).__name__}")
    unknown = [] if any_field else sorted(set(data) - set(allowed))
    if unknown:
        raise BadInput(unknown[0], f"unknown field (expected {', '.join(allowed) or 'none'})")
    return data


def need(data: dict, field: str):
    if field not in data:
        raise BadInput(field, "missing")
    return data[field]


def boolean(data: dict, field: str, default: bool | None = None) -> bool:
    value = need(data, field) if default is None else data.get(field, default)
    if not isinstance(value, bool):
        raise BadInput(field, f"expected true or false, got {json.dumps(value)}")
    return value


def streams():
    return current_app.extensions["streams"]


# ---- the show -------------------------------------------------------------

@bp.get("/show")
def show():
    return jsonify(get_table().current())


@bp.get("/show/events")
def show_events():
    last = last_event_id(request.headers.get("Last-Event-ID"))
    return streams().open(show_stream(get_table(), last, **streams().settings))


@bp.post("/show/start")
@needs_pin
def start():
    data = json_body("event", "challenge")
    snapshot = get_table().start_show(need(data, "event"), challenge=boolean(data, "challenge", False))
    return jsonify(snapshot), 201


@bp.post("/show/flip")
@needs_pin
def flip():
    data = json_body("timer")
    return jsonify(get_table().flip(check_colour(need(data, "timer"), "timer")))


@bp.post("/show/lay")
@needs_pin
def lay():
    data = json_body("timer")
    return jsonify(get_table().lay(check_colour(need(data, "timer"), "timer")))


@bp.post("/show/abort")
@needs_pin
def abort_show():
    json_body()
    return jsonify(get_table().abort())


@bp.get("/events")
def events():
    return jsonify(get_table().events())


# ---- the table's settings ---------------------------------------------------

@bp.post("/mute")
@needs_pin
def mute():
    data = json_body("muted")
    return jsonify(get_table().set_muted(boolean(data, "muted")))


@bp.post("/calibration")
@needs_pin
def calibrate():
    data = json_body("timer", "seconds")
    return jsonify(get_table().calibrate(need(data, "timer"), need(data, "seconds")))


@bp.get("/strip/events")
def strip_events():
    table = get_table()
    first = table.strip_frame(0, 0)
    if first is None:
        raise NotFound("this table has no LED strip to show")
    max_fps = current_app.config["STRIP_MAX_FPS"]
    return streams().open(strip_stream(table, first, max_fps=max_fps, **streams().settings))


# ---- records ----------------------------------------------------------------

@bp.get("/scorepad")
def scorepad():
    return jsonify(get_table().scorepad())


@bp.get("/scorepad.csv")
def scorepad_csv():
    pad = get_table().scorepad()
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["event", "name", "best_stars", "attempts", "wins", "last_played"])
    for row in pad["events"]:
        writer.writerow([_cell(row["event"]), _cell(row["name"]), _cell(row["best_stars"]), row["attempts"],
                         row["wins"], _cell(row["last_played"])])
    headers = {"Content-Disposition": 'attachment; filename="scorepad.csv"'}
    return out.getvalue(), 200, {"Content-Type": "text/csv; charset=utf-8", **headers}


def _cell(value) -> str:
    """A CSV cell a spreadsheet will not run as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@bp.post("/players")
@needs_pin
def players():
    data = json_body("players")
    names = need(data, "players")
    for i, name in enumerate(names if isinstance(names, list) else ()):
        if isinstance(name, str):
            jsonin.check_line(name, f"players[{i}]")  # a name is one line of text
    return jsonify(get_table().set_players(names))


@bp.get("/shows")
def shows():
    return jsonify(get_table().shows())


@bp.get("/shows/<int:show_id>/log")
def show_log(show_id: int):
    lines = get_table().show_log(show_id) if show_id <= SQLITE_MAX_ID else None
    if lines is None:
        raise NotFound(f"there is no show {show_id}")
    headers = {"Content-Disposition": f'inline; filename="show-{show_id}.jsonl"'}
    return "".join(line + "\n" for line in lines), 200, {"Content-Type": "application/jsonl; charset=utf-8", **headers}
