"""What every area's JSON API shares (docs/web.md): the strict body reader, field readers, and saved games.

Reading needs nothing; playing and keeping scores need the PIN (security.needs_pin), and a change of the
table's config the owner's session (owner.needs_owner). Bodies
are JSON objects, checked field by field before the table sees them: a wrong
one is 400 naming the field. The routes live in their areas (`show/api.py`,
`scorepad/api.py`, `shows/api.py`, `flock/api.py`, `geese/api.py`).

A board game is a versioned record the table keeps: every change names
the version the phone saw (a clash is 409 naming the current one) or, with
none, applies to the current state; either way load, change and save are
one transaction on the table's side.
"""

from collections.abc import Callable

from flask import current_app, request
from werkzeug.exceptions import NotFound

from companion import fields, jsonin
from companion.errors import BadInput, NotKept
from companion.fields import whole, yes_no
from companion.ports import MAX_ROW_ID
from companion.web import games
from companion.web.errors import coded
from companion.web.live import game_stream, last_event_id

IDEMPOTENCY_HEADER = "Idempotency-Key"
MAX_KEY = 64
KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


def json_body(*allowed: str, any_field: bool = False) -> dict:
    """The request's JSON object (an empty body is {}), refusing fields not in `allowed`
    (`any_field`: a whole document, whose fields its reader checks)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    data = jsonin.parse(raw, "body")  # no NaN, huge integers, lone surrogates or deep nesting get past here
    return fields.mapping(data, "body", expected="a JSON object") if any_field else fields.record(data, "", allowed)


def need(data: dict, field: str):
    if field not in data:
        raise BadInput(field, "missing", code="errors.missing")
    return data[field]


def boolean(data: dict, field: str, default: bool | None = None) -> bool:
    return yes_no(need(data, field) if default is None else data.get(field, default), field)


def document() -> dict:
    """The request's JSON object as a whole document, whose fields its own reader checks."""
    return json_body(any_field=True)


def streams():
    return current_app.extensions["streams"]


# ---- saved board games ------------------------------------------------------

def read_version(data: dict) -> int | None:
    """The version a change was made on, if the phone names one."""
    value = data.get("version")
    return None if value is None else whole(value, "version", 1, MAX_ROW_ID)


def saved_game(kind: str, game_id: int, name: str) -> dict:
    """The saved game, or 404 naming it (`name`: the game's name for people)."""
    game = games().game(kind, game_id)
    if game is None:
        raise coded(NotFound(f"no {name} game {game_id}"), "errors.game.gone")
    return game


def request_key() -> str | None:
    """The request's Idempotency-Key header (a phone's retry sends the same one), checked."""
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is not None and not (1 <= len(key) <= MAX_KEY and all(c in KEY_CHARS for c in key)):
        raise BadInput(IDEMPOTENCY_HEADER, f"expected 1 to {MAX_KEY} letters, digits, '-' or '_'", code="errors.shape")
    return key


def changed_game(kind: str, game_id: int, name: str, step: Callable[[dict], dict], version: int | None) -> dict:
    """The game after `step(state)`, saved by the table in one transaction (once per Idempotency-Key)."""
    key = request_key()
    try:
        return games().change_game(kind, game_id, step, version, key) if key else \
            games().change_game(kind, game_id, step, version)
    except NotKept:
        raise coded(NotFound(f"no {name} game {game_id}"), "errors.game.gone") from None


def game_feed(kind: str, game_id: int, name: str, render: Callable[[dict], dict]):
    """A game's live feed: `render(game)` after every change, its version the event id."""
    saved_game(kind, game_id, name)
    after = last_event_id(request.headers.get("Last-Event-ID"))
    return streams().open(game_stream(games(), kind, game_id, render, after, **streams().settings),
                          poll=request.path.removesuffix("/events"), number="version")
