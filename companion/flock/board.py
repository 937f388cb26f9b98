"""The flock on the board: 3 rows by 5-7 columns, each column a block of birds ending at the back row.

A board is a list of rows (row 0 at the front), each a list of cells, a cell
`None` or a bird `{"owner", "sex"}`. The functions here never change the
board they are given; they return a new one.

>>> b = [[None, None, None], [None, None, None], [{"owner": "neutral"}, None, None]]
>>> front(b, 0), front(b, 1)
(2, None)
>>> [row[1] for row in refilled(b, [1, 2, 1], [{"owner": "neutral"}] * 3)]
[None, {'owner': 'neutral'}, {'owner': 'neutral'}]
"""

import random

from companion.errors import BadInput
from companion.fields import items
from companion.flock.birds import COLUMN_LIMIT, NEUTRAL, NEUTRAL_TILES, ROWS, TILES_PER_PLAYER, columns_for, read_bird

Board = list[list[dict | None]]


def empty(columns: int) -> Board:
    return [[None] * columns for _ in range(ROWS)]


def copy(board: Board) -> Board:
    return [[None if cell is None else dict(cell) for cell in row] for row in board]


def width(board: Board) -> int:
    return len(board[0])


def column(board: Board, col: int) -> list[dict]:
    """The birds of a column, front first."""
    return [board[r][col] for r in range(ROWS) if board[r][col] is not None]


def count(board: Board, col: int) -> int:
    return len(column(board, col))


def front(board: Board, col: int) -> int | None:
    """The row of a column's front bird (None for an empty column)."""
    return next((r for r in range(ROWS) if board[r][col] is not None), None)


def with_column(board: Board, col: int, birds: list[dict]) -> Board:
    """The board with column `col` holding `birds` (front first) as a block ending at the back row."""
    if len(birds) > COLUMN_LIMIT:
        raise BadInput(f"board[*][{col}]", f"column {col} would hold {len(birds)} birds (at most {COLUMN_LIMIT})",
                       code="flock.refused.column_over", params={"col": col + 1, "limit": COLUMN_LIMIT})
    new = copy(board)
    cells = [None] * (ROWS - len(birds)) + [dict(b) for b in birds]
    for r in range(ROWS):
        new[r][col] = cells[r]
    return new


def read_board(value, players: list[str], field: str = "board") -> Board:
    """A board checked cell by cell: its size for the player count, its birds, and the column rule."""
    columns = columns_for(len(players))
    items(value, field, ROWS, ROWS)
    board = []
    for r, row in enumerate(value):
        items(row, f"{field}[{r}]", columns, columns)
        board.append([None if cell is None else read_bird(cell, players, f"{field}[{r}][{c}]")
                      for c, cell in enumerate(row)])
    check_columns(board, field)
    check_tiles(board, players, field)
    return board


def check_columns(board: Board, field: str = "board") -> None:
    """Refuse a column with an empty space behind one of its birds (the block must end at row 2)."""
    for c in range(width(board)):
        top = front(board, c)
        if top is None:
            continue
        for r in range(top, ROWS):
            if board[r][c] is None:
                raise BadInput(f"{field}[{r}][{c}]", f"column {c} has an empty space at row {r} behind a bird: "
                               f"a column's birds must form one block ending at the back row",
                               code="flock.refused.gap", params={"row": r + 1, "col": c + 1})


def check_tiles(board: Board, players: list[str], field: str = "board") -> None:
    """Refuse more birds of one owner than the game has tiles."""
    for owner in (*players, NEUTRAL):
        limit = NEUTRAL_TILES if owner == NEUTRAL else TILES_PER_PLAYER
        if birds_of(board, owner) > limit:
            raise BadInput(field, f"{birds_of(board, owner)} {owner} birds on the board: the game has {limit}",
                           code="flock.refused.too_many_birds",
                           params={"species": owner, "count": birds_of(board, owner), "limit": limit})


def birds_of(board: Board, owner: str, rows: int = ROWS) -> int:
    """How many of `owner`'s birds fly in the first `rows` rows."""
    return sum(1 for row in board[:rows] for cell in row if cell is not None and cell["owner"] == owner)


def land(board: Board) -> tuple[list[dict], Board]:
    """The front bird of every non-empty column leaves: (the landed birds, the board after)."""
    landed, after = [], board
    for c in range(width(board)):
        birds = column(board, c)
        if birds:
            landed.append(birds[0])
            after = with_column(after, c, birds[1:])
    return landed, after


def refilled(board: Board, depth: list[int], draws: list[dict]) -> Board:
    """Each column pushed forward and topped up at the back from `draws` until it has its triangle depth.

    Draws are taken in order, column by column from the left; a column that
    already has its depth (or more) keeps its birds. Fewer draws leave the
    last columns short.
    """
    draws = list(draws)
    for c, want in enumerate(depth):
        birds = column(board, c)
        while len(birds) < want and draws:
            birds.append(draws.pop(0))
        board = with_column(board, c, birds)
    return board


def refill_spaces(board: Board, depth: list[int]) -> tuple[Board, list[list[int]]]:
    """The board with each short column pushed forward, and the back spaces the deck's draws go into."""
    pushed, holes = copy(board), []
    for c, want in enumerate(depth):
        birds = column(board, c)
        missing = max(0, want - len(birds))
        top = ROWS - len(birds) - missing
        for r in range(ROWS):
            k = r - top
            pushed[r][c] = dict(birds[k]) if 0 <= k < len(birds) else None
        holes.extend([r, c] for r in range(ROWS - missing, ROWS))
    return pushed, holes


def shortfall(board: Board, depth: list[int]) -> int:
    """Birds needed to bring every column to its triangle depth."""
    return sum(max(0, want - count(board, c)) for c, want in enumerate(depth))


START_REASONS = {1: "front_row", 2: "front_rows"}  # how the start player was found; else "random"


def start_player(board: Board, players: list[str], rng: random.Random) -> tuple[str, str]:
    """(who starts, why): most birds in the front row; tied, in the front two rows; still tied, at random."""
    tied = list(players)
    for rows, reason in START_REASONS.items():
        best = max(birds_of(board, p, rows) for p in tied)
        tied = [p for p in tied if birds_of(board, p, rows) == best]
        if len(tied) == 1:
            return tied[0], reason
    return rng.choice(tied), "random"
