"""The players at the table: how many, how long a name, and the one rule every name follows.

One rule for every name a person types, in every game, the API, the pages
and `companion score`: letters, digits, combining marks, spaces and common
punctuation and symbols; no control, format or bidirectional characters
(NUL, ESC, line breaks, U+202E, zero-width spaces), which could hide or
reorder what the other players read; stored in Unicode NFC, so the same
name typed on two phones is one name.

>>> check_players([" ann ", "ben"])
['ann', 'ben']
>>> check_name("Cafe\u0301", "players[0]")
'Café'
>>> check_name("ann\u202e", "players[1]")
Traceback (most recent call last):
...
companion.players.BadName: players[1]: a name may not hold U+202E (a control, format or bidirectional character)
"""

import unicodedata

from companion.errors import BadInput

MAX_PLAYERS = 8
MAX_NAME = 40  # characters in a player's name: a phone's row shows it whole
# Letters, marks, numbers, punctuation, symbols and the space separators: everything a name is written with.
NAME_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No",
                             "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs"})


class BadName(BadInput):
    """A name that breaks the name rule (a page shows it by its code, in the page's language)."""

    error_code = "errors.name.characters"


def check_name(name, field: str, *, limit: int = MAX_NAME) -> str:
    """`name` trimmed and in NFC, or BadInput naming `field` and the character that will not do."""
    if not isinstance(name, str):
        raise BadInput(field, f"expected a name of 1 to {limit} characters",
                       code="errors.name.length", params={"limit": limit})
    for ch in name:
        if unicodedata.category(ch) not in NAME_CATEGORIES:
            raise BadName(field, f"a name may not hold U+{ord(ch):04X} "
                                  "(a control, format or bidirectional character)")
    name = unicodedata.normalize("NFC", name).strip()
    if not name or len(name) > limit:
        raise BadInput(field, f"expected a name of 1 to {limit} characters",
                       code="errors.name.length", params={"limit": limit})
    return name


def check_players(names) -> list[str]:
    """The players' names, each by the name rule; BadInput naming the entry that will not do."""
    if not isinstance(names, list) or not 1 <= len(names) <= MAX_PLAYERS:
        raise BadInput("players", f"expected a list of 1 to {MAX_PLAYERS} names",
                       code="players.too_many", params={"n": MAX_PLAYERS})
    cleaned = []
    for i, name in enumerate(names):
        name = check_name(name, f"players[{i}]")
        if name in cleaned:
            raise BadInput(f"players[{i}]", f"{name!r} is listed twice", code="players.twice", params={"name": name})
        cleaned.append(name)
    return cleaned
