"""The rules of 帰る雁 one by one: the deck, the deal, the wintering ground, arrivals, migrations, the end."""

import random

import pytest

from companion.errors import BadInput
from companion.geese import DEFAULT_RULES, Card, Rules, WinteringGround, deck, score_migration
from companion.geese.game import Game
from companion.geese.grouping import best_group, check_hand
from companion.geese.scoring import no_goose_bonus, ranking


def cards(text: str) -> list[Card]:
    """'3g 5G 4c' → cards: t thrush, c crane, g gull, e eagle, G goose."""
    suits = {"t": "thrush", "c": "crane", "g": "gull", "e": "eagle", "G": "goose"}
    return [Card(int(word[:-1]), suits[word[-1]]) for word in text.split()]


def test_the_deck_has_72_plain_cards_and_8_geese():
    full = deck(DEFAULT_RULES, 4)
    assert len(full) == 80
    geese = [c for c in full if c.suit == "goose"]
    assert sorted(c.n for c in geese) == [1, 1, 1, 1, 2, 2, 3, 4]
    plain = ("thrush", "crane", "gull", "eagle")
    assert all(sum(c == Card(n, s) for c in full) == 3 for n in range(1, 7) for s in plain)


def test_three_players_play_without_the_6s():
    small = deck(DEFAULT_RULES, 3)
    assert len(small) == 68 and all(c.n != 6 for c in small)
    assert len(deck(DEFAULT_RULES, 5)) == 80


@pytest.mark.parametrize("players, hand, ground", [(3, 20, 8), (4, 18, 8), (5, 15, 5)])
def test_the_deal_and_what_is_left_for_the_wintering_ground(players, hand, ground):
    game = Game(players, random.Random(3))
    assert [len(h) for h in game.hands] == [hand] * players
    assert len(game.ground) == ground == len(game.setup)
    assert game.wintering_vp == [0] * players  # cards laid out at setup score nothing


def test_two_players_cannot_play():
    with pytest.raises(BadInput, match="3–5 players"):
        Game(2, random.Random(1))


def test_a_card_is_usable_from_its_number_to_its_number_plus_w():
    ground = WinteringGround(cards("5g 5c"))
    assert list(ground.values(5)) == [5, 6, 7]
    assert ground.usable(Card(5, "eagle"), 7) and not ground.usable(Card(5, "eagle"), 8)
    assert not ground.usable(Card(5, "eagle"), 4)
    assert list(ground.values(2)) == [2]


def test_a_6_scores_3_with_its_third_card_then_1_each():
    ground = WinteringGround(cards("6g 6c"))
    assert ground.put(Card(6, "eagle")) == 3
    assert ground.put(Card(6, "thrush")) == 1


def test_a_1_scores_8_with_its_eighth_card():
    ground = WinteringGround(cards("1g 1g 1g 1c 1c 1c 1e"))
    assert ground.put(Card(1, "goose")) == 8
    assert ground.put(Card(1, "thrush")) == 1


def test_below_the_threshold_an_arrival_scores_nothing():
    ground = WinteringGround()
    assert [ground.put(Card(4, "gull")) for _ in range(4)] == [0, 0, 0, 0]
    assert ground.put(Card(4, "crane")) == 5  # 4 + 5 = 9


def test_two_arrivals_score_one_after_the_other_and_one_card_comes_back():
    game = Game(4, random.Random(5))
    game.hands[0] = cards("6g 6c 2t")
    game.ground = WinteringGround(cards("6e 6t"))
    vp = game.arrive(cards("6g 6c"), take=Card(6, "gull"))
    assert vp == 3 + 1
    assert game.hands[0] == cards("2t 6g")
    assert game.ground.w[6] == 3


def test_take_needs_two_arrivals_and_a_card_that_lies_there():
    game = Game(4, random.Random(5))
    game.hands[0] = cards("3g 4c 5t")
    with pytest.raises(BadInput, match="taken back exactly when 2"):
        game.arrive(cards("3g"), take=game.setup[0])
    with pytest.raises(BadInput, match="taken back exactly when 2"):
        game.arrive(cards("3g 4c"))
    game.ground = WinteringGround(cards("1t"))
    with pytest.raises(BadInput, match="no gull 6 lies"):
        game.arrive(cards("3g 4c"), take=Card(6, "gull"))
    with pytest.raises(BadInput, match="in the hand"):
        game.arrive(cards("6e"))
    assert len(game.hands[0]) == 3 and game.seat == 0  # nothing changed


def test_3_3_5_5_5_migrates_as_5_with_two_3s_wintering():
    game = Game(4, random.Random(5))
    game.hands[0] = cards("3g 3c 5g 5e 5t 2t")
    game.ground = WinteringGround(cards("3t 3e"))
    assert 5 in game.migratable(0)
    game.migrate(5, cards("3g 3c 5g 5e 5t"))
    assert game.migrations[0] == [(5, cards("3g 3c 5g 5e 5t"))]


def test_a_migration_takes_exactly_v_cards_each_usable_as_v():
    game = Game(4, random.Random(5))
    game.hands[0] = cards("3g 3c 5g 5e 5t 2t")
    game.ground = WinteringGround(cards("3t"))
    with pytest.raises(BadInput, match="exactly 5 cards"):
        game.migrate(5, cards("5g 5e 5t 3g"))
    with pytest.raises(BadInput, match="a 3 cannot be used as 5"):
        game.migrate(5, cards("3g 3c 5g 5e 5t"))


def test_an_empty_hand_ends_the_game_after_the_round():
    game = Game(4, random.Random(9))
    game.hands[1] = cards("4g")
    game.arrive([game.hands[0][0]])
    game.arrive(cards("4g"))  # seat 1's hand is empty: seats 2 and 3 still play
    assert game.ending and not game.over
    game.arrive([game.hands[2][0]])
    game.arrive([game.hands[3][0]])
    assert game.over and game.turns == 4
    with pytest.raises(BadInput, match="over"):
        game.arrive([game.hands[0][0]])


def test_the_last_seat_emptying_its_hand_ends_at_once():
    game = Game(3, random.Random(9))
    game.hands[2] = cards("4g")
    game.arrive([game.hands[0][0]])
    game.arrive([game.hands[1][0]])
    game.arrive(cards("4g"))
    assert game.over


def test_the_largest_suit_counts_the_geese_with_it():
    m = score_migration(cards("3g 3g 5G 5c 5e"), 5)
    assert (m.cards, m.largest_suit, m.rainbow, m.vp) == (5, 3, False, 15)


def test_a_rainbow_counts_as_one_suit():
    m = score_migration(cards("4t 4c 4g 4e"), 4)
    assert (m.largest_suit, m.rainbow, m.vp) == (1, True, 16)
    assert score_migration(cards("4t 4c 4g 4e"), 4, Rules(rainbow=False)).vp == 4


def test_the_better_reading_is_scored():
    m = score_migration(cards("2t 2G"), 2)  # goose joins the thrush: 2 × 2, and the rainbow gives the same
    assert m.vp == 4
    assert score_migration(cards("1G"), 1).vp == 1


def test_the_no_goose_bonus_is_the_square_of_the_migrations():
    three = [score_migration(cards("1g"), 1), score_migration(cards("2g 2c"), 2), score_migration(cards("1e"), 1)]
    assert no_goose_bonus(three) == 9
    assert no_goose_bonus(three + [score_migration(cards("1G"), 1)]) == 0
    assert no_goose_bonus([]) == 0
    assert no_goose_bonus(three, Rules(no_goose_bonus=False)) == 0


def test_ties_go_to_the_earlier_player_in_turn_order():
    assert ranking(["ann", "ben", "cho"], {"ann": 5, "ben": 9, "cho": 9}) == ["ben", "cho", "ann"]
    assert ranking(["cho", "ben", "ann"], {"ann": 9, "ben": 9, "cho": 9}) == ["cho", "ben", "ann"]


def test_the_best_group_prefers_one_suit_or_a_rainbow():
    ground = WinteringGround(cards("3t 3e"))
    group = best_group(cards("3g 3c 5g 5g 5e 5G 1t"), ground, 5)
    assert group.vp == 5 * 4 and sorted(group.cards) == sorted(cards("3g 5g 5g 5G 3c"))
    assert best_group(cards("3g 3c"), ground, 5) is None


def test_the_checker_lists_every_value_and_the_best():
    found = check_hand(cards("2g 2c 2e 3t"), {2: 1})
    assert found["values"] == [2, 3]
    assert found["best"]["value"] == 3 and found["best"]["reading"] == "rainbow" and found["best"]["vp"] == 9
    assert found["ranges"]["2"] == [2, 3]


def test_rules_load_from_toml_and_refuse_what_cannot_be():
    rules = Rules.from_toml("threshold = 10\nbeyond_vp = 2\n[deal]\n4 = 16\n")
    assert (rules.threshold, rules.beyond_vp, rules.deal[4], rules.deal[3]) == (10, 2, 16, 20)
    assert 5 not in Rules.from_toml("[deal]\n5 = 0\n").deal
    with pytest.raises(BadInput, match="^deal.5: 5 hands of 17 need more than the 80 cards"):
        Rules.from_toml("[deal]\n5 = 17\n")
    with pytest.raises(BadInput, match="rainbow: expected true or false"):
        Rules.from_toml('rainbow = "yes"')
    with pytest.raises(BadInput, match="not valid TOML"):
        Rules.from_toml("threshold = ")
    assert WinteringGround(cards("6g"), Rules.from_toml("threshold = 8")).put(Card(6, "crane")) == 2
