"""The owner's key: the setup code opens an owner's session, and only that session changes the table's config.

The table PIN lets players play and keep scores; the table's settings, its
wiring check and glass timing, and its backups (which carry the config, the
PIN itself among it) belong to the owner. Whoever types the setup code, as
the screen or the journal shows it (case, spaces and dashes aside), gets an
owner's session: kept on the server, revoked when the page is locked, ended
after OWNER_SESSION_S. It outlives the setup flow it was opened in, so the
owner who just finished setting up may still restore a backup; afterwards
the code is void until setup is reopened (on the table's own screen, or
`companion setup --reopen`), which shows a new one.

Wrong codes slow their own address alone, by the one guard of the setup
code (guessing.setup_code_guard): its 8e14 values keep guessing hopeless
without a table-wide count, so a guest's wrong codes, from one address or
many, never make the owner's phone wait. The table's own screen never waits.
A PIN, in a header or a session, never stands in for the owner's session.
"""

import hashlib
import hmac
import math
import time
from functools import wraps

from flask import current_app, session
from werkzeug.exceptions import Forbidden, TooManyRequests

from companion.guessing import setup_code_guard
from companion.web import security
from companion.web.errors import coded

OWNER_SESSION_S = 2 * 3600.0  # an evening's setting up; a phone left unlocked is not the owner's key for good
CODE_MARK = "setup"  # the session's keyed hash of the code it entered: which setup flow it opened
OWNER_SID = "owner"  # the session's owner's session id, known to the server while it lasts
CODE_TYPED = 20  # a setup code's field: ten letters and digits as shown (a dash between two groups), spaces around
OWNER_NEEDED = "this changes the table's config: it needs the owner's session (enter the setup code on the settings page)"


def init_app(app, *, clock=time.monotonic) -> None:
    app.extensions["setup_guard"] = setup_code_guard(clock)
    app.jinja_env.globals.update(code_typed=CODE_TYPED)
    app.extensions["owner_sessions"] = security.Sessions(max_age_s=OWNER_SESSION_S)


def _mark(code: str) -> str:
    return hmac.new(current_app.secret_key.encode(), f"setup:{code}".encode(), hashlib.sha256).hexdigest()


def _desk():
    # Asked of the app's ports, not companion.web.setup(): once the setup area is imported, that name is its package.
    return current_app.extensions["ports"].setup


def _sessions() -> security.Sessions:
    return current_app.extensions["owner_sessions"]


def holds_code() -> bool:
    """This session entered the setup code of the setup flow open now (its first run: the page walks it through)."""
    desk = _desk()
    code = desk.setup_code() if desk else None
    mark = session.get(CODE_MARK)
    return code is not None and isinstance(mark, str) and hmac.compare_digest(mark, _mark(code))


def is_owner() -> bool:
    """This session is an owner's session the server still knows."""
    return _sessions().valid(session.get(OWNER_SID), current_app.extensions["setup_guard"].clock())


def enter_code(given: object) -> None:
    """Check a setup code (slowing down guessers) and open an owner's session on it."""
    guard = current_app.extensions["setup_guard"]
    screen, (client, known), now = security.from_the_table(), security.guesser(), guard.clock()
    wait = 0.0 if screen else guard.wait_s(client, now, known=known)
    if wait > 0:
        raise coded(TooManyRequests(f"too many wrong setup codes: try again in {math.ceil(wait)} s",
                                    retry_after=math.ceil(wait)), "setup.code_wait")
    desk = _desk()
    code = desk.setup_code() if desk else None
    if code is None:
        raise coded(Forbidden("no setup code is open: reopen setup on the table's own screen "
                              "or with `companion setup --reopen`, then enter the code it shows"), "setup.closed")
    if not desk.accepts_setup_code(given):
        if not screen:
            guard.failed(client, now, known=known)
        raise coded(Forbidden("wrong setup code"), "setup.code_wrong")
    guard.succeeded(client)
    _sessions().revoke(session.get(OWNER_SID))
    session[OWNER_SID] = _sessions().open(now)
    session[CODE_MARK] = _mark(code)
    security.remember_phone()


def needs_owner(view):
    """Let the view run for an owner's session only (403 errors.owner_needed otherwise, whatever PIN comes)."""

    @wraps(view)
    def guarded(*args, **kwargs):
        if not is_owner():
            raise coded(Forbidden(OWNER_NEEDED), "errors.owner_needed")
        return view(*args, **kwargs)

    return guarded


def forget() -> None:
    """End this page's owner's session (the page was locked), on the server too."""
    _sessions().revoke(session.pop(OWNER_SID, None))
    session.pop(CODE_MARK, None)
