"""Boards written the way players read them: one string per row, a cell per column."""

# A cell: "." empty, "n" a neutral swift, else species letter + sex: "kM" a male kite, "cF" a female crane.
LETTERS = {"c": "crane", "k": "kite", "g": "goose", "s": "swallow"}


def cell(code: str):
    if code == ".":
        return None
    if code == "n":
        return {"owner": "neutral"}
    return {"owner": LETTERS[code[0]], "sex": code[1]}


def board(*rows: str):
    """board("kM . .", ...) -> the JSON board, row 0 first."""
    return [[cell(code) for code in row.split()] for row in rows]


NEST_EXAMPLE = {"points": [3, 7, 11, 14, 16], "pair": 3}
FOUR = ["crane", "kite", "goose", "swallow"]
