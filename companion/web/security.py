"""Who may change the table: the PIN, a slow-down after wrong PINs, CSRF tokens and strict headers.

Reading is open to the table's network. A change needs the table PIN: scripts
send it in the `X-Table-Pin` header with every request; a page sends it once
(a form) and its session remembers it. Session-authenticated POSTs must also
carry the session's CSRF token (a form field, or a header from the page's
script); scripts using the PIN header need none, since no other site can make
a browser send that header.
"""

import hashlib
import hmac
import math
import secrets
import threading
import time
from functools import wraps

from flask import abort, current_app, request, session
from werkzeug.exceptions import Forbidden, TooManyRequests

from companion.web import get_table

PIN_HEADER = "X-Table-Pin"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PIN_NEEDED = f"this change needs the table PIN (send the {PIN_HEADER} header, or enter it on the page)"
LOOPBACK = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


class PinGuard:
    """Counts wrong PINs per client; past a few, each further try must wait twice as long.

    Nothing sleeps: a client that tries too soon is told how long to wait.

    >>> guard = PinGuard(free_tries=1, first_wait_s=2.0)
    >>> guard.failed("10.0.0.7", now=0.0); guard.wait_s("10.0.0.7", now=0.5)
    1.5
    """

    def __init__(self, *, free_tries: int = 3, first_wait_s: float = 1.0, max_wait_s: float = 300.0,
                 forget_after_s: float = 900.0, max_clients: int = 1000):
        self.free_tries = free_tries
        self.first_wait_s = first_wait_s
        self.max_wait_s = max_wait_s
        self.forget_after_s = forget_after_s
        self.max_clients = max_clients
        self._lock = threading.Lock()
        self._clients: dict[str, tuple[int, float]] = {}  # client -> (wrong tries, time of the last)

    def wait_s(self, client: str, now: float) -> float:
        """Seconds before `client` may try a PIN again (0: now)."""
        with self._lock:
            wrong, last = self._clients.get(client, (0, now))
        if wrong < self.free_tries:
            return 0.0
        delay = min(self.max_wait_s, self.first_wait_s * 2 ** (wrong - self.free_tries))
        return max(0.0, last + delay - now)

    def failed(self, client: str, now: float) -> None:
        with self._lock:
            wrong, last = self._clients.get(client, (0, now))
            if now - last > self.forget_after_s:
                wrong = 0
            self._clients[client] = (wrong + 1, now)
            if len(self._clients) > self.max_clients:  # keep memory bounded: drop the stalest
                del self._clients[min(self._clients, key=lambda c: self._clients[c][1])]

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)


def init_app(app) -> None:
    app.extensions["pin_guard"] = PinGuard()
    app.before_request(check_csrf)
    app.after_request(add_headers)
    app.jinja_env.globals.update(csrf_token=csrf_token, csrf_field=CSRF_FIELD)


def add_headers(response):
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


# ---- CSRF ---------------------------------------------------------------

def csrf_token() -> str:
    """This session's CSRF token (made on first use)."""
    if CSRF_FIELD not in session:
        session[CSRF_FIELD] = secrets.token_urlsafe(32)
    return session[CSRF_FIELD]


def csrf_exempt(view):
    """Mark a view that computes and stores nothing (a calculator): it needs no PIN and no CSRF token."""
    view.csrf_exempt = True
    return view


def check_csrf():
    """Refuse a session-authenticated change that does not carry the session's token."""
    if request.method in SAFE_METHODS or PIN_HEADER in request.headers:
        return None
    if getattr(current_app.view_functions.get(request.endpoint), "csrf_exempt", False):
        return None
    expected = session.get(CSRF_FIELD)
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD)
    if not expected or not sent or not hmac.compare_digest(sent.encode(), expected.encode()):
        if request.path.startswith("/api/") and not unlocked():
            abort(403, PIN_NEEDED)  # most likely a script that forgot the PIN header
        abort(403, "the form's security token is missing or out of date: reload the page and try again")
    return None


# ---- the PIN ------------------------------------------------------------

def from_the_table() -> bool:
    """True for requests made on the table's own screen (the only place the PIN is shown)."""
    return request.remote_addr in LOOPBACK


def _pin_mark(pin: str) -> str:
    # The session keeps a keyed hash, not the PIN: a new PIN (or a new key) locks old sessions.
    key = current_app.secret_key.encode()
    return hmac.new(key, pin.encode(), hashlib.sha256).hexdigest()


def unlocked() -> bool:
    """True when this page session has been given the table PIN."""
    mark = session.get("pin")
    return bool(mark) and hmac.compare_digest(mark, _pin_mark(get_table().pin))


def unlock(pin: str) -> None:
    """Check `pin` (slowing down guessers) and remember it in the session."""
    verify_pin(pin)
    session["pin"] = _pin_mark(get_table().pin)


def lock() -> None:
    session.pop("pin", None)


def verify_pin(given: str) -> None:
    """Raise 429 while this client must wait, 403 for a wrong PIN; a right one clears its record."""
    guard: PinGuard = current_app.extensions["pin_guard"]
    client, now = request.remote_addr or "?", time.monotonic()
    wait = guard.wait_s(client, now)
    if wait > 0:
        raise TooManyRequests(f"too many wrong PINs: try again in {math.ceil(wait)} s",
                              retry_after=math.ceil(wait))
    if not hmac.compare_digest(given.encode(), get_table().pin.encode()):
        guard.failed(client, now)
        raise Forbidden("wrong PIN")
    guard.succeeded(client)


def needs_pin(view):
    """Let the view run only with the PIN: the header (scripts) or an unlocked session (pages)."""

    @wraps(view)
    def guarded(*args, **kwargs):
        given = request.headers.get(PIN_HEADER)
        if given is not None:
            verify_pin(given)
        elif not unlocked():
            raise Forbidden(PIN_NEEDED)
        return view(*args, **kwargs)

    return guarded
