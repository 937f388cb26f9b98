"""The two kinds of scoring card: the nest card of a stage and the movement cards in the players' hands.

Neither card's values are printed in the rules, so players enter each card
once; these functions check what they entered and score with it.

>>> nest = read_nest({"points": [3, 7, 11, 14, 16], "pair": 3})
>>> kite, goose = {"M": 2, "F": 1, "count": 3, "pairs": 1}, {"M": 0, "F": 2, "count": 2, "pairs": 0}
>>> nest_points(nest, kite, "kite"), nest_points(nest, goose, "goose")
(14, 7)
"""

from companion.errors import BadInput
from companion.flock.birds import ROWS
from companion.fields import items, line, record, whole

MAX_POINTS = 99  # no printed card gives more for one line or one space
MAX_NEST_ENTRIES = 7  # a nest card's points for 1..this many landed birds (a player lands one per column at most)
SPACES_PER_CARD = 2  # a movement card's scoring part marks two spaces
BOTH_BONUS = 2  # for holding both marked spaces
NEST_FIELDS = ("points", "pair")
MOVEMENT_FIELDS = ("spaces", "name")
SPACE_FIELDS = ("row", "col", "points")
MAX_CARD_NAME = 40  # a card's name fits one line of a phone's list
MAX_CARDS_SCORED = 16  # movement cards one player scores in one stage, far more than a hand holds


def read_nest(value, field: str = "nest") -> dict:
    """A nest card: points[k-1] for k birds landed, and the bonus (or penalty) per landed pair."""
    record(value, field, NEST_FIELDS)
    points = value.get("points")
    try:
        items(points, f"{field}.points", 1, MAX_NEST_ENTRIES)
    except BadInput:
        raise BadInput(f"{field}.points",
                       f"expected a list of 1-{MAX_NEST_ENTRIES} points (for 1, 2, ... birds landed)",
                       code="flock.refused.nest_points", params={"limit": MAX_NEST_ENTRIES}) from None
    return {"points": [whole(p, f"{field}.points[{i}]", 0, MAX_POINTS) for i, p in enumerate(points)],
            "pair": whole(value.get("pair"), f"{field}.pair", -MAX_POINTS, MAX_POINTS)}


def read_movement(value, columns: int, field: str) -> dict:
    """A movement card's scoring part: two different spaces on the board, each with its points."""
    record(value, field, MOVEMENT_FIELDS, required=("spaces",))
    spaces = value["spaces"]
    try:
        items(spaces, f"{field}.spaces", SPACES_PER_CARD, SPACES_PER_CARD)
    except BadInput:
        raise BadInput(f"{field}.spaces", f"a movement card marks {SPACES_PER_CARD} spaces",
                       code="errors.shape") from None
    read = []
    for i, space in enumerate(spaces):
        where = f"{field}.spaces[{i}]"
        record(space, where, SPACE_FIELDS, required=SPACE_FIELDS)
        read.append({"row": whole(space["row"], f"{where}.row", 0, ROWS - 1),
                     "col": whole(space["col"], f"{where}.col", 0, columns - 1),
                     "points": whole(space["points"], f"{where}.points", 0, MAX_POINTS)})
    if (read[0]["row"], read[0]["col"]) == (read[1]["row"], read[1]["col"]):
        raise BadInput(f"{field}.spaces[1]", "the two marked spaces are the same", code="flock.refused.same_spaces")
    card = {"spaces": read}
    if "name" in value:  # a card scored straight from the kept ones carries its name along
        card["name"] = line(value["name"], f"{field}.name", MAX_CARD_NAME)
    return card


def nest_points(nest: dict, landed: dict, player: str, field: str = "nest.points") -> int:
    """What a player's landing scores: the points for the birds landed, plus the pair bonus per pair."""
    if landed["count"] == 0:
        return 0
    if landed["count"] > len(nest["points"]):
        raise BadInput(field, f"{player} lands {landed['count']} birds but the card gives points "
                              f"for up to {len(nest['points'])}",
                              code="flock.refused.nest_short",
                              params={"species": player, "count": landed["count"], "n": len(nest["points"])})
    return nest["points"][landed["count"] - 1] + nest["pair"] * landed["pairs"]


def movement_points(card: dict, board, owner: str) -> int:
    """A movement card scored by `owner` on `board`: each held space's points, and the bonus for both."""
    held = [s for s in card["spaces"]
            if board[s["row"]][s["col"]] is not None and board[s["row"]][s["col"]]["owner"] == owner]
    return sum(s["points"] for s in held) + (BOTH_BONUS if len(held) == SPACES_PER_CARD else 0)


def tally(birds: list[dict], owner: str) -> dict:
    """A player's landed birds counted: males, females, how many, and the male+female pairs."""
    mine = [b for b in birds if b["owner"] == owner]
    males = sum(1 for b in mine if b.get("sex") == "M")
    females = sum(1 for b in mine if b.get("sex") == "F")
    return {"M": males, "F": females, "count": len(mine), "pairs": min(males, females)}
