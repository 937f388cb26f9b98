"""The birds of Über den Wolken: the four players' species, the neutral swifts, and the table's sizes.

Every count the game depends on is named here once, by player count, and
handed to the pages as data.

>>> columns_for(3), depths(6), sum(depths(7))
(6, [1, 2, 3, 3, 2, 1], 15)
>>> read_bird({"owner": "kite", "sex": "M"}, ["kite", "goose"], "board[0][2]")
{'owner': 'kite', 'sex': 'M'}
"""

from companion.errors import BadInput
from companion.fields import items, record

SPECIES = ("crane", "kite", "goose", "swallow")  # the players' colours: pink, orange, beige, purple
NEUTRAL = "neutral"  # the swifts (white): they fly in the flock and score for nobody
SEXES = ("M", "F")
BIRD_FIELDS = ("owner", "sex")
ROWS = 3  # row 0 is the front (the arrow's tip), row 2 the back
COLUMN_LIMIT = 3  # a column holds at most this many birds
PLAYER_COUNTS = (2, 3, 4)
COLUMNS = {2: 5, 3: 6, 4: 7}
CUBES = {2: 10, 3: 13, 4: 16}
DISPLAY = {2: 4, 3: 5, 4: 6}  # face-up movement cards
DEALT_CARDS = 2  # movement cards dealt to each player at setup
HAND_LIMIT = 4  # movement cards a player may hold
FACE_UP_BIRDS = 2  # birds revealed beside the bird deck
STAGES = 3

# Each player's five tiles. The rules put 2 females and 1 male of each player
# in the starting flock and the other 2 in the deck; the table takes those two
# to be one of each sex.
FLOCK_TILES = {"F": 2, "M": 1}
DECK_TILES = {"F": 1, "M": 1}
TILES_PER_PLAYER = sum(FLOCK_TILES.values()) + sum(DECK_TILES.values())
NEUTRALS_IN_FLOCK = 3
NEUTRALS_IN_DECK = 2
NEUTRAL_TILES = NEUTRALS_IN_FLOCK + NEUTRALS_IN_DECK


def columns_for(players: int) -> int:
    """The board's width for a player count."""
    return COLUMNS[players]


def depths(columns: int) -> list[int]:
    """Birds per column in the triangle formation, outer to inner to outer."""
    return [min(c + 1, columns - c, COLUMN_LIMIT) for c in range(columns)]


def read_players(value, field: str = "players") -> list[str]:
    """The players' species in seat order: 2-4 different species."""
    try:
        items(value, field, PLAYER_COUNTS[0], PLAYER_COUNTS[-1])
    except BadInput as e:
        if e.error_code != "errors.count":
            raise
        raise BadInput(field, f"{len(value)} players: the game is for {PLAYER_COUNTS[0]}-{PLAYER_COUNTS[-1]}",
                       code="flock.refused.players",
                       params={"low": PLAYER_COUNTS[0], "high": PLAYER_COUNTS[-1]}) from None
    for i, name in enumerate(value):
        if name not in SPECIES:
            raise BadInput(f"{field}[{i}]", f"{_show(name)} is not a species ({', '.join(SPECIES)})",
                           code="errors.choice")
        if name in value[:i]:
            raise BadInput(f"{field}[{i}]", f"{name} plays twice",
                           code="flock.refused.species_twice", params={"species": name})
    return list(value)


def read_owner(value, players: list[str], field: str) -> str:
    if value != NEUTRAL and value not in players:
        raise BadInput(field, f"{_show(value)} is not a player here ({', '.join(players)}) nor {NEUTRAL}",
                       code="errors.choice")
    return value


def read_bird(value, players: list[str], field: str) -> dict:
    """A bird tile: its owner (a player or neutral) and, for a player's bird, its sex."""
    record(value, field, BIRD_FIELDS)
    owner = read_owner(value.get("owner"), players, f"{field}.owner")
    sex = value.get("sex")
    if sex is None and owner == NEUTRAL:
        return {"owner": owner}
    if sex not in SEXES:
        raise BadInput(f"{field}.sex", f"{_show(sex)}: expected M or F", code="errors.choice")
    return {"owner": owner, "sex": sex}


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."
