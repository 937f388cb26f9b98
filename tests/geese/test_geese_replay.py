"""Scoring records in both forms, worked by hand, and illegal records refused with the action's index."""

import pytest

from companion.errors import BadInput
from companion.geese import score


def c(n, suit):
    return {"n": n, "suit": suit}


PLAYERS = ["ann", "ben", "cho"]


def test_the_contract_example_migration():
    result = score({"players": PLAYERS,
                    "migrations": {"ann": [[c(3, "gull"), c(3, "gull"), c(5, "gull"), c(5, "crane"), c(5, "eagle")]]},
                    "wintering_vp": {"ann": 3}})
    ann = result["players"]["ann"]
    assert ann == {"migrations": [{"cards": 5, "value": 5, "largest_suit": 3, "rainbow": False, "vp": 15}],
                   "no_goose_bonus": 1, "wintering_vp": 3, "total": 19}
    assert result["ranking"] == ["ann", "ben", "cho"] and result["winner"] == "ann"
    assert "wintering" not in result


def test_migrations_alone_with_bonus_rainbow_and_a_tie():
    result = score({"players": ["ann", "ben", "cho", "dan"], "migrations": {
        "ann": [[c(1, "gull")], [c(2, "crane"), c(2, "crane")]],  # 1 + 4, no goose: + 2² = 9
        "ben": [[c(3, "thrush"), c(3, "crane"), c(3, "goose")]],  # rainbow: 3 × 3 = 9
        "dan": [[c(1, "eagle"), c(2, "eagle"), c(2, "thrush")]],  # 3 × 2 = 6, + 1² = 7
    }, "wintering_vp": {"cho": 9, "dan": 2}})
    totals = {name: p["total"] for name, p in result["players"].items()}
    assert totals == {"ann": 9, "ben": 9, "cho": 9, "dan": 9}
    assert result["players"]["ben"]["migrations"][0]["rainbow"] is True
    assert result["players"]["ben"]["no_goose_bonus"] == 0
    assert result["ranking"] == ["ann", "ben", "cho", "dan"]


def record(*actions, wintering=()):
    return {"players": PLAYERS, "wintering": list(wintering), "actions": list(actions)}


def test_a_replayed_game_scores_arrivals_and_migrations():
    result = score(record(
        {"player": "ann", "arrive": [c(5, "gull")]},                                        # 5..6
        {"player": "ben", "arrive": [c(5, "crane"), c(5, "eagle")], "take": c(5, "gull")},  # w(5)=3 → 8, then 2 back
        {"player": "cho", "arrive": [c(5, "thrush")]},                                      # w(5)=3 → 5+3 = 8: 0
        {"player": "ann", "arrive": [c(5, "gull")]},                                        # w(5)=4 → 9: 4 VP
        {"player": "ben", "migrate": {"value": 3, "cards": [c(3, "gull"), c(2, "gull"), c(2, "goose")]}},
        {"player": "cho", "migrate": {"value": 1, "cards": [c(1, "eagle")]}},
        wintering=[c(2, "thrush")]))
    assert result["players"]["ann"]["wintering_vp"] == 4
    assert result["players"]["ben"]["migrations"] == [{"cards": 3, "value": 3, "largest_suit": 3, "rainbow": False,
                                                      "vp": 9}]
    assert result["players"]["ben"]["no_goose_bonus"] == 0
    assert result["players"]["cho"]["total"] == 1 + 1
    assert result["wintering"] == {"1": 0, "2": 1, "3": 0, "4": 0, "5": 4, "6": 0}
    assert result["ranking"] == ["ben", "ann", "cho"]


def test_a_6_with_its_third_card_and_a_1_with_its_eighth():
    sixes = score({"players": ["a", "b", "c", "d"], "wintering": [c(6, "gull"), c(6, "crane")],
                   "actions": [{"player": "a", "arrive": [c(6, "eagle")]}]})
    assert sixes["players"]["a"]["wintering_vp"] == 3
    ones = [c(1, s) for s in ("gull", "crane", "eagle", "thrush") for _ in range(3)][:7]
    result = score({"players": ["a", "b", "c", "d"], "wintering": ones,
                    "actions": [{"player": "a", "arrive": [c(1, "goose")]}]})
    assert result["players"]["a"]["wintering_vp"] == 8


def test_the_card_just_put_may_be_taken_back():
    result = score(record({"player": "ann", "arrive": [c(5, "gull"), c(4, "gull")], "take": c(4, "gull")}))
    assert result["wintering"]["4"] == 0 and result["wintering"]["5"] == 1


@pytest.mark.parametrize("action, field, why", [
    ({"player": "ben", "migrate": {"value": 5, "cards": [c(3, "gull"), c(3, "crane"), c(5, "gull"), c(5, "eagle"),
                                                        c(5, "thrush")]}},
     "actions[1].migrate.cards[0]", "a 3 can be used only as 3–4 now, not as 5"),
    ({"player": "ben", "migrate": {"value": 3, "cards": [c(3, "gull"), c(3, "crane")]}},
     "actions[1].migrate.cards", "exactly 3 cards, not 2"),
    ({"player": "ben", "arrive": [c(2, "gull")], "take": c(3, "thrush")},
     "actions[1].take", "only when 2 cards arrive"),
    ({"player": "ben", "arrive": [c(2, "gull"), c(2, "crane")]}, "actions[1].take", "1 card must be taken back"),
    ({"player": "ben", "arrive": [c(2, "gull"), c(2, "crane")], "take": c(5, "eagle")},
     "actions[1].take", "no eagle 5 lies in the wintering ground"),
    ({"player": "dan", "arrive": [c(2, "gull")]}, "actions[1].player", "not one of the players"),
    ({"player": "ben", "arrive": [], }, "actions[1].arrive", "1 card, or 2 cards"),
    ({"player": "ben", "arrive": [c(2, "gull")], "migrate": {"value": 1, "cards": []}}, "actions[1]",
     "exactly one of arrive, migrate"),
    ({"player": "ben", "migrate": {"value": True, "cards": []}}, "actions[1].migrate.value", "whole number"),
    ("arrive", "actions[1]", "expected"),
])
def test_an_illegal_action_is_refused_naming_its_index(action, field, why):
    with pytest.raises(BadInput) as refused:
        score(record({"player": "ann", "arrive": [c(3, "eagle")]}, action))
    assert refused.value.field == field
    assert why in refused.value.problem


def test_strictly_more_copies_than_the_deck_holds_are_refused():
    fours = [c(4, "gull")] * 3
    with pytest.raises(BadInput, match=r"^actions\[0\].arrive\[0\]: the deck has only 3 gull 4s"):
        score(record({"player": "ann", "arrive": [c(4, "gull")]}, wintering=fours), strict=True)
    twice = {"players": PLAYERS, "migrations": {"ben": [[c(3, "goose"), c(3, "gull"), c(3, "gull")],
                                                        [c(3, "goose"), c(3, "crane"), c(3, "crane")]]}}
    with pytest.raises(BadInput, match=r"^migrations.ben\[1\]\[0\]: the deck has only 1 goose 3$"):
        score(twice, strict=True)
    assert score(twice)["players"]["ben"]["total"] == 9 + 9  # a draft's deck may hold two


@pytest.mark.parametrize("card, why", [(c(6, "gull"), "taken out of the deck for 3 players"),
                                       (c(5, "goose"), "there is no goose 5")])
def test_strictly_a_card_must_be_in_this_deck(card, why):
    game = record({"player": "ann", "arrive": [c(3, "eagle")]}, {"player": "ben", "arrive": [card]})
    with pytest.raises(BadInput) as refused:
        score(game, strict=True)
    assert refused.value.field == "actions[1].arrive[0]" and why in refused.value.problem
    assert score(game)["players"]["ben"]["wintering_vp"] == 0  # a playtest of another deck still scores


def test_the_contract_wintering_example_with_three_players_and_6s_scores():
    sixes = [c(6, "gull"), c(6, "crane"), c(6, "eagle")]
    result = score({"players": PLAYERS, "wintering": [c(1, "gull"), c(1, "crane"), c(3, "eagle")] + sixes[:2],
                    "actions": [{"player": "ann", "arrive": [sixes[2]]}]})
    assert result["wintering"] == {"1": 2, "2": 0, "3": 1, "4": 0, "5": 0, "6": 3}
    assert result["players"]["ann"]["wintering_vp"] == 3


@pytest.mark.parametrize("data, field", [
    ([], "body"),  # the whole document, as the API names it
    ({"players": ["a", "b"], "migrations": {}}, "players"),
    ({"players": ["a", "a", "b"], "migrations": {}}, "players[1]"),
    ({"players": ["a", "b", ""], "migrations": {}}, "players[2]"),
    ({"players": PLAYERS}, "migrations"),
    ({"players": PLAYERS, "migrations": {"zed": []}}, "migrations.zed"),
    ({"players": PLAYERS, "migrations": {"ann": [[]]}}, "migrations.ann[0]"),
    ({"players": PLAYERS, "migrations": {"ann": [[c(4, "gull"), c(4, "gull")]]}}, "migrations.ann[0][0]"),
    ({"players": PLAYERS, "migrations": {"ann": [[{"n": 1, "suit": "duck"}]]}}, "migrations.ann[0][0].suit"),
    ({"players": PLAYERS, "migrations": {"ann": [[{"n": 0, "suit": "gull"}]]}}, "migrations.ann[0][0].n"),
    ({"players": PLAYERS, "migrations": {}, "wintering_vp": {"ann": -1}}, "wintering_vp.ann"),
    ({"players": PLAYERS, "migrations": {}, "extra": 1}, "extra"),
    ({"players": PLAYERS, "actions": {}}, "actions"),
    ({"players": PLAYERS, "wintering": [c(7, "gull")], "actions": []}, "wintering[0].n"),
])
def test_bad_input_names_the_field(data, field):
    with pytest.raises(BadInput) as refused:
        score(data)
    assert refused.value.field == field


# ---- turn order, the deal and the game's end -------------------------------------------

def whole_game(seed: int = 5, players: int = 4):
    """A complete game between the greedy and random strategies, from a seeded deal."""
    import random

    from companion.geese.game import Game
    from companion.geese.strategies import STRATEGIES, play

    rng = random.Random(seed)
    game = Game(players, rng)
    while not game.over:
        play(game, STRATEGIES["greedy" if game.seat % 2 else "random"](game, rng))
    return game, ["ann", "ben", "cho", "dan", "eve"][:players]


def test_a_whole_game_with_its_deal_scores_as_it_was_played():
    game, names = whole_game()
    record = game.record(names, deal=True)
    assert [len(h) for h in record["hands"].values()] == [18] * 4 and len(record["wintering"]) == 8
    result = score(record)
    assert [result["players"][n]["wintering_vp"] for n in names] == game.wintering_vp
    assert score(game.record(names))["ranking"] == result["ranking"]  # without the deal: the same game


def test_an_action_out_of_turn_names_whose_turn_it_is():
    with pytest.raises(BadInput) as refused:
        score(record({"player": "ann", "arrive": [c(3, "eagle")]}, {"player": "cho", "arrive": [c(3, "gull")]}))
    assert refused.value.field == "actions[1].player"
    assert refused.value.problem == "cho plays out of turn: it is ben's turn"
    assert refused.value.error_code == "geese.refused.out_of_turn"
    assert refused.value.params == {"player": "cho", "turn": "ben"}


def test_no_action_follows_the_end_of_the_game():
    game, names = whole_game(seed=8)
    data = game.record(names, deal=True)
    last = data["actions"][-1]["player"]
    assert last == names[-1]  # the round was finished up to the player before the start player
    more = {**data, "actions": [*data["actions"], {"player": names[0], "arrive": [c(1, "gull")]}]}
    with pytest.raises(BadInput) as refused:
        score(more)
    assert refused.value.field == f"actions[{len(data['actions'])}]" and "the game is over" in refused.value.problem


@pytest.mark.parametrize("change, field, why", [
    (lambda h: h["ann"].pop(), "hands.ann", "dealt 18 cards, not 17"),
    (lambda h: h.pop("ben"), "hands.ben", "missing"),
    (lambda h: h["cho"].__setitem__(0, next(x for x in h["dan"] if x != h["cho"][0])), "hands", "are not the deck"),
])
def test_a_deal_must_be_the_deck(change, field, why):
    game, names = whole_game()
    data = game.record(names, deal=True)
    change(data["hands"])
    with pytest.raises(BadInput) as refused:
        score(data)
    assert refused.value.field == field and why in refused.value.problem


def test_with_the_deal_a_card_played_must_be_in_the_hand():
    game, names = whole_game()
    data = game.record(names, deal=True)
    first = data["actions"][0]
    held = {(x["n"], x["suit"]) for x in data["hands"][first["player"]]}
    stranger = next(x for x in data["hands"]["ben"] if (x["n"], x["suit"]) not in held)
    data["actions"] = [{"player": first["player"], "arrive": [stranger]}]
    with pytest.raises(BadInput) as refused:
        score(data)
    assert refused.value.field == "actions[0].arrive[0]" and "ann holds no" in refused.value.problem


def test_the_tables_own_record_counts_hands_and_ends_the_game():
    from companion.geese import Replay

    assert Replay.of({"players": ["ann", "ben", "cho"], "wintering": [], "actions": []},
                     strict=True).hand_counts == {"ann": 20, "ben": 20, "cho": 20}
    game, names = whole_game(seed=3)
    data = game.record(names)  # no deal: the table's own record still knows each hand's size
    replay = Replay.of(data, strict=True)
    assert replay.over and replay.next_player is None and 0 in replay.hand_counts.values()
    assert list(replay.hand_counts.values()) == [len(h) for h in game.hands]
    assert Replay.of(data).hand_counts is None  # a record from elsewhere: only the turn order is checked
    before = Replay.of({**data, "actions": data["actions"][:-1]}, strict=True)
    assert not before.over and before.ending and before.next_player == names[-1]
