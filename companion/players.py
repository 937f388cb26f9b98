"""The players at the table: how many, and how long a name.

Every name follows the one name rule (companion.fields.name): letters,
digits, combining marks, spaces and common punctuation and symbols, stored
in Unicode NFC; here is how long a player's name may be and how many play.

>>> check_players([" ann ", "ben"])
['ann', 'ben']
>>> check_name("Cafe\u0301", "players[0]")
'Café'
"""

from companion import fields
from companion.errors import BadInput

MAX_PLAYERS = 8
MAX_NAME = 40  # characters in a player's name: a phone's row shows it whole


def check_name(name, field: str, *, limit: int = MAX_NAME) -> str:
    """`name` trimmed and in NFC, or BadInput naming `field` and the character that will not do."""
    return fields.name(name, field, limit)


def check_players(names) -> list[str]:
    """The players' names, each by the name rule; BadInput naming the entry that will not do."""
    fields.items(names, "players", 1, MAX_PLAYERS, expected=f"a list of 1 to {MAX_PLAYERS} names", code="players.too_many", params={"n": MAX_PLAYERS})
    cleaned = []
    for i, name in enumerate(names):
        name = check_name(name, f"players[{i}]")
        if name in cleaned:
            raise BadInput(f"players[{i}]", f"{name!r} is listed twice", code="players.twice", params={"name": name})
        cleaned.append(name)
    return cleaned
