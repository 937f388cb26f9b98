"""A game set up from a seed: the starting flock, the bird deck, the cards, the cubes and who starts.

>>> import random
>>> s = setup(["crane", "kite"], random.Random(7))
>>> len(s["deck"]), len(s["face_up"]), s["cubes"], s["display"]
(4, 2, {'crane': 10, 'kite': 10}, 4)
>>> s == setup(["crane", "kite"], random.Random(7))
True
"""

import random

from companion.flock.birds import (CUBES, DEALT_CARDS, DECK_TILES, DISPLAY, FACE_UP_BIRDS, FLOCK_TILES, NEUTRAL,
                                   NEUTRALS_IN_DECK, NEUTRALS_IN_FLOCK, columns_for, depths, read_players)
from companion.flock.board import empty, refilled, start_player
from companion.fields import whole

DEFAULT_MOVEMENT_SET = 30  # movement cards in a player count's set, when the players do not count theirs
MAX_MOVEMENT_SET = 99


def tiles(players: list[str], per_player: dict[str, int], neutrals: int) -> list[dict]:
    birds = [{"owner": p, "sex": sex} for p in players for sex, n in per_player.items() for _ in range(n)]
    return birds + [{"owner": NEUTRAL} for _ in range(neutrals)]


def setup(players, rng: random.Random, movement_set: int = DEFAULT_MOVEMENT_SET) -> dict:
    """Everything the players lay out before stage 1, drawn with `rng` (a seed gives the same table)."""
    players = read_players(players)
    n = len(players)
    needed = n * DEALT_CARDS + DISPLAY[n]
    movement_set = whole(movement_set, "movement_set", needed, MAX_MOVEMENT_SET)
    columns = columns_for(n)
    flock = tiles(players, FLOCK_TILES, NEUTRALS_IN_FLOCK)
    rng.shuffle(flock)
    board = refilled(empty(columns), depths(columns), flock)
    deck = tiles(players, DECK_TILES, NEUTRALS_IN_DECK)
    rng.shuffle(deck)
    first, reason = start_player(board, players, rng)
    return {
        "players": players,
        "columns": columns,
        "depths": depths(columns),
        "board": board,
        "face_up": deck[:FACE_UP_BIRDS],
        "deck": deck[FACE_UP_BIRDS:],
        "cubes": {p: CUBES[n] for p in players},
        "hands": {p: DEALT_CARDS for p in players},
        "display": DISPLAY[n],
        "movement_deck": movement_set - needed,
        "movement_discards": 0,
        "start_player": first,
        "start_reason": reason,
    }
