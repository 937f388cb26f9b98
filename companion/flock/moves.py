"""Where a bird may fly: the swap each action or movement card allows, checked on the board.

Every flight swaps two birds, so no flight ever changes how many birds a
column holds. A flight never goes into an empty space.

>>> swap_allowed("fly_side", (0, 1), (0, 2)), swap_allowed("dodge", (0, 1), (0, 3))
(True, True)
>>> swap_allowed("diagonal", (1, 1), (1, 2))
False
"""

from companion.errors import BadInput
from companion.fields import items, whole
from companion.flock.birds import NEUTRAL, ROWS

# (rows apart, columns apart) each flight allows; None: any other space.
REACH = {
    "fly_side": {(0, 1)},
    "fly_line": {(1, 0)},
    "dodge": {(0, 2)},  # one space between, in the same row
    "sharp_dodge": {(0, 3)},  # two spaces between, in the same row
    "lead_change": {(2, 0)},  # one space between, in the same column
    "neutral": {(0, 1), (1, 0)},
    "diagonal": {(1, 1)},
    "free_flight": None,
}
FLIGHTS = tuple(REACH)
SAY = {"fly_side": "flying left/right", "fly_line": "flying forward/back", "dodge": "a dodge",
       "sharp_dodge": "a sharp dodge", "lead_change": "a lead change", "neutral": "the neutral card",
       "diagonal": "a diagonal flight", "free_flight": "a free flight"}  # each flight in a refusal's words


def swap_allowed(kind: str, start: tuple[int, int], target: tuple[int, int]) -> bool:
    """True when `kind` reaches from `start` to `target` (the birds there are not looked at)."""
    apart = (abs(start[0] - target[0]), abs(start[1] - target[1]))
    return apart != (0, 0) and (REACH[kind] is None or apart in REACH[kind])


def read_space(value, columns: int, field: str) -> tuple[int, int]:
    """A space on the board as `[row, col]` (counted from 0, row 0 the front)."""
    try:
        row, col = items(value, field, 2, 2)
        return whole(row, field, 0, ROWS - 1), whole(col, field, 0, columns - 1)
    except BadInput:  # one refusal for any space that is not on the board, as the page shows it
        raise BadInput(field, f"{value!r:.30} is not a space on the board ({ROWS} rows, {columns} columns)",
                       code="errors.shape") from None


def flown(board, kind: str, player: str, action: dict, field: str = "action"):
    """The board after `player`'s flight of `kind` (BadInput saying why it is not allowed)."""
    columns = len(board[0])
    (r, c) = read_space(action.get("from"), columns, f"{field}.from")
    (tr, tc) = read_space(action.get("to"), columns, f"{field}.to")
    bird, other = board[r][c], board[tr][tc]
    mover = NEUTRAL if kind == "neutral" else player
    if bird is None or bird["owner"] != mover:
        whose = "a neutral bird" if kind == "neutral" else f"one of {player}'s birds"
        raise BadInput(f"{field}.from", f"row {r}, column {c} does not hold {whose}",
                       code="flock.refused.not_neutral" if kind == "neutral" else "flock.refused.not_yours",
                       params=_people(r, c, player=player))
    if other is None:
        raise BadInput(f"{field}.to", f"row {tr}, column {tc} is empty: birds never fly into an empty space",
                       code="flock.refused.empty", params=_people(tr, tc))
    if not swap_allowed(kind, (r, c), (tr, tc)):
        raise BadInput(f"{field}.to", f"{SAY[kind]} cannot reach row {tr}, column {tc} from row {r}, column {c}",
                       code="flock.refused.reach", params=_people(tr, tc))
    new = [list(row) for row in board]
    new[r][c], new[tr][tc] = other, bird
    return new


def _people(row: int, col: int, **more) -> dict:
    """A space as people number it (from 1) for a refusal's sentence; the API's field path keeps the board's."""
    return {"row": row + 1, "col": col + 1, **more}
