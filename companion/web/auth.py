"""Entering the table PIN on a page: the session remembers it until the page is locked again."""

from flask import Blueprint, redirect, render_template, request
from werkzeug.exceptions import Forbidden, TooManyRequests

from companion.web import owner, security
from companion.web.i18n import safe_next, translate

bp = Blueprint("auth", __name__)


@bp.get("/pin")
def pin_form():
    return render_template("auth/pin.html", next=safe_next(request.args.get("next")), error=None)


@bp.post("/pin")
def enter_pin():
    target = safe_next(request.form.get("next"))
    try:
        security.unlock(request.form.get("pin", ""))
    except Forbidden:
        return render_template("auth/pin.html", next=target, error=translate("pin.wrong")), 403
    except TooManyRequests as e:
        error = translate("pin.wait", seconds=e.retry_after)
        return render_template("auth/pin.html", next=target, error=error), 429, {"Retry-After": str(e.retry_after)}
    return redirect(target, 303)


@bp.get("/pair/<code>")
def pair_form(code: str):
    """The page a pairing code's QR code opens: one tap lets this phone in."""
    return render_template("auth/pair.html", code=code, error=None)


@bp.post("/pair/<code>")
def pair(code: str):
    try:
        security.pair(code)
    except Forbidden:
        return render_template("auth/pair.html", code=code, error=translate("pair.expired")), 403
    return redirect("/", 303)


@bp.post("/pin/forget")
def forget_pin():
    security.lock()
    owner.forget()
    return redirect(safe_next(request.form.get("next")), 303)
