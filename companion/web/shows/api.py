"""Past shows as JSON, and each show's journal as a show log (CONTRACTS §1) that `companion replay` reads."""

from flask import jsonify
from werkzeug.exceptions import NotFound

from companion.web import ledger
from companion.web.errors import coded
from companion.web.shows import bp


@bp.get("/api/shows")
def shows():
    return jsonify(ledger().shows())


@bp.get("/api/shows/<int:show_id>/log")
def show_log(show_id: int):
    lines = ledger().show_log(show_id)
    if lines is None:
        raise coded(NotFound(f"there is no show {show_id}"), "errors.show.gone")
    headers = {"Content-Disposition": f'inline; filename="show-{show_id}.jsonl"'}
    return "".join(line + "\n" for line in lines), 200, {"Content-Type": "application/jsonl; charset=utf-8", **headers}
