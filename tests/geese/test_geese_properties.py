"""Properties of 帰る雁 over many random games and migrations (hypothesis, bounded)."""

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.geese import DEFAULT_RULES, Card, deck, score, score_migration
from companion.geese.game import Game
from companion.geese.simulate import play_game
from companion.geese.strategies import STRATEGIES, play, random_player

BOUNDED = settings(max_examples=40, deadline=None)
all_cards = st.sampled_from(sorted(set(deck(DEFAULT_RULES, 4))))
migrations = st.lists(all_cards, min_size=1, max_size=9)


@BOUNDED
@given(seed=st.integers(0, 2**32), players=st.sampled_from([3, 4, 5]))
def test_a_random_legal_game_keeps_every_card(seed, players):
    rng = random.Random(seed)
    game = Game(players, rng)
    size = 68 if players == 3 else 80
    while not game.over:
        play(game, random_player(game, rng))
        assert game.cards_in_play() == size
    assert game.ending and any(not hand for hand in game.hands)


@BOUNDED
@given(cards=migrations, seed=st.integers(0, 1000))
def test_scoring_does_not_depend_on_card_order(cards, seed):
    shuffled = list(cards)
    random.Random(seed).shuffle(shuffled)
    assert score_migration(cards, len(cards)) == score_migration(shuffled, len(cards))


@BOUNDED
@given(cards=migrations)
def test_the_rainbow_reading_never_lowers_a_score(cards):
    with_rainbow = score_migration(cards, len(cards)).vp
    without = score_migration(cards, len(cards), replace(DEFAULT_RULES, rainbow=False)).vp
    assert with_rainbow >= without
    assert without == len(cards) * score_migration(cards, len(cards)).largest_suit


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([3, 4, 5]),
       names=st.lists(st.sampled_from(sorted(STRATEGIES)), min_size=1, max_size=4))
def test_every_simulated_action_is_legal_and_the_record_scores_the_same(seed, players, names):
    kept = []
    outcome = play_game(DEFAULT_RULES, tuple(names), seed=seed, number=0, seats=players, keep=kept)
    game = kept[0]
    seat_names = [f"p{i}" for i in range(players)]
    result = score(game.record(seat_names))  # the replay checks every action against the rules again
    assert tuple(result["players"][name]["total"] for name in seat_names) == outcome.totals
    assert result["winner"] == seat_names[outcome.winner]


@BOUNDED
@given(cards=st.lists(all_cards, min_size=1, max_size=6, unique=True))
def test_cards_of_distinct_suits_score_a_square(cards):
    if len({c.suit for c in cards}) == len(cards) and len(cards) > 1:
        assert score_migration(cards, len(cards)).vp == len(cards) ** 2


def test_card_values_are_plain_tuples():
    assert Card(2, "gull") == (2, "gull")


@settings(max_examples=60, deadline=None)
@given(hand=st.lists(all_cards, min_size=1, max_size=8), w=st.lists(st.integers(0, 3), min_size=6, max_size=6))
def test_the_best_group_is_the_best_of_every_choice(hand, w):
    from itertools import combinations

    from companion.geese import WinteringGround
    from companion.geese.grouping import best_group

    ground = WinteringGround()
    ground.w = [0, *w]
    for value in range(1, 10):
        usable = [c for c in hand if ground.usable(c, value)]
        group = best_group(hand, ground, value)
        if len(usable) < value:
            assert group is None
            continue
        best = max(score_migration(list(cards), value).vp for cards in combinations(usable, value))
        assert group.vp == best and len(group.cards) == value
        assert all(ground.usable(c, value) for c in group.cards)


@settings(max_examples=40, deadline=None)
@given(hand=st.lists(all_cards, min_size=1, max_size=12), w=st.lists(st.integers(0, 3), min_size=6, max_size=6))
def test_a_split_of_the_hand_is_legal_and_no_worse_than_its_best_group(hand, w):
    from collections import Counter

    from companion.geese import WinteringGround
    from companion.geese.grouping import best_split, every_value

    ground = WinteringGround()
    ground.w = [0, *w]
    split = best_split(hand, ground)
    used = Counter(card for group in split for card in group.cards)
    assert not used - Counter(hand)  # only cards of the hand, each once
    for group in split:
        assert len(group.cards) == group.value and all(ground.usable(c, group.value) for c in group.cards)
    assert sum(g.vp for g in split) >= max((g.vp for g in every_value(hand, ground)), default=0)
