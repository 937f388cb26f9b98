"""The hall page: every table on the broker, live, and a leaderboard across them.

`create_hall_app(hall)` builds a Flask app of its own around a `Hall` (the
cards the listener keeps up to date); it reuses the table site's look (its
base template, style sheet and scripts), language switch, error answers and
live-stream loop, with the hall's messages in its own catalog. Nothing here publishes or changes a table.

>>> app = create_hall_app(Hall())
>>> app.test_client().get("/api/hall").json["cards"]
[]
"""

import secrets
from collections.abc import Mapping
from pathlib import Path

from flask import Flask

from companion.mqtt.hall.cards import Hall

WEB = Path(__file__).resolve().parents[2] / "web"
HERE = Path(__file__).parent

__all__ = ["Hall", "create_hall_app"]


def create_hall_app(hall: Hall, *, secret_key: str | None = None, testing: bool = False,
                    config: Mapping | None = None) -> Flask:
    """A Flask app showing `hall`, on the site's templates and static files."""
    from companion.web import DEFAULTS, errors, hosts, i18n, live, security
    from companion.web.areas import Area
    from companion.mqtt.hall import views

    app = Flask(__name__, template_folder=str(WEB / "templates"), static_folder=str(WEB / "static"))
    app.config.update(DEFAULTS, SECRET_KEY=secret_key or secrets.token_hex(32), TESTING=testing,
                      SESSION_COOKIE_NAME="companion_hall", SESSION_COOKIE_HTTPONLY=True,
                      SESSION_COOKIE_SAMESITE="Strict")
    app.config.update(config or {})
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    app.extensions["hall"] = hall
    areas = [Area("hall", views.bp, "hall.index", 10, catalogs=HERE / "i18n")]
    app.extensions["areas"] = areas
    hosts.init_app(app)  # the hall answers to this machine's names and addresses only (no DNS rebinding)
    live.init_app(app)
    security.init_app(app)
    i18n.init_app(app, areas)
    errors.init_app(app)  # the site's error answers: JSON under /api/, a page elsewhere, never a traceback
    app.register_blueprint(views.bp)
    app.register_blueprint(i18n.bp)
    return app
