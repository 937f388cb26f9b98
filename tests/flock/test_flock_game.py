"""The game move by move: prices, flights, adding, cards, passing, the stage's end, the next stage, the winner."""

import pytest

from companion.errors import BadInput
from companion.flock.game import Game
from flockdata import board

NEST = {"points": [3, 7, 11, 14, 16], "pair": 3}


def two_player(cells=None, seed=1) -> Game:
    game = Game(["crane", "kite"], seed)
    if cells is not None:
        game.board = board(*cells)
    game.turn = "crane"
    return game


def refused(game: Game, action: dict) -> BadInput:
    before = game.view()
    with pytest.raises(BadInput) as caught:
        game.apply(action)
    assert game.view() == before, "a refused action changed nothing"
    return caught.value


FLAT = (". kF . . .", "cF kM cM . .", "cM cF kF kM n")


def test_the_previous_users_cubes_go_to_the_nest_and_cards_pay_into_it():
    game = two_player(FLAT)
    game.apply({"do": "fly_side", "from": [1, 0], "to": [1, 1]})  # crane: 1 cube on the space
    assert game.spaces["fly_side"] == {"player": "crane", "cubes": 1} and game.nest_cubes == 0
    game.apply({"do": "fly_side", "from": [1, 0], "to": [1, 1]})  # kite: 2 on the space, crane's 1 to the nest
    assert game.spaces["fly_side"] == {"player": "kite", "cubes": 2} and game.nest_cubes == 1
    game.apply({"do": "card", "card": "diagonal", "from": [1, 0], "to": [0, 1]})  # crane's card: 3 to the nest
    assert game.nest_cubes == 4


def test_prices_rise_per_action_and_reset_each_stage():
    game = two_player(FLAT)
    assert game.price("fly_side") == 1
    game.apply({"do": "fly_side", "from": [1, 0], "to": [1, 1]})  # crane swaps with the kite beside it
    assert game.price("fly_side") == 2 and game.price("fly_line") == 1
    game.apply({"do": "fly_side", "from": [1, 0], "to": [1, 1]})  # kite, now at [1, 0], swaps back
    assert game.cubes == {"crane": 9, "kite": 8}
    for _ in range(3):
        game.uses["fly_side"] += 1
    assert game.price("fly_side") == 4  # and stays 4


def test_flights_swap_with_the_neighbour_only_and_never_into_an_empty_space():
    game = two_player(FLAT)
    assert refused(game, {"do": "fly_side", "from": [1, 0], "to": [1, 2]}).field == "action.to"  # two away
    assert "empty space" in str(refused(game, {"do": "fly_line", "from": [1, 0], "to": [0, 0]}))
    assert refused(game, {"do": "fly_side", "from": [0, 1], "to": [0, 0]}).field == "action.from"  # kite's bird
    assert refused(game, {"do": "fly_side", "from": [5, 0], "to": [0, 0]}).field == "action.from"
    game.apply({"do": "fly_line", "from": [1, 2], "to": [2, 2]})
    assert game.board[2][2] == {"owner": "crane", "sex": "M"} and game.board[1][2] == {"owner": "kite", "sex": "F"}


def test_an_action_the_player_cannot_pay_for_is_refused():
    game = two_player(FLAT)
    game.cubes["crane"] = 1
    game.uses["fly_side"] = 1
    assert "costs 2 cubes" in str(refused(game, {"do": "fly_side", "from": [1, 0], "to": [1, 1]}))


def test_adding_a_bird_in_front_or_at_the_back_and_never_into_a_full_column():
    game = two_player(FLAT)
    face_up, deck_top = game.face_up[0], game.deck[0]
    game.apply({"do": "add", "bird": 0, "col": 3, "at": "front"})
    assert game.board[1][3] == face_up and game.face_up[0] == deck_top  # replaced from the deck
    game.apply({"do": "add", "bird": "deck", "col": 4, "at": "back"})
    assert game.board[1][4] == {"owner": "neutral"} and game.board[2][4] is not None
    assert "full" in str(refused(game, {"do": "add", "bird": "deck", "col": 1}))


def test_taking_movement_cards_up_to_the_hand_limit():
    game = two_player(FLAT)
    game.hands["crane"] = 4
    display, discards = game.display, game.movement_discards
    game.apply({"do": "take"})
    assert game.hands["crane"] == 4 and game.display == display - 1 and game.movement_discards == discards + 1
    game.display = 0
    assert "display" in str(refused(game, {"do": "take"}))


@pytest.mark.parametrize("card, start, target, cost", [
    ("dodge", [2, 0], [2, 2], 2), ("sharp_dodge", [2, 0], [2, 3], 2), ("lead_change", [2, 1], [0, 1], 2),
    ("diagonal", [1, 0], [0, 1], 3), ("free_flight", [2, 0], [2, 4], 4), ("neutral", [2, 4], [2, 3], 2),
])
def test_movement_cards_fly_by_their_pattern_at_their_cost(card, start, target, cost):
    game = two_player(FLAT)
    moved = game.board[start[0]][start[1]]
    game.apply({"do": "card", "card": card, "from": start, "to": target})
    assert game.board[target[0]][target[1]] == moved
    assert game.cubes["crane"] == 10 - cost and game.hands["crane"] == 1


def test_cards_refuse_what_their_pattern_does_not_reach():
    game = two_player(FLAT)
    assert refused(game, {"do": "card", "card": "dodge", "from": [2, 0], "to": [2, 1]}).field == "action.to"
    assert refused(game, {"do": "card", "card": "neutral", "from": [2, 0], "to": [2, 1]}).field == "action.from"
    game.hands["crane"] = 0
    assert "holds no movement card" in str(refused(game, {"do": "card", "card": "dodge", "from": [2, 0], "to": [2, 2]}))


def test_the_standard_card_costs_two_and_leaves_the_price_alone():
    game = two_player(FLAT)
    game.uses["add"] = 3
    game.apply({"do": "card", "card": "standard", "action": {"do": "add", "bird": "deck", "col": 3}})
    assert game.cubes["crane"] == 8 and game.price("add") == 4 and game.board[1][3] is not None


def test_the_display_card_uses_a_display_card_at_its_cost_and_the_score_card_scores_at_once():
    game = two_player(FLAT)
    game.apply({"do": "card", "card": "display", "as": "diagonal", "from": [1, 0], "to": [0, 1]})
    assert game.cubes["crane"] == 7 and game.display == 4
    game.apply({"do": "pass"})  # kite
    game.hands["crane"] = 2
    game.apply({"do": "card", "card": "score", "spaces": [{"row": 0, "col": 1, "points": 2},
                                                          {"row": 1, "col": 2, "points": 1}]})
    assert game.scores["crane"] == 2 + 1 + 2 and game.hands["crane"] == 0 and game.cubes["crane"] == 4


def test_the_favourite_bird_card_takes_any_bird_from_the_deck():
    game = two_player(FLAT)
    game.deck = [{"owner": "neutral"}, {"owner": "kite", "sex": "F"}, {"owner": "crane", "sex": "M"}]
    game.apply({"do": "card", "card": "favourite", "bird": {"owner": "crane", "sex": "M"}, "col": 4, "at": "front"})
    assert game.board[1][4] == {"owner": "crane", "sex": "M"} and game.cubes["crane"] == 6
    assert len(game.deck) == 2
    game.turn = "crane"
    assert "no such bird" in str(refused(game, {"do": "card", "card": "favourite",
                                                "bird": {"owner": "kite", "sex": "M"}, "col": 3}))


def test_pass_spends_two_cubes_or_the_last_one_and_the_stage_ends_when_all_are_spent():
    game = two_player(FLAT)
    game.cubes = {"crane": 3, "kite": 1}
    game.apply({"do": "pass"})
    assert game.cubes["crane"] == 1 and game.turn == "kite"
    game.apply({"do": "pass"})
    assert game.cubes["kite"] == 0 and game.turn == "crane"  # kite is out: crane plays on
    assert "goes on" in str(refused(game, {"do": "land", "nest": NEST}))
    game.apply({"do": "pass"})
    assert game.turn is None
    assert "landing" in str(refused(game, {"do": "pass"}))


def spend_all(game: Game) -> None:
    while game.turn is not None:
        game.apply({"do": "pass"})


def test_landing_scores_the_nest_then_the_next_stage_refills_the_triangle():
    game = two_player(FLAT)
    game.hands["kite"] = 2
    spend_all(game)
    deck = len(game.deck)
    card = {"spaces": [{"row": 1, "col": 1, "points": 4}, {"row": 2, "col": 2, "points": 1}]}
    game.apply({"do": "land", "nest": NEST, "movement_cards": {"kite": [card]}})
    stage = game.stages[0]
    # fronts: cF (col 0), kF (col 1), cM (col 2), kM (col 3), swift (col 4)
    assert stage["landed"]["crane"] == {"M": 1, "F": 1, "count": 2, "pairs": 1}
    assert stage["scores"]["crane"]["nest"] == 7 + 3
    assert stage["scores"]["kite"]["movement"] == 4 + 1 + 2  # kM stays at [1,1], kF at [2,2]
    assert game.stage == 2 and game.cubes == {"crane": 10, "kite": 10} and game.price("add") == 1
    assert [sum(game.board[r][c] is not None for r in range(3)) for c in range(5)] == [1, 2, 3, 2, 1]
    assert len(game.deck) == deck + 5 - 5  # five landed under the deck, five drawn to refill
    assert game.hands["kite"] == 1 and game.display == 4


def test_three_stages_end_the_game_with_the_winner():
    game = Game.replay({"players": ["crane", "kite"], "seed": 9, "log": []})
    for _ in range(3):
        spend_all(game)
        game.apply({"do": "land", "nest": NEST})
    view = game.view()
    assert view["over"] and view["winners"] and view["tie_break"] in ("points", "fewer_birds", "shared")
    assert "over" in str(refused(game, {"do": "pass"}))


def test_a_record_replays_to_the_same_game_and_names_the_bad_action():
    record = {"players": ["crane", "kite", "goose"], "seed": 4, "log": [{"do": "pass"}, {"do": "take"}]}
    assert Game.replay(record).view() == Game.replay(record).view()
    record["log"].append({"do": "jump"})
    with pytest.raises(BadInput) as caught:
        Game.replay(record)
    assert caught.value.field == "log[2].action.do"


def test_every_legal_move_is_accepted_and_only_those_flights_are():
    import copy

    from companion.errors import BadInput
    from companion.flock.game import Game

    game = Game(["crane", "kite"], 4)
    legal = game.legal_moves()
    assert {"do": "pass"} in legal and any(m["do"] == "fly_side" for m in legal)
    for move in legal:
        copy.deepcopy(game).apply(move)  # each one the rules accept as it is
    offered = {(tuple(m["from"]), tuple(m["to"])) for m in legal if m["do"] == "fly_side"}
    for r in range(3):
        for c in range(5):
            for tr in range(3):
                for tc in range(5):
                    if (r, c) != (tr, tc) and ((r, c), (tr, tc)) not in offered:
                        try:
                            copy.deepcopy(game).apply({"do": "fly_side", "from": [r, c], "to": [tr, tc]})
                        except BadInput:
                            continue
                        raise AssertionError(f"fly_side {(r, c)}→{(tr, tc)} is allowed but not offered")


def test_a_player_without_cubes_or_cards_is_offered_no_card():
    from companion.flock.game import Game

    game = Game(["crane", "kite"], 4)
    game.hands[game.turn] = 0
    assert not [m for m in game.legal_moves() if m["do"] == "card"]
    game.cubes[game.turn] = 1
    assert {m["do"] for m in game.legal_moves()} <= {"fly_side", "fly_line", "add", "take", "pass"}


def test_the_view_names_who_made_the_last_move_for_undo_to_ask_about():
    game = Game(["crane", "kite"], 3)
    assert game.view()["last_mover"] is None
    first = game.turn
    game.apply({"do": "pass"})
    assert game.view()["last_mover"] == first and game.turn != first
    second = game.turn
    refused(game, {"do": "land", "nest": NEST})  # refused: the last mover stays the one who moved
    assert game.view()["last_mover"] == first
    game.apply({"do": "pass"})
    assert game.view()["last_mover"] == second
