"""The table's web face: the phone pages and the JSON API, built around a running table.

`create_app(table)` builds a Flask app for one table; nothing happens at import
time, so tests build as many apps as they like, each on its own table. The app
takes the table's ports once (companion.ports), and each area asks only the
port it needs: `desk()`, `ledger()`, `games()`, `setup()`, `figures()`, `door()`.

>>> import tempfile; from companion.table import demo_table
>>> table = demo_table(f"{tempfile.mkdtemp()}/demo.sqlite3")
>>> create_app(table).test_client().get("/api/show").json["outcome"]
'idle'
>>> table.stop()

Areas, one blueprint package each (companion.web.areas), each with its
`pages.py` and `api.py`: `show` (the live show, the page people call "the table"),
`scorepad`, `shows` (past shows), `flock`, `geese`, `progress` and `kiosk`. Site-wide:
`api` (the helpers every area's API shares), `live` (the one stream loop),
`errors`, `auth` (the PIN on a page), `owner` (the setup code's owner's session: every config change) and
`lang` (the language switch).
"""

import secrets
from collections.abc import Mapping

from flask import Flask, current_app

from companion.ports import BoardGames, Door, Ledger, Ports, Progress, SetupDesk, ShowDesk
from companion.web import compiled
from companion.skyrockets.show import CROWD_TOKENS

PAGE_BUDGET = 100_000  # bytes a phone downloads for a page and all it loads: quick at the edge of the Wi-Fi

# Settings a caller may override through `config` (tests shorten the keep-alive).
DEFAULTS = {
    "SSE_KEEPALIVE_S": 15.0,  # a comment line on a quiet stream, well inside every timeout on the way
    # How soon a dropped browser reconnects; a page that keeps failing waits twice as long each time ...
    "SSE_RETRY_MS": 3000,
    "SSE_RETRY_MAX_MS": 30_000,  # ... up to this: a table back from a restart is found within half a minute
    # Open streams at once: 20 phones, each with the live show and the strip view; the server keeps threads
    # beyond this for plain requests (server.RESERVE).
    "SSE_MAX_STREAMS": 40,
    "SSE_REFUSED_RETRY_MS": 5000,  # a page refused a stream (every slot taken) reads its record, asks again this often
    "MAX_CONTENT_LENGTH": 32 * 1024,  # the largest body: a custom event with its rules text fits many times
    "LAN_ADDRESSES": None,  # this machine's network addresses for the QR code; None: looked up (ifaddr)
    "MDNS_NAME": None,  # the name offered second, NAME.local; None: this machine's host name
    "ALLOWED_HOSTS": None,  # more names the table answers to (besides [web] allowed_hosts); ["*"]: any
    "HOSTNAME": None,  # this machine's host name for the Host check; None: looked up
}


def create_app(table, *, secret_key: str | None = None, testing: bool = False,
               config: Mapping | None = None) -> Flask:
    """A Flask app serving `table`: a companion.table.Table (its `ports`), its Ports, or a stand-in of a test
    that serves the ports it has itself."""
    # Werkzeug compiles each rule's URL writers as the rule is added (about 25 ms for the site's rules). Compiled on
    # first use instead, two of waitress's threads compiled at once, and CPython 3.11's ast module, which counts its
    # depth for all threads together, refused one with a SystemError: a 500.
    app = Flask(__name__)
    compiled.init_app(app)  # first: before anything builds the app's Jinja environment
    app.config.update(
        DEFAULTS,
        SECRET_KEY=secret_key or secrets.token_hex(32),  # random per start: sessions end with the daemon
        TESTING=testing,
        SESSION_COOKIE_NAME="companion_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
    )
    app.config.update(config or {})
    app.json.sort_keys = False  # keep the contract's field order
    app.json.ensure_ascii = False
    ports = table if isinstance(table, Ports) else getattr(table, "ports", None) or Ports.serving(table)
    app.extensions["ports"] = ports

    from companion.web import auth, compress, errors, hosts, i18n, live, owner, security
    from companion.web.areas import discover

    areas = discover()
    app.extensions["areas"] = areas
    app.jinja_env.globals["crowd_tokens"] = CROWD_TOKENS  # the stars a show can earn, for every page
    hosts.init_app(app, ports.door.allowed_hosts)  # first: a request for another name goes no further
    live.init_app(app)
    security.init_app(app)
    owner.init_app(app)
    i18n.init_app(app, areas)
    errors.init_app(app)
    compress.init_app(app)
    for blueprint in (*(a.blueprint for a in areas), auth.bp, i18n.bp):
        app.register_blueprint(blueprint)
    return app


def _ports() -> Ports:
    return current_app.extensions["ports"]


def desk() -> ShowDesk:
    """The show desk of the table the current app serves."""
    return _ports().desk


def ledger() -> Ledger:
    """The ledger (records, score pad, festivals, history) of the table the current app serves."""
    return _ports().ledger


def games() -> BoardGames:
    """The board games' shelf of the table the current app serves."""
    return _ports().games


def setup() -> SetupDesk:
    """The setup desk of the table the current app serves (None for a stand-in that has none)."""
    return _ports().setup


def figures() -> Progress | None:
    """The progress figures of the table the current app serves (None for a stand-in that keeps none)."""
    return _ports().progress


def door() -> Door:
    """The door (PIN, names, address, name, language) of the table the current app serves."""
    return _ports().door
