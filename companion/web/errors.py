"""Every error as an answer a person or a script can use: JSON under /api/, a friendly page elsewhere.

Bad input is 400 naming the field, a table that cannot do it now is 409, and
nothing ever answers with a traceback. A JSON answer is
`{"error": why, "field": which, "code": catalogue key}`: the code (for
example `errors.pin_wrong`) lets a page show the message in its own language.

>>> from werkzeug.exceptions import Forbidden
>>> coded(Forbidden("wrong PIN"), "errors.pin_wrong").error_code
'errors.pin_wrong'
"""

import logging
from html import escape

from flask import jsonify, render_template, request
from flask.globals import request_ctx
from werkzeug.exceptions import BadHost, HTTPException, InternalServerError, ServiceUnavailable

from companion.errors import BadInput, Conflict, RecordsBusy
from companion.web.i18n import DEFAULT, language, translate

log = logging.getLogger(__name__)

# The catalogue key of each status when the error names none of its own.
STATUS_CODES = {
    400: "errors.bad_input", 403: "errors.forbidden", 404: "errors.not_found", 405: "errors.method",
    409: "errors.conflict", 413: "errors.too_large", 421: "errors.wrong_host", 429: "errors.too_many", 431: "errors.too_large",
    500: "errors.internal", 503: "errors.busy",
}
OTHER_CODE = "errors.other"
PAGE_HEADLINES = (400, 403, 404, 405, 409, 413, 421, 429, 500)  # the statuses with an error.<status> headline


def coded(error: HTTPException, code: str) -> HTTPException:
    """`error`, marked with the catalogue key a page shows it by."""
    error.error_code = code
    return error


def code_of(error: Exception, status: int) -> str:
    return getattr(error, "error_code", None) or STATUS_CODES.get(status, OTHER_CODE)


def wants_json() -> bool:
    return request.path.startswith("/api/")


def init_app(app) -> None:
    app.register_error_handler(BadInput, bad_input)
    app.register_error_handler(RecordsBusy, busy)
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(Exception, unexpected)


def bad_input(e: BadInput):
    status = 409 if isinstance(e, Conflict) else 400
    if wants_json():
        said = {"params": e.params} if getattr(e, "params", None) else {}
        return jsonify(error=str(e), field=e.field, code=code_of(e, status), **said,
                       **getattr(e, "details", {})), status
    return _page(status, _said(code_of(e, status), status, field=e.field, **(getattr(e, "params", None) or {})))


def busy(e: RecordsBusy):
    """Another writer held the records past the busy timeout: nothing was changed; the client may retry."""
    log.warning("request %s %s: %s", request.method, request.path, e)
    return http_error(coded(ServiceUnavailable("the table's records are busy; try again shortly",
                                               retry_after=e.retry_after_s), "errors.busy"))


def http_error(e: HTTPException):
    headers = [(k, v) for k, v in e.get_headers() if k.lower() != "content-type"]
    if isinstance(e, BadHost) or request_ctx.url_adapter is None:
        return _bare(e, headers)
    if wants_json():
        return jsonify(error=e.description, field="", code=code_of(e, e.code)), e.code, headers
    english = (e.description or "").isascii() and language() != DEFAULT  # a page's own words, not translated
    coded_or_stock = getattr(e, "error_code", None) is not None or e.description == type(e).description
    return _page(e.code, _said(code_of(e, e.code), e.code) if coded_or_stock or english else e.description, headers)


def unexpected(e: Exception):
    log.exception("request %s %s failed", request.method, request.path)
    return http_error(InternalServerError("something went wrong on the table; the error is in its log"))


def _bare(e: HTTPException, headers):
    """The answer when the request's Host cannot be used: no page can be built (its links need the host)."""
    if wants_json():
        return jsonify(error="the Host header is not a name or address", field="Host",
                       code="errors.bad_host"), e.code, headers
    text = f"<!doctype html><title>{e.code}</title><p>{escape(e.description or '')}</p>"
    return text, e.code, [*headers, ("Content-Type", "text/html; charset=utf-8")]


def _said(code: str, status: int, **params) -> str:
    """The sentence a page shows for an error: its code's, in the page's language (werkzeug's and our
    refusals' own words are English, for scripts and logs); the status's if the catalogue lacks the code.
    A page that raises with words of its own has already put them in the page's language."""
    text = translate(code, **params)
    return text if text != code else translate(STATUS_CODES.get(status, OTHER_CODE))


def _page(status: int, detail: str, headers=()):
    page = render_template("error.html", status=status, detail=detail,
                           headline=translate(f"error.{status}" if status in PAGE_HEADLINES else "error.other"))
    return page, status, list(headers)
