"""Every error as an answer a person or a script can use: JSON under /api/, a friendly page elsewhere.

Bad input is 400 naming the field, a table that cannot do it now is 409, and
nothing ever answers with a traceback.
"""

import logging

from flask import jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from companion.errors import BadInput, Conflict
from companion.web.i18n import translate

log = logging.getLogger(__name__)


def wants_json() -> bool:
    return request.path.startswith("/api/")


def init_app(app) -> None:
    app.register_error_handler(BadInput, bad_input)
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(Exception, unexpected)


def bad_input(e: BadInput):

    status = 409 if isinstance(e, Conflict) else 400
    if wants_json():
        return jsonify(error=str(e), field=e.field), status
    return _page(status, str(e))


def http_error(e: HTTPException):
    headers = [(k, v) for k, v in e.get_headers() if k.lower() != "content-type"]
    if wants_json():
        return jsonify(error=e.description), e.code, headers
    return _page(e.code, e.description, headers)


def unexpected(e: Exception):
    log.exception("request %s %s failed", request.method, request.path)
    return http_error(InternalServerError("something went wrong on the table; the error is in its log"))


def _page(status: int, detail: str, headers=()):
    known = status in (400, 403, 404, 405, 409, 413, 429, 500)
    page = render_template("error.html", status=status, detail=detail,
                           headline=translate(f"error.{status}" if known else "error.other"))
    return page, status, list(headers)
