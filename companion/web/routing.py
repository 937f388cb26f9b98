"""URL rules that compile their URL writers when a URL is first written for them, not when the app is made.

Werkzeug writes two small functions for each rule as the rule is added (with
`ast` and `compile`), so that `url_for` is quick. For the site's hundred-odd
rules that was most of the time `create_app` took, and a table's restart
waits for it; yet most rules never have a URL written for them (the API's,
the streams'), and a page writes a few. Here each writer is compiled the
first time it is asked for, then kept: `url_for` writes the same URL.

>>> app = Site(__name__)
>>> app.add_url_rule("/shows/<int:show_id>", "show", lambda show_id: "")
>>> with app.test_request_context():
...     from flask import url_for
...     url_for("show", show_id=7, lang="ja")
'/shows/7?lang=ja'
"""

from flask import Flask
from werkzeug.routing import Rule


class WritesOnFirstUse(Rule):
    """A werkzeug Rule whose URL writers (`_build`, `_build_unknown`) are compiled on their first call.

    Should a werkzeug release stop calling `_compile_builder`, the rule compiles its writers as werkzeug does
    and only the time is lost (tests/web/test_routing.py notices it)."""

    def _compile_builder(self, append_unknown: bool = True):
        def write_first(rule: Rule, *args, **kwargs):
            writer = Rule._compile_builder(rule, append_unknown).__get__(rule, None)
            setattr(rule, "_build_unknown" if append_unknown else "_build", writer)  # the next URL: straight in
            return writer(*args, **kwargs)

        return write_first


class Site(Flask):
    """A Flask app whose every rule, its static files' too, compiles its URL writers on first use."""

    url_rule_class = WritesOnFirstUse
