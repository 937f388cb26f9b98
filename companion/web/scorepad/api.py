"""The score pad's JSON API: every event's best stars and attempts, as JSON and CSV, and the players."""

import csv
import io

from flask import jsonify

from companion import jsonin
from companion.web import get_table
from companion.web.api import json_body, need
from companion.web.scorepad import bp
from companion.web.security import needs_pin


@bp.get("/api/scorepad")
def scorepad():
    return jsonify(get_table().scorepad())


@bp.get("/api/scorepad.csv")
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


@bp.post("/api/players")
@needs_pin
def players():
    data = json_body("players")
    names = need(data, "players")
    for i, name in enumerate(names if isinstance(names, list) else ()):
        if isinstance(name, str):
            jsonin.check_line(name, f"players[{i}]")  # a name is one line of text
    return jsonify(get_table().set_players(names))
