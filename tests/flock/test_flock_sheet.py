"""The three-stage sheet: running totals, the board carried with its refill spaces, and the winner."""

import pytest

from companion.errors import BadInput
from companion.flock.sheet import sheet
from flockdata import board

NEST = {"points": [3, 7, 11, 14, 16], "pair": 3}
PLAYERS = ["crane", "kite"]


def test_running_totals_and_the_next_board_with_its_refill_spaces():
    first = {"board": board(". . kF . .", ". cF kM kM .", "cM cF kF kF n"), "nest": NEST}
    view = sheet(PLAYERS, [first])
    # crane lands a male and a female (7 + 3 for the pair), kite a female and a male (7 + 3)
    assert view["totals"] == {"crane": 10, "kite": 10}
    # columns after landing: 0 empty, 1 one, 2 two, 3 one, 4 empty; depths 1, 2, 3, 2, 1
    assert view["draws"] == [[2, 0], [2, 1], [2, 2], [2, 3], [2, 4]]
    assert view["next_board"][1][1] == {"owner": "crane", "sex": "F"} and view["next_board"][2][1] is None
    assert view["stage"] == 2 and not view["over"]


def test_three_stages_end_with_the_winner_and_how_the_tie_was_broken():
    empty = board(*[". " * 5] * 3)
    tie = board(". . . . .", ". . . . .", "cF kF . . .")
    stages = [{"board": empty, "nest": NEST}, {"board": empty, "nest": NEST},
              {"board": board(". . . . .", ". . . . n", "cF kF . . kF"), "nest": NEST}]
    view = sheet(PLAYERS, stages)
    assert view["over"] and view["totals"] == {"crane": 3, "kite": 3}
    assert view["winners"] == ["crane"] and view["tie_break"] == "fewer_birds"
    stages[2]["board"] = tie
    assert sheet(PLAYERS, stages)["tie_break"] == "shared"


def test_a_bad_stage_is_refused_naming_the_stage_and_the_cell():
    with pytest.raises(BadInput) as refused:
        sheet(PLAYERS, [{"board": board("kF . . . .", ". . . . .", ". . . . ."), "nest": NEST}])
    assert refused.value.field == "stages[0].board[1][0]"
