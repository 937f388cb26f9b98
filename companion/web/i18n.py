"""One message catalog per language, for the server's templates and the pages' scripts alike.

The catalogs are JSON files ({"key": "text with {name} slots"}): the site's own
in static/i18n/, and each area's in its package (companion.web.areas), so a
message is written once; the table adds words of its own (its ports' `words`:
each kind of sensor's), served to every page beside them. A page's scripts
load only what the page can show
(/i18n/<lang>.json?area=<name>: the site's messages, the area's own and those of
the areas it shares words with), which keeps every page light as the areas grow;
the server's templates read every catalog, the page's own area first. The language
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

from flask import Blueprint, current_app, g, has_request_context, jsonify, redirect, request

from companion.ports import LANGUAGES
from companion.web.areas import Area

CATALOG_DIR = Path(__file__).parent / "static" / "i18n"
DEFAULT = "en"
COOKIE = "lang"
_SLOT = re.compile(r"\{(\w+)\}")

bp = Blueprint("lang", __name__)


_AREAS: dict[str, Area] = {}  # every registered area by name, registered by init_app
_PAGES: dict[str, str] = {}  # blueprint name -> the name of the area its pages belong to


def _read(folder: Path | None, lang: str) -> dict[str, str]:
    path = folder / f"{lang}.json" if folder else None
    return json.loads(path.read_text(encoding="utf-8")) if path and path.exists() else {}


def _merged(lang: str, areas) -> dict[str, str]:
    """The site's messages of `lang` and those of `areas` (later ones win), English filling any gap."""
    messages = _read(CATALOG_DIR, lang)
    for area in areas:
        messages.update(_read(area.catalogs, lang))
    return messages if lang == DEFAULT else {**_merged(DEFAULT, areas), **messages}


@cache
def catalog(lang: str, areas: tuple[str, ...] | None = None) -> dict[str, str]:
    """Every message of `lang`: the site's and those of the areas named (None: every registered area)."""
    return _merged(lang, [_AREAS[name] for name in (_AREAS if areas is None else areas)])


def own_catalog(lang: str) -> dict[str, str]:
    """The catalog of the current app's own areas: a table never serves the hall's words, nor the hall the table's."""
    return catalog(lang, tuple(a.name for a in current_app.extensions.get("areas", ())))


@cache
def area_catalog(area: str | None, lang: str) -> dict[str, str]:
    """The messages a page of `area` can show: the site's, those of the areas it shares words with, and its own.

    The area's own come last, so a key two areas both define reads as the page's area says it."""
    if area is None:
        return _merged(lang, [])
    own = _AREAS[area]
    return _merged(lang, [*(_AREAS[name] for name in own.shares), own])


def table_words(lang: str) -> dict[str, str]:
    """The words the served table brings of its own (each kind of sensor's) in `lang`, English filling any gap."""
    ports = current_app.extensions.get("ports")
    words = ports.words if ports else {}
    return {**words.get(DEFAULT, {}), **words.get(lang, {})}


def page_area() -> str | None:
    """The area whose page the request shows (None for the site's own pages, such as the PIN page)."""
    return _PAGES.get(request.blueprint) if has_request_context() else None


def clear() -> None:
    """Forget the read catalogs (after an area is registered or removed)."""
    catalog.cache_clear()
    area_catalog.cache_clear()


def fill(text: str, params: dict) -> str:
    """Put params into {name} slots (the same rule the scripts use); unknown slots stay as they are."""
    return _SLOT.sub(lambda m: str(params[m[1]]) if m[1] in params else m[0], text)


def language() -> str:
    """The language of the current request."""
    if "lang" not in g:
        chosen = request.cookies.get(COOKIE)
        ports = current_app.extensions.get("ports")  # the hall serves no table
        table_language = ports.door.language if ports else None  # set on the setup page
        g.lang = (chosen if chosen in LANGUAGES else table_language if table_language in LANGUAGES
                  else request.accept_languages.best_match(LANGUAGES, DEFAULT))
    return g.lang


def translate(key: str, **params) -> str:
    """The message `key` in the request's language (the key itself if no catalog has it).

    The page's own catalog is read first, so a key that two areas both define (`share.title`) reads as the
    page's area says it; any other area's message is still found, as a template is not weighed by the page."""
    lang = language()
    text = area_catalog(page_area(), lang).get(key)
    text = table_words(lang).get(key) if text is None else text
    return fill(text if text is not None else own_catalog(lang).get(key, key), params)


def listed(items) -> str:
    """Items joined as the page's language lists them: "a, b" in English, "a、b" in Japanese. A sentence built of
    parts takes its joiners (join.sep, join.colon, join.open, join.close) from the catalog, never from code."""
    return translate("join.sep").join(str(item) for item in items)


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
    names = {a.name for a in areas}
    for a in areas:
        if not set(a.shares) <= names:
            raise ValueError(f"area {a.name!r} shares the words of an area this site lacks: {a.shares}")
    if any(_AREAS.get(a.name) != a for a in areas):
        _AREAS.update((a.name, a) for a in areas)
        _PAGES.update((a.blueprint.name, a.name) for a in areas)
        clear()
    nav = [(a.name, a.index) for a in areas if a.index is not None]
    app.jinja_env.globals.update(_=translate, language=language, other_language=other_language,
                                 event_name=event_name, listed=listed, when=when, iso_time=iso_time,
                                 nav_areas=nav, page_area=page_area)


@bp.get("/i18n/<code>.json")
def catalog_json(code: str):
    """The catalog of one language for the pages of one area (`?area=`; none: the site's own messages)."""
    if code not in LANGUAGES:
        return jsonify({"error": f"no catalog for {code[:10]!r}", "field": "lang"}), 404
    area = request.args.get("area")
    if area is not None and area not in {a.name for a in current_app.extensions.get("areas", ())}:
        return jsonify({"error": f"no area {area[:20]!r}", "field": "area"}), 404
    # As UTF-8 rather than \u escapes: the Japanese catalog is a third smaller, the English one a little.
    body = json.dumps({**area_catalog(area, code), **table_words(code)}, ensure_ascii=False, separators=(",", ":"))
    response = current_app.response_class(body, mimetype="application/json")
    response.cache_control.max_age = 3600
    return response


@bp.get("/lang/<code>")
def choose(code: str):
    """Switch the language and go back to the page the switch was on."""
    response = redirect(safe_next(request.args.get("next")), 303)
    if code in LANGUAGES:
        response.set_cookie(COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax")
    return response
