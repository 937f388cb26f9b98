"""The players at the table: how many, how long a name, and the one reader of a list of names.

>>> check_players([" ann ", "ben"])
['ann', 'ben']
"""

from companion.errors import BadInput

MAX_PLAYERS = 8
MAX_NAME = 40  # characters in a player's name: a phone's row shows it whole


def check_players(names) -> list[str]:
    """The players' names as given, trimmed; BadInput naming the entry that will not do."""
    if not isinstance(names, list) or not 1 <= len(names) <= MAX_PLAYERS:
        raise BadInput("players", f"expected a list of 1 to {MAX_PLAYERS} names")
    cleaned = []
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME:
            raise BadInput(f"players[{i}]", f"expected a name of 1 to {MAX_NAME} characters")
        if name.strip() in cleaned:
            raise BadInput(f"players[{i}]", f"{name.strip()!r} is listed twice")
        cleaned.append(name.strip())
    return cleaned
