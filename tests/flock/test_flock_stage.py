"""Stage scoring: the landing against the nest card, movement cards after it, the worked examples of the rules."""

import pytest

from companion.errors import BadInput
from companion.flock import score
from flockdata import FOUR, NEST_EXAMPLE, board

# The rules' landing example: kite 2 males + 1 female, goose 2 females, crane 1, swallow none, a swift too.
LANDING = board(". . .  .  .  .  .",
                ". . .  .  .  .  .",
                "kM kM kF gF gF cM n")


def test_the_landing_example_scores_14_7_3_and_0():
    result = score({"players": FOUR, "board": LANDING, "nest": NEST_EXAMPLE})
    assert {p: s["nest"] for p, s in result["scores"].items()} == {"kite": 14, "goose": 7, "crane": 3, "swallow": 0}
    assert result["landed"]["kite"] == {"M": 2, "F": 1, "count": 3, "pairs": 1}
    assert result["landed"]["goose"] == {"M": 0, "F": 2, "count": 2, "pairs": 0}
    assert result["landed"]["swallow"] == {"M": 0, "F": 0, "count": 0, "pairs": 0}
    assert result["board_after_landing"] == board(*[". " * 7] * 3)
    assert "winners" not in result


# The movement example: after landing, swallows on (2,4), and at (1,3) and (2,3) near the centre.
MOVEMENT_BOARD = board(".  .  .  n  n  .  .",
                       ".  .  cF sM kF .  .",
                       ".  gM kM sF sF cM .")
CARD_ONE = {"spaces": [{"row": 2, "col": 4, "points": 3}, {"row": 0, "col": 0, "points": 2}]}
CARD_TWO = {"spaces": [{"row": 1, "col": 6, "points": 4}, {"row": 2, "col": 4, "points": 3}]}
CARD_THREE = {"spaces": [{"row": 1, "col": 3, "points": 2}, {"row": 2, "col": 3, "points": 1}]}


def test_the_movement_card_example_scores_11():
    result = score({"players": FOUR, "board": MOVEMENT_BOARD, "nest": NEST_EXAMPLE,
                    "movement_cards": {"swallow": [CARD_ONE, CARD_TWO, CARD_THREE]}})
    # The swifts land from columns 3 and 4; the swallows behind them stay where the cards mark.
    assert result["scores"]["swallow"] == {"nest": 0, "movement": 11, "stage": 11, "total": 11}


def test_movement_cards_are_scored_on_the_board_after_landing():
    # The swallow at the front of column 0 lands, so the card marking its space scores nothing.
    before = board("sF . . . .", "sM . . . .", "cF . . . .")
    card = {"spaces": [{"row": 0, "col": 0, "points": 5}, {"row": 1, "col": 0, "points": 1}]}
    result = score({"players": ["crane", "swallow"], "board": before, "nest": NEST_EXAMPLE,
                    "movement_cards": {"swallow": [card]}})
    assert result["board_after_landing"][1][0] == {"owner": "swallow", "sex": "M"}
    assert result["scores"]["swallow"]["movement"] == 1  # only row 1 still holds the swallow
    assert result["scores"]["swallow"]["nest"] == 3


def test_a_negative_pair_value_is_a_penalty_per_pair():
    b = board(". . . . .", ". . . . .", "kM kF kM kF cF")
    result = score({"players": ["crane", "kite"], "board": b, "nest": {"points": [1, 4, 9, 12], "pair": -2}})
    assert result["scores"]["kite"]["nest"] == 12 - 2 * 2
    assert result["landed"]["kite"]["pairs"] == 2


def test_birds_land_even_with_empty_spaces_ahead_and_neutral_birds_score_for_nobody():
    b = board(". . . . .", ". . . . .", "n n n cF .")
    result = score({"players": ["crane", "kite"], "board": b, "nest": NEST_EXAMPLE})
    assert result["scores"]["crane"]["nest"] == 3 and result["scores"]["kite"]["nest"] == 0
    assert result["board_after_landing"][2] == [None] * 5


def test_totals_add_scores_before_and_the_final_stage_names_the_winner():
    b = board(". . . . .", ". . . . .", "cF kM . . .")
    result = score({"players": ["crane", "kite"], "board": b, "nest": NEST_EXAMPLE,
                    "scores_before": {"crane": 20, "kite": 21}, "final": True})
    assert result["scores"]["crane"]["total"] == 23 and result["scores"]["kite"]["total"] == 24
    assert result["winners"] == ["kite"]


def test_a_tie_goes_to_fewer_birds_on_the_board_then_is_shared():
    b = board(". kF . . .", ". kM . . .", "cF kM cF . .")
    fewer = score({"players": ["crane", "kite"], "board": b, "nest": {"points": [3, 3], "pair": 0},
                   "scores_before": {"crane": 10, "kite": 13}, "final": True})
    # crane lands the fronts of columns 0 and 2, kite only the front of column 1: 3 points each.
    assert fewer["scores"]["crane"]["total"] == 13 and fewer["scores"]["kite"]["total"] == 16
    tie = score({"players": ["crane", "kite"], "board": b, "nest": {"points": [3, 3], "pair": 0},
                 "scores_before": {"crane": 13, "kite": 13}, "final": True})
    assert tie["birds_on_board"] == {"crane": 0, "kite": 2}
    assert tie["winners"] == ["crane"]
    shared = score({"players": ["crane", "kite"], "board": board(*[". " * 5] * 3), "nest": NEST_EXAMPLE,
                    "scores_before": {"crane": 5, "kite": 5}, "final": True})
    assert shared["winners"] == ["crane", "kite"]


@pytest.mark.parametrize("change, field", [
    (lambda d: d["board"][2].__setitem__(2, None), "board[2][2]"),  # a gap behind a bird in column 2
    (lambda d: d["board"].pop(), "board"),
    (lambda d: d["board"][0].pop(), "board[0]"),
    (lambda d: d["board"][2][0].__setitem__("owner", "owl"), "board[2][0].owner"),
    (lambda d: d["board"][2][0].__setitem__("owner", "goose"), "board[2][0].owner"),  # not playing
    (lambda d: d["board"][2][0].__setitem__("sex", "X"), "board[2][0].sex"),
    (lambda d: d.__setitem__("players", ["crane"]), "players"),
    (lambda d: d.__setitem__("players", ["crane", "crane"]), "players[1]"),
    (lambda d: d["nest"].__setitem__("points", [3]), "nest.points"),  # 2 kites land, the card covers 1
    (lambda d: d["nest"].__setitem__("pair", 1.5), "nest.pair"),
    (lambda d: d.__setitem__("movement_cards", {"kite": [{"spaces": [{"row": 3, "col": 0, "points": 1},
                                                                      {"row": 0, "col": 0, "points": 1}]}]}),
     "movement_cards.kite[0].spaces[0].row"),
    (lambda d: d.__setitem__("movement_cards", {"goose": []}), "movement_cards.goose"),
    (lambda d: d.__setitem__("final", "yes"), "final"),
    (lambda d: d.__setitem__("colour", 1), "colour"),
    (lambda d: d.pop("nest"), "nest"),
])
def test_bad_input_is_refused_naming_the_field(change, field):
    data = {"players": ["crane", "kite"], "nest": {"points": [3, 7], "pair": 0},
            "board": board(". . . . .", ". . kF . .", "cF kM kM . n")}
    score(data)  # the unchanged input is fine
    change(data)
    with pytest.raises(BadInput) as refused:
        score(data)
    assert refused.value.field == field


def test_landing_more_birds_than_the_nest_card_covers_names_the_player():
    b = board(". . . . .", ". . . . .", "kM kF kM . .")
    with pytest.raises(BadInput, match="kite lands 3 birds but the card gives points for up to 2"):
        score({"players": ["crane", "kite"], "board": b, "nest": {"points": [3, 7], "pair": 0}})


def test_the_gap_message_names_the_column():
    b = board(". . kF . .", ". . . . .", "cF kM kM . n")
    with pytest.raises(BadInput, match="column 2 has an empty space at row 1"):
        score({"players": ["crane", "kite"], "board": b, "nest": NEST_EXAMPLE})


def test_more_birds_of_one_player_than_the_game_has_is_refused():
    b = board("kF kF kF . .", "kM kM kM . .", "kF kF kF . .")
    with pytest.raises(BadInput, match="9 kite birds"):
        score({"players": ["crane", "kite"], "board": b, "nest": NEST_EXAMPLE})
