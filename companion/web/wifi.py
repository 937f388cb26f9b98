"""The Wi-Fi page on the table's own web stack: a phone on the access point gives the home network and the
setup code.

It is not an area of the table's site (the daemon cannot save a network: NetworkManager needs root) but a
small app of its own, built here from the same pieces as the table's: the strict headers and CSRF token of
`security`, the one guard and reading of the setup code of `owner` (wrong codes slow their own address
alone, on this page and the setup page alike), the catalogues, language switch and error codes of `i18n`
and `errors`, the site's templates and style. A refusal is the form again, saying why in the phone's language. Its server is the table's (`server.make_server`), whose
body limit is the app's MAX_CONTENT_LENGTH: a body's length is read by waitress, digits only, and a form
past FORM_LIMIT is refused before a byte of it is read. The network watcher (root) serves it on the access
point's address while the access point is up, and its desk checks and saves the network (docs/design.md).

>>> class Closed:
...     def setup_code(self): return None
...     def accepts_setup_code(self, given): return False
...     def wifi_limits(self): return {"ssid": 32, "password": 64, "country": 2}
...     def join_wifi(self, form): raise AssertionError("never: setup is closed")
>>> app = create_wifi_app(Closed())
>>> app.test_client().get("/", headers={"Accept-Language": "ja"}).status_code
200
"""

import secrets
import time
from collections.abc import Callable

from flask import Blueprint, Flask, current_app, render_template, request
from werkzeug.exceptions import Forbidden, HTTPException, TooManyRequests

from companion.errors import BadInput
from companion.ports import FixedDoor, Ports, WifiDesk
from companion.web import i18n, owner, security
from companion.web.errors import code_of
from companion.web.i18n import translate

FORM_LIMIT = 2048  # bytes of a posted form: the CSRF token and four short fields
# The setup code's refusals as this page words them (the setup page's words point at the setup page).
SAID = {"setup.code_wrong": "errors.wifi.code", "setup.code_wait": "errors.too_many", "setup.closed": "errors.wifi.closed"}
STATUS = {"setup.closed": 409}  # nothing to join with: setup is closed, a conflict with the table's state

bp = Blueprint("wifi", __name__)


def create_wifi_app(desk: WifiDesk, *, clock: Callable[[], float] = time.monotonic, testing: bool = False) -> Flask:
    """The Wi-Fi page's app, asking `desk` (the watcher's) for the setup code and to join a network; `clock`
    paces the code's guard."""
    app = Flask("companion.web")  # the site's templates and static files
    app.config.update(SECRET_KEY=secrets.token_hex(32), TESTING=testing, MAX_CONTENT_LENGTH=FORM_LIMIT,
                      SESSION_COOKIE_NAME="companion_wifi", SESSION_COOKIE_HTTPONLY=True,
                      SESSION_COOKIE_SAMESITE="Strict")
    # No PIN opens anything here: the door's is a random one nobody is told, and the table's language is the
    # phone's (the watcher does not read the table's config).
    app.extensions["ports"] = Ports(None, None, None, desk, FixedDoor(pin=secrets.token_hex(16)))
    security.init_app(app)
    owner.init_app(app, clock=clock)
    i18n.init_app(app)
    app.register_error_handler(HTTPException, _refused)  # the form again, saying why: the site's pages are not here
    app.register_blueprint(i18n.bp)
    app.register_blueprint(bp)
    return app


def _desk() -> WifiDesk:
    return current_app.extensions["ports"].setup


def _form(problem: str = "", status: int = 200):
    return render_template("wifi/index.html", problem=problem, limits=_desk().wifi_limits()), status


def _refused(error: HTTPException):
    return _form(translate(code_of(error, error.code)), error.code)


@bp.get("/")
def index():
    return _form()


@bp.post("/")
def join():
    """The setup code first (the one guard), then the network, which the desk reads with the Wi-Fi file's own
    reader and saves."""
    form = request.form
    try:
        owner.enter_code(form.get("code"))
        ssid = _desk().join_wifi({key: form.get(key, "") for key in _desk().wifi_limits()})  # the network's fields
    except (Forbidden, TooManyRequests) as refused:
        code = getattr(refused, "error_code", "")
        return _form(translate(SAID.get(code, "errors.wifi.code")), STATUS.get(code, refused.code))
    except BadInput as refused:
        sentence = translate(getattr(refused, "error_code", "errors.bad_input"), **refused.params)
        return _form(f"{refused.field}: {sentence}", 400)
    return render_template("wifi/joining.html", ssid=ssid)

