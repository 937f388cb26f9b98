"""The three-stage game sheet: each stage's end as the players entered it, running totals and the winner.

A sheet keeps no move log: for each stage the players enter the board as it
stands at the stage's end, the nest card and the movement cards they score.
The next stage starts from the board after landing, its short columns pushed
forward and the deck's draws entered in the spaces behind them.

>>> s = sheet(["crane", "kite"], [])
>>> s["stage"], s["over"], s["totals"]
(1, False, {'crane': 0, 'kite': 0})
"""

from companion.errors import BadInput
from companion.fields import items, record
from companion.flock.birds import STAGES, columns_for, depths, read_players
from companion.flock.board import read_board, refill_spaces
from companion.flock.cards import read_nest
from companion.flock.stage import read_hands, scored, tie_break

STAGE_FIELDS = ("board", "nest", "movement_cards")


def read_stage(value, players: list[str], field: str) -> dict:
    """One stage's end as entered: the board, the nest card and the movement cards scored."""
    record(value, field, STAGE_FIELDS)
    board = read_board(value.get("board"), players, f"{field}.board")
    return {"board": board, "nest": read_nest(value.get("nest"), f"{field}.nest"),
            "movement_cards": read_hands(value.get("movement_cards", {}), players, len(board[0]),
                                         f"{field}.movement_cards")}


def sheet(players, stages, start_board=None) -> dict:
    """The sheet's stages scored in turn, with the running totals, the next stage's board and the winner."""
    players = read_players(players)
    items(stages, "stages", 0, STAGES)
    totals = {p: 0 for p in players}
    results, board = [], start_board
    for i, entry in enumerate(stages):
        stage = read_stage(entry, players, f"stages[{i}]")
        final = i == STAGES - 1
        try:
            result = scored(players, stage["board"], stage["nest"], stage["movement_cards"], totals, final)
        except BadInput as e:  # a landing the nest card does not cover: named under its stage
            raise e.within(f"stages[{i}]") from None
        totals = {p: s["total"] for p, s in result["scores"].items()}
        results.append({**stage, **result})
        board = result["board_after_landing"]
    over = len(results) == STAGES
    view = {"players": players, "stage": min(len(results) + 1, STAGES), "over": over, "stages": results,
            "totals": totals}
    if over:
        view["winners"] = results[-1]["winners"]
        view["tie_break"] = tie_break(totals, results[-1]["birds_on_board"])
    elif results:
        view["next_board"], view["draws"] = refill_spaces(board, depths(columns_for(len(players))))
    else:
        view["next_board"], view["draws"] = board, []
    return view
