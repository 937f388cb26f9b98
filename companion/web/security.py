"""Who may change the table: the PIN, a slow-down after wrong PINs, CSRF tokens and strict headers.

Reading is open to the table's network. Playing and keeping scores need the table PIN (a change of the
table's config needs the owner's session instead: companion.web.owner): scripts
send it in the `X-Table-Pin` header with every request; a page sends it once
(a form) and its session remembers it. Session-authenticated POSTs must also
carry the session's CSRF token (a form field, or a header from the page's
script); scripts using the PIN header need none, since no other site can make
a browser send that header, but only when the header holds the right PIN: it
is checked before the token is waived, so a wrong one never stands in for it.
"""

import hashlib
import hmac
import math
import secrets
import threading
from functools import wraps

from flask import current_app, g, request, session
from werkzeug.exceptions import Forbidden, TooManyRequests

# The guard's counts and limits live beside the setup code's guard; the PIN's tests read them here too.
from companion.guessing import CLIENT_FREE_TRIES, MAX_WAIT_S, TABLE_FREE_TRIES, PinGuard  # noqa: F401
from companion.web import door
from companion.web.errors import coded

PIN_HEADER = "X-Table-Pin"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PIN_NEEDED = f"this change needs the table PIN (send the {PIN_HEADER} header, or enter it on the page)"
LOOPBACK = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
FORWARDING_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Real-IP")  # a proxy's mark: never trusted, only seen

SESSION_MAX_AGE_S = 12 * 3600.0  # an unlocked page stays unlocked for an evening of play, not for ever
MAX_SESSIONS = 500  # unlocked sessions remembered; the oldest is dropped first
MAX_KNOWN_PHONES = 500  # phones that have unlocked before, remembered so an attack never locks them out
PAIRING_S = 120.0  # a pairing code shown on the table's screen lets one phone in within this
MAX_PAIRINGS = 8  # pairing codes open at once (the screen shows the newest)

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


class Sessions:
    """The page sessions the PIN unlocked, kept on the server: locking one revokes it, and each ends in time.

    A copied session cookie is worth nothing once its session is locked or has expired.

    >>> sessions = Sessions(max_age_s=10.0)
    >>> sid = sessions.open(now=0.0); sessions.valid(sid, now=5.0), sessions.valid(sid, now=11.0)
    (True, False)
    """

    def __init__(self, *, max_age_s: float = SESSION_MAX_AGE_S, limit: int = MAX_SESSIONS):
        self.max_age_s = max_age_s
        self.limit = limit
        self._lock = threading.Lock()
        self._opened: dict[str, float] = {}  # session id -> when it was unlocked

    def open(self, now: float) -> str:
        sid = secrets.token_urlsafe(24)
        with self._lock:
            self._opened[sid] = now
            if len(self._opened) > self.limit:  # the oldest session must unlock again
                del self._opened[min(self._opened, key=self._opened.__getitem__)]
        return sid

    def valid(self, sid: object, now: float) -> bool:
        with self._lock:
            opened = self._opened.get(sid) if isinstance(sid, str) else None
            if opened is not None and now - opened > self.max_age_s:
                del self._opened[sid]
                opened = None
        return opened is not None

    def revoke(self, sid: object) -> None:
        with self._lock:
            if isinstance(sid, str):
                self._opened.pop(sid, None)


class KnownPhones:
    """Phones that have unlocked this table before (a random id in their session): an attack never locks them out.

    The table-wide guess ceiling is for phones that have never unlocked; a
    known phone's PIN entries are slowed by its own count only, so its owner
    gets back in after a lock or an expired session whatever a guesser does.

    >>> phones = KnownPhones(limit=2)
    >>> phones.add("a", now=0.0); phones.add("b", now=1.0); phones.add("c", now=2.0)
    >>> phones.known("a"), phones.known("c")
    (False, True)
    """

    def __init__(self, *, limit: int = MAX_KNOWN_PHONES):
        self.limit = limit
        self._lock = threading.Lock()
        self._seen: dict[str, float] = {}  # phone id -> when it last unlocked (insertion order: oldest first)

    def add(self, phone: str, now: float) -> None:
        with self._lock:
            self._seen.pop(phone, None)
            self._seen[phone] = now
            while len(self._seen) > self.limit:
                del self._seen[next(iter(self._seen))]

    def known(self, phone: object) -> bool:
        with self._lock:
            return isinstance(phone, str) and phone in self._seen


class Pairings:
    """One-tap pairing codes the table's own screen shows: each lets one phone in, once, within PAIRING_S.

    A code is 128 random bits (in the QR code's link), so it cannot be guessed;
    it does not go through the PIN's back-off, which is what lets a new phone
    in while someone guesses the PIN.

    >>> pairings = Pairings(valid_s=60.0)
    >>> code = pairings.open(now=0.0)
    >>> pairings.use(code, now=30.0), pairings.use(code, now=31.0)
    (True, False)
    """

    def __init__(self, *, valid_s: float = PAIRING_S, limit: int = MAX_PAIRINGS):
        self.valid_s, self.limit = valid_s, limit
        self._lock = threading.Lock()
        self._open: dict[str, float] = {}  # code -> when it was shown

    def open(self, now: float) -> str:
        code = secrets.token_urlsafe(16)
        with self._lock:
            self._open[code] = now
            while len(self._open) > self.limit:
                del self._open[next(iter(self._open))]
        return code

    def use(self, code: object, now: float) -> bool:
        with self._lock:
            shown = self._open.pop(code, None) if isinstance(code, str) else None
        return shown is not None and now - shown <= self.valid_s


def init_app(app) -> None:
    app.extensions["pin_guard"] = PinGuard()
    app.extensions["pin_sessions"] = Sessions()
    app.extensions["known_phones"] = KnownPhones()
    app.extensions["pairings"] = Pairings()
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


def changes_nothing(view):
    """Mark a POST view that only computes an answer (it stores nothing), so it needs no CSRF token."""
    view.changes_nothing = True
    return view


def check_csrf():
    """Refuse a session-authenticated change that does not carry the session's token."""
    if request.method in SAFE_METHODS:
        return None
    if getattr(current_app.view_functions.get(request.endpoint), "changes_nothing", False):
        return None
    given = request.headers.get(PIN_HEADER)
    if given is not None:  # waives the token only once the PIN is known right (403 or 429 otherwise)
        verify_pin(given)
        g.pin_checked = True
        return None
    expected = session.get(CSRF_FIELD)
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD)
    if not expected or not sent or not hmac.compare_digest(sent.encode(), expected.encode()):
        if request.path.startswith("/api/") and not unlocked():
            raise coded(Forbidden(PIN_NEEDED), "errors.pin_needed")  # most likely a script that forgot the header
        raise coded(Forbidden("the form's security token is missing or out of date: reload the page and try again"),
                    "errors.csrf")
    return None


# ---- the PIN ------------------------------------------------------------

def from_the_table() -> bool:
    """True for requests made on the table's own screen (the only place the PIN is shown).

    A request that came through a proxy on the Pi itself also comes from
    loopback, but carries the proxy's forwarding header: it is a phone's.
    """
    return request.remote_addr in LOOPBACK and not any(h in request.headers for h in FORWARDING_HEADERS)


def _pin_mark(pin: str) -> str:
    # The session keeps a keyed hash, not the PIN: a new PIN (or a new key) locks old sessions.
    key = current_app.secret_key.encode()
    return hmac.new(key, pin.encode(), hashlib.sha256).hexdigest()


def _sessions() -> Sessions:
    return current_app.extensions["pin_sessions"]


def _guard() -> PinGuard:
    return current_app.extensions["pin_guard"]


def unlocked() -> bool:
    """True when this page session has been given the table PIN, and the server still knows the session."""
    mark = session.get("pin")
    if not isinstance(mark, str) or not hmac.compare_digest(mark, _pin_mark(door().pin)):
        return False
    return _sessions().valid(session.get("sid"), _guard().clock())


def unlock(pin: str) -> None:
    """Check `pin` (slowing down guessers) and remember it in the session, under a new session id."""
    verify_pin(pin)
    open_session()


def open_session() -> None:
    """Unlock this page's session without asking for the PIN (the caller vouches for the phone), and remember it."""
    _sessions().revoke(session.get("sid"))
    session["sid"] = _sessions().open(_guard().clock())
    session["pin"] = _pin_mark(door().pin)
    remember_phone()


def remember_phone() -> None:
    """Mark this phone as one that got in (PIN, pairing or setup code): others' guesses will not lock it out."""
    phone = session.get("phone")
    if not isinstance(phone, str):
        phone = session["phone"] = secrets.token_urlsafe(16)
    current_app.extensions["known_phones"].add(phone, _guard().clock())


def guesser() -> tuple[str, bool]:
    """Whom a guess is counted against: a known phone by its own id (outside the table-wide count), else its address."""
    if known_phone():
        return f"phone:{session.get('phone')}", True
    return request.remote_addr or "?", False


def open_pairing() -> str:
    """A new one-tap pairing code (only the table's own screen may ask)."""
    if not from_the_table():
        raise coded(Forbidden("pairing codes are given on the table's own screen only"), "errors.pair_here")
    return current_app.extensions["pairings"].open(_guard().clock())


def pair(code: str) -> None:
    """Unlock this phone with a pairing code from the table's screen (403 if it is wrong, used or too old)."""
    if not current_app.extensions["pairings"].use(code, _guard().clock()):
        raise coded(Forbidden("this pairing code is used or too old: ask the table's screen for a new one"),
                    "errors.pair_expired")
    open_session()


def known_phone() -> bool:
    """True for a phone that has unlocked this table before (its session carries a phone id the table keeps)."""
    return current_app.extensions["known_phones"].known(session.get("phone"))


def lock() -> None:
    """Forget the PIN: the session is revoked on the server too, so a copy of its cookie unlocks nothing."""
    _sessions().revoke(session.pop("sid", None))
    session.pop("pin", None)


def verify_pin(given: str) -> None:
    """Raise 429 while this client must wait, 403 for a wrong PIN; a right one clears its record.

    The table's own screen never waits; a phone that has unlocked before waits only for its own wrong PINs.
    """
    guard, now = _guard(), _guard().clock()
    if from_the_table():
        if not hmac.compare_digest(given.encode("utf-8", "replace"), door().pin.encode()):
            raise coded(Forbidden("wrong PIN"), "errors.pin_wrong")
        return
    client, known = guesser()
    wait = guard.wait_s(client, now, known=known)
    if wait > 0:
        raise coded(TooManyRequests(f"too many wrong PINs: try again in {math.ceil(wait)} s",
                                    retry_after=math.ceil(wait)), "errors.pin_wait")
    # Compared as UTF-8 bytes: a header of any text is refused, never a TypeError.
    if not hmac.compare_digest(given.encode("utf-8", "replace"), door().pin.encode()):
        guard.failed(client, now, known=known)
        raise coded(Forbidden("wrong PIN"), "errors.pin_wrong")
    guard.succeeded(client)


def needs_pin(view):
    """Let the view run only with the PIN: the header (scripts) or an unlocked session (pages)."""

    @wraps(view)
    def guarded(*args, **kwargs):
        given = request.headers.get(PIN_HEADER)
        if given is None:
            if not unlocked():
                raise coded(Forbidden(PIN_NEEDED), "errors.pin_needed")
        elif not g.get("pin_checked"):  # a POST's header is checked already, before its CSRF token was waived
            verify_pin(given)
        return view(*args, **kwargs)

    return guarded
