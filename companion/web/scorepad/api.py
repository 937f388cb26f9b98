"""The score pad's JSON API: every event's best stars and attempts, as JSON and CSV, and the players."""


from flask import jsonify

from companion.web import ledger
from companion.web.api import json_body, need
from companion.web.download import cell, csv_download
from companion.web.scorepad import bp
from companion.web.security import needs_pin


@bp.get("/api/scorepad")
def scorepad():
    return jsonify(ledger().scorepad())


@bp.get("/api/scorepad.csv")
def scorepad_csv():
    rows = [["event", "name", "best_stars", "attempts", "wins", "last_played"]]
    rows += [[cell(row["event"]), cell(row["name"]), cell(row["best_stars"]), row["attempts"], row["wins"],
              cell(row["last_played"])] for row in ledger().scorepad()["events"]]
    return csv_download(rows, "scorepad.csv")


@bp.post("/api/players")
@needs_pin
def players():
    data = json_body("players")
    return jsonify(ledger().set_players(need(data, "players")))
