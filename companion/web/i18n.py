"""One message catalog per language, for the server's templates and the pages' scripts alike.

The catalogs are JSON files in static/i18n/ ({"key": "text with {name} slots"}),
served as they are to the scripts, so a message is written once. The language
comes from the `lang` cookie (set by the switch on every page), else from the
browser's Accept-Language, else English.

>>> fill("{timer} ran out", {"timer": "red"})
'red ran out'
"""

import json
import re
from functools import cache
from pathlib import Path

from flask import Blueprint, g, redirect, request

CATALOG_DIR = Path(__file__).parent / "static" / "i18n"
LANGUAGES = ("en", "ja")
DEFAULT = "en"
COOKIE = "lang"
_SLOT = re.compile(r"\{(\w+)\}")

bp = Blueprint("lang", __name__)


@cache
def catalog(lang: str) -> dict[str, str]:
    """Every message of `lang`, English filling any gap."""
    messages = json.loads((CATALOG_DIR / f"{lang}.json").read_text(encoding="utf-8"))
    return messages if lang == DEFAULT else {**catalog(DEFAULT), **messages}


def fill(text: str, params: dict) -> str:
    """Put params into {name} slots (the same rule the scripts use); unknown slots stay as they are."""
    return _SLOT.sub(lambda m: str(params[m[1]]) if m[1] in params else m[0], text)


def language() -> str:
    """The language of the current request."""
    if "lang" not in g:
        chosen = request.cookies.get(COOKIE)
        g.lang = chosen if chosen in LANGUAGES else request.accept_languages.best_match(LANGUAGES, DEFAULT)
    return g.lang


def translate(key: str, **params) -> str:
    """The message `key` in the request's language (the key itself if no catalog has it)."""
    return fill(catalog(language()).get(key, key), params)


def event_name(event_id: str, name: str) -> str:
    """A built-in event's name in the catalog's words; a players' own event as they named it."""
    return catalog(language()).get(f"events.{event_id}", name)


def when(iso: str | None) -> str:
    """A stored UTC instant, shown to the minute ("2025-05-04 19:30 UTC")."""
    return f"{iso[:10]} {iso[11:16]} UTC" if iso else "–"


def other_language() -> str:
    return next(lang for lang in LANGUAGES if lang != language())


def safe_next(target: str | None, default: str = "/") -> str:
    """A path on this site to go back to (never another host)."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")):
        return target
    return default


def init_app(app) -> None:
    app.jinja_env.globals.update(_=translate, language=language, other_language=other_language,
                                 event_name=event_name, when=when)


@bp.get("/lang/<code>")
def choose(code: str):
    """Switch the language and go back to the page the switch was on."""
    response = redirect(safe_next(request.args.get("next")), 303)
    if code in LANGUAGES:
        response.set_cookie(COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax")
    return response
