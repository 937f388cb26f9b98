"""One message catalog per language, for the server's templates and the pages' scripts alike.

The catalogs are JSON files ({"key": "text with {name} slots"}): the site's own
in static/i18n/, and each area's in its package (companion.web.areas), merged
and served as one to the scripts (/i18n/<lang>.json), so a message is written once. The language
comes from the `lang` cookie (set by the switch on every page), else from the
table's own (`[table] language`, chosen on the setup page), else from the
browser's Accept-Language, else English.

>>> fill("{timer} ran out", {"timer": "red"})
'red ran out'
"""

import json
import re
from datetime import datetime, timezone
from functools import cache
from pathlib import Path

from flask import Blueprint, current_app, g, jsonify, redirect, request

CATALOG_DIR = Path(__file__).parent / "static" / "i18n"
LANGUAGES = ("en", "ja")
DEFAULT = "en"
COOKIE = "lang"
_SLOT = re.compile(r"\{(\w+)\}")

bp = Blueprint("lang", __name__)


_AREA_DIRS: list[Path] = []  # each area's catalog folder, registered by init_app


def _read(folder: Path, lang: str) -> dict[str, str]:
    path = folder / f"{lang}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


@cache
def catalog(lang: str, areas: tuple[Path, ...] | None = None) -> dict[str, str]:
    """Every message of `lang`: the site's and its areas' (`areas`, else all registered), English filling gaps."""
    messages = _read(CATALOG_DIR, lang)
    for folder in _AREA_DIRS if areas is None else areas:
        messages.update(_read(folder, lang))
    return messages if lang == DEFAULT else {**catalog(DEFAULT, areas), **messages}


def own_catalog(lang: str) -> dict[str, str]:
    """The catalog of the current app's own areas: a table never serves the hall's words, nor the hall the table's."""
    return catalog(lang, current_app.extensions.get("catalogs"))


def fill(text: str, params: dict) -> str:
    """Put params into {name} slots (the same rule the scripts use); unknown slots stay as they are."""
    return _SLOT.sub(lambda m: str(params[m[1]]) if m[1] in params else m[0], text)


def language() -> str:
    """The language of the current request."""
    if "lang" not in g:
        chosen = request.cookies.get(COOKIE)
        table_language = getattr(current_app.extensions.get("table"), "language", None)  # set on the setup page
        g.lang = (chosen if chosen in LANGUAGES else table_language if table_language in LANGUAGES
                  else request.accept_languages.best_match(LANGUAGES, DEFAULT))
    return g.lang


def translate(key: str, **params) -> str:
    """The message `key` in the request's language (the key itself if no catalog has it)."""
    return fill(own_catalog(language()).get(key, key), params)


def event_name(event_id: str, name: str) -> str:
    """A built-in event's name in the catalog's words; a players' own event as they named it."""
    return own_catalog(language()).get(f"events.{event_id}", name)


def when(iso: str | None) -> str:
    """A stored UTC instant, shown to the minute ("2025-05-04 19:30 UTC")."""
    return f"{iso[:10]} {iso[11:16]} UTC" if iso else "–"


def iso_time(seconds: float | None) -> str | None:
    """An instant stored as epoch seconds, as the UTC ISO text a page's script turns into the phone's local time.

    >>> iso_time(0)
    '1970-01-01T00:00:00+00:00'
    """
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


def other_language() -> str:
    return next(lang for lang in LANGUAGES if lang != language())


MAX_NEXT = 512  # no page of the site has a longer path and query


def safe_next(target: str | None, default: str = "/") -> str:
    """A path on this site to go back to (never another host); anything else is `default`.

    Browsers drop tabs and newlines from an address and read a backslash as a
    slash, so `/<tab>/evil.com` and `/\\evil.com` lead away as surely as
    `//evil.com`: a path with any control or space character, a backslash, or
    a leading `//` is refused whole.

    >>> safe_next("/scorepad?x=1"), safe_next("/\t/evil.com"), safe_next("//evil.com"), safe_next("/a\\b")
    ('/scorepad?x=1', '/', '/', '/')
    """
    if (not isinstance(target, str) or not target.startswith("/") or target.startswith("//")
            or len(target) > MAX_NEXT or "\\" in target
            or any(not ch.isprintable() or ch.isspace() for ch in target)):
        return default
    return target


def init_app(app, areas=()) -> None:
    folders = [a.catalogs for a in areas if a.catalogs is not None]
    if any(f not in _AREA_DIRS for f in folders):
        _AREA_DIRS.extend(f for f in folders if f not in _AREA_DIRS)
        catalog.cache_clear()
    app.extensions["catalogs"] = tuple(folders)
    nav = [(a.name, a.index) for a in areas if a.index is not None]
    app.jinja_env.globals.update(_=translate, language=language, other_language=other_language,
                                 event_name=event_name, when=when, iso_time=iso_time,
                                 nav_areas=nav)


@bp.get("/i18n/<code>.json")
def catalog_json(code: str):
    """The merged catalog of one language, for the pages' scripts."""
    if code not in LANGUAGES:
        return jsonify({"error": f"no catalog for {code[:10]!r}", "field": "lang"}), 404
    # As UTF-8 rather than \u escapes: the Japanese catalog is a third smaller, the English one a little.
    response = current_app.response_class(json.dumps(own_catalog(code), ensure_ascii=False, separators=(",", ":")),
                                          mimetype="application/json")
    response.cache_control.max_age = 3600
    return response


@bp.get("/lang/<code>")
def choose(code: str):
    """Switch the language and go back to the page the switch was on."""
    response = redirect(safe_next(request.args.get("next")), 303)
    if code in LANGUAGES:
        response.set_cookie(COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax")
    return response
