"""Who may use the setup page: the one-time setup code while the table is not set up, the PIN after.

The session keeps a keyed hash of the code it was given, not the code; a
new code (setup reopened) or a finished setup locks it out. Wrong codes
slow down their own address alone, by the one guard of the setup code
(guessing.setup_code_guard, the Wi-Fi page's too): the code's 8e14 values
keep guessing hopeless without a table-wide count, so a guest's wrong codes,
from one address or many, never make the owner's phone wait, even on a fresh
card with no phone that got in before and no screen. The table's own screen
never waits.
"""

import hashlib
import hmac
import math
from functools import wraps

from flask import current_app, request, session
from werkzeug.exceptions import Forbidden, TooManyRequests

from companion.guessing import setup_code_guard
from companion.web import setup
from companion.web import security
from companion.web.errors import coded
from companion.web.setup import bp

SESSION_KEY = "setup"


@bp.record_once
def _guard(state) -> None:
    state.app.extensions["setup_guard"] = setup_code_guard()


def _mark(code: str) -> str:
    return hmac.new(current_app.secret_key.encode(), f"setup:{code}".encode(), hashlib.sha256).hexdigest()


def holds_code() -> bool:
    """This session was given the setup code, and setup is still open with that code."""
    code = setup().setup_code()
    mark = session.get(SESSION_KEY)
    return code is not None and isinstance(mark, str) and hmac.compare_digest(mark, _mark(code))


def enter_code(given: object) -> None:
    """Check a setup code (slowing down guessers) and remember it in the session."""
    guard = current_app.extensions["setup_guard"]
    screen, (client, known), now = security.from_the_table(), security.guesser(), guard.clock()
    wait = 0.0 if screen else guard.wait_s(client, now, known=known)
    if wait > 0:
        raise coded(TooManyRequests(f"too many wrong setup codes: try again in {math.ceil(wait)} s",
                                    retry_after=math.ceil(wait)), "setup.code_wait")
    desk = setup()
    code = desk.setup_code()
    if code is None:
        raise coded(Forbidden("the table is set up: changes need the table PIN"), "setup.closed")
    if not desk.accepts_setup_code(given):
        if not screen:
            guard.failed(client, now, known=known)
        raise coded(Forbidden("wrong setup code"), "setup.code_wrong")
    guard.succeeded(client)
    session[SESSION_KEY] = _mark(code)
    security.remember_phone()


def allowed() -> bool:
    """The setup code (while setup is open) or the PIN (a session unlocked by it)."""
    return holds_code() or security.unlocked()


def needs_setup_access(view):
    """Let the view run with the setup code (first run) or the PIN (header for scripts, session for pages).

    A PIN header is always checked, even from a session holding the code: a wrong one is refused, never ignored.
    """

    @wraps(view)
    def guarded(*args, **kwargs):
        if holds_code() and security.PIN_HEADER not in request.headers:
            return view(*args, **kwargs)
        return security.needs_pin(view)(*args, **kwargs)

    return guarded


def forget_code() -> None:
    session.pop(SESSION_KEY, None)
