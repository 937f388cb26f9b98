"""Results that travel, for the pages and the API: a finished show's or bird game's share text and BG Stats link,
the festival pad, and the whole history exported and imported (docs/festivals.md)."""

import itertools
import re

from flask import Response, current_app, jsonify, request
from werkzeug.exceptions import NotFound

from companion.errors import BadInput
from companion import fields
from companion.clock import iso
from companion.skyrockets.festivals import event_number
from companion.skyrockets.log import replay
from companion.web import ledger
from companion.web.api import json_body, need
from companion.web.download import cell, csv_stream
from companion.web.errors import coded
from companion.web.i18n import event_name, translate
from companion.web.scorepad import bp
from companion.web.scorepad.pieces import MAX_PIECES, MAX_UPLOAD_ID, Pieces
from companion.web.security import needs_pin
from companion.web.share import bgstats_link, game_result, offers_bgstats, show_result


@bp.app_template_global()
def show_share(show: dict) -> dict | None:
    """A finished show's share text, emoji line, BG Stats play and link (None while it runs or if aborted)."""
    if show.get("outcome") not in ("win", "loss"):
        return None
    name = event_name(show["event"], show["event_name"])
    number = event_number(show["event"])
    if number is not None:
        name = translate("festival.event_n", n=number) + ("" if name == show["event"] else f" · {name}")
    named = {**show, "event_name": name}
    result = show_result(named, ledger().scorepad()["players"], translate, _ran_out(show["id"]),
                         table=ledger().table_id())
    return {**result, "link": bgstats_link(result["play"]), "bgstats": offers_bgstats(request.user_agent.string)}


def _ran_out(show_id: int) -> list[str]:
    """The glasses that ran out in a past show, in order, replayed from its log (none when it does not replay)."""
    try:
        return [r["timer"] for r in replay(ledger().show_log(show_id) or [], notices=False).result()["runouts"]]
    except BadInput:  # a damaged journal: the result still travels, without its run-outs
        return []


@bp.app_template_global()
def geese_share(game: dict, sheet: dict) -> dict | None:
    """A finished 帰る雁 game's share text and BG Stats play (None until it is over)."""
    if not sheet.get("final"):
        return None
    totals = {row["name"]: row["total"] for row in sheet["rows"]}
    ranking = [(name, totals[name]) for name in sheet["ranking"]]
    start = game["players"][0] if game.get("players") else None
    result = game_result("帰る雁 (Kaeru Kari)", "kaeru-kari", f"{ledger().table_id()}-kaeru-kari-game-{game['id']}",
                         ranking, iso(game["updated"]), translate, start, title=translate("geese.title"))
    return {**result, "link": bgstats_link(result["play"]), "bgstats": offers_bgstats(request.user_agent.string)}


@bp.app_template_global()
def flock_share(summary: dict) -> dict | None:
    """A finished Über den Wolken game's share text and BG Stats play (None until it is over)."""
    if not summary.get("over"):
        return None
    name = lambda p: summary["names"].get(p) or p  # noqa: E731  (a player is named, or shown by species)
    ordered = sorted(summary["players"], key=lambda p: (p not in summary["winners"], -summary["totals"].get(p, 0)))
    ranking = [(name(p), summary["totals"].get(p, 0)) for p in ordered]
    result = game_result("Über den Wolken", "ueber-den-wolken",
                         f"{ledger().table_id()}-ueber-den-wolken-game-{summary['id']}", ranking,
                         iso(summary["updated"]), translate, name(summary["start"]),
                         winners={name(p) for p in summary["winners"]}, title=translate("nav.flock"))
    return {**result, "link": bgstats_link(result["play"]), "bgstats": offers_bgstats(request.user_agent.string)}


@bp.get("/api/shows/<int:show_id>/result")
def show_result_json(show_id: int):
    record = ledger().show_record(show_id)
    shared = show_share(record) if record else None
    if shared is None:
        raise coded(NotFound(f"there is no finished show {show_id}"), "errors.show.gone")
    return jsonify(shared)


@bp.get("/api/festivals")
def festivals():
    return jsonify(ledger().festival_pad())


@bp.post("/api/festivals")
@needs_pin
def save_festival():
    return jsonify(ledger().save_festival(json_body("name", "events")))


@bp.post("/api/festivals/<int:festival_id>/delete")
@needs_pin
def delete_festival(festival_id: int):
    """Forget a custom festival (the shows played in it stay on the score pad)."""
    if not ledger().delete_festival(festival_id):
        raise coded(NotFound(f"there is no custom festival {festival_id}"), "errors.festival.gone")
    return jsonify({"deleted": festival_id})


@bp.get("/api/history")
def history_file():
    """The whole history, sent as it is read (chunked): a failure part way ends it in a line no import takes."""
    headers = {"Content-Disposition": 'attachment; filename="companion-history.jsonl"'}
    pieces = (piece.encode("utf-8", "surrogatepass") for piece in ledger().history_pieces())
    return Response(pieces, headers={"Content-Type": "application/jsonl; charset=utf-8", **headers})


@bp.post("/api/history")
@needs_pin
def import_history():
    """A history file read into this fresh table: in one body `{"history"}`, or in pieces, each
    `{"history", "part", "parts", "upload"}` (the page's way: a body is small, a history need not be); the first
    piece's answer names the upload, and every later piece carries its id."""
    data = json_body("history", "part", "parts", "upload")
    text = fields.text(need(data, "history"), "history")
    if "part" in data or "parts" in data:
        parts = fields.whole(need(data, "parts"), "parts", 1, MAX_PIECES)
        part = fields.whole(need(data, "part"), "part", 1, parts)
        upload = fields.line(data["upload"], "upload", MAX_UPLOAD_ID) if data.get("upload") is not None else None
        upload, text = current_app.extensions.setdefault("history_pieces", Pieces()).add(text, part, parts, upload)
        if text is None:
            return jsonify({"received": part, "parts": parts, "upload": upload})
    try:
        return jsonify({"imported": ledger().import_history(text)})
    except BadInput as e:  # the page says which line cannot be read, in its language; `error` says why
        if getattr(e, "error_code", None):
            raise
        line = re.match(r"line (\d+)", e.field)
        raise BadInput(e.field, e.problem, code="history.refused.line" if line else "history.refused.file",
                       params={"line": int(line[1])} if line else None) from None


@bp.get("/api/history.csv")
def history_csv():
    """Every show as a CSV row, oldest first (festival number, stars, who started), written as the rows are read."""
    head = [["show", "event", "name", "challenge", "outcome", "stars", "started", "ended", "start_player"]]
    rows = ([show["id"], cell(show["event"]), cell(show["event_name"]), "yes" if show["challenge"] else "no",
             show["outcome"], show["stars"], show["started"], show["ended"] or "", cell(show["start_player"])]
            for show in ledger().each_show())
    return csv_stream(itertools.chain(head, rows), "shows.csv")
