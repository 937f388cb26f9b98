"""Properties over many boards and games: landing, order of players, and the column rule under any play."""

import random

from hypothesis import given, settings, strategies as st

from companion.errors import BadInput
from companion.flock import score
from companion.flock.birds import COLUMN_LIMIT, ROWS, SPECIES, columns_for
from companion.flock.board import check_columns, count, land
from companion.flock.game import CARD_COSTS, STANDARD, Game
from companion.flock.moves import FLIGHTS


@st.composite
def boards(draw):
    """(players, a legal board): columns of 0-3 birds, each a block ending at the back row."""
    players = list(draw(st.permutations(SPECIES)))[:draw(st.integers(2, 4))]
    owners = [*players, "neutral"]
    columns = columns_for(len(players))
    left = {p: 5 for p in owners}
    board = [[None] * columns for _ in range(ROWS)]
    for c in range(columns):
        for r in range(ROWS - 1, ROWS - 1 - draw(st.integers(0, COLUMN_LIMIT)), -1):
            owner = draw(st.sampled_from([o for o in owners if left[o] > 0]))
            left[owner] -= 1
            sex = {} if owner == "neutral" else {"sex": draw(st.sampled_from("MF"))}
            board[r][c] = {"owner": owner, **sex}
    return players, board


NEST = {"points": [1, 3, 6, 10, 15, 21, 28], "pair": -1}


@settings(max_examples=80, deadline=None)
@given(boards())
def test_landing_removes_exactly_the_front_bird_of_each_non_empty_column(case):
    players, board = case
    landed, after = land(board)
    assert len(landed) == sum(1 for c in range(len(board[0])) if count(board, c))
    for c in range(len(board[0])):
        assert count(after, c) == max(0, count(board, c) - 1)
    check_columns(after)


@settings(max_examples=60, deadline=None)
@given(boards(), st.randoms(use_true_random=False))
def test_scores_do_not_depend_on_the_order_of_the_players(case, rng):
    players, board = case
    card = {"spaces": [{"row": 2, "col": 0, "points": 2}, {"row": 1, "col": 1, "points": 3}]}
    data = {"players": players, "board": board, "nest": NEST, "final": True,
            "movement_cards": {p: [card] for p in players}}
    shuffled = players[:]
    rng.shuffle(shuffled)
    one, other = score(data), score({**data, "players": shuffled})
    assert one["scores"] == other["scores"] and one["landed"] == other["landed"]
    assert sorted(one["winners"]) == sorted(other["winners"])


@settings(max_examples=40, deadline=None)
@given(boards(), st.randoms(use_true_random=False))
def test_scores_do_not_depend_on_the_order_of_the_movement_cards(case, rng):
    players, board = case
    spaces = [[{"row": r, "col": c, "points": r + c} for r in range(ROWS) for c in range(len(board[0]))]]
    cards = [{"spaces": [a, b]} for a, b in zip(spaces[0][::2], spaces[0][1::2])]
    hands = {p: cards for p in players}
    shuffled = {p: rng.sample(cards, len(cards)) for p in players}
    data = {"players": players, "board": board, "nest": NEST}
    assert score({**data, "movement_cards": hands})["scores"] == score({**data, "movement_cards": shuffled})["scores"]


def candidate(rng: random.Random, columns: int) -> dict:
    """Any action at all, legal or not: the game must refuse or keep its rules."""
    space = lambda: [rng.randrange(ROWS), rng.randrange(columns)]  # noqa: E731
    kind = rng.choice([*STANDARD, "card", "pass"])
    action = {"do": kind, "from": space(), "to": space(), "bird": rng.choice(["deck", 0, 1]),
              "col": rng.randrange(columns), "at": rng.choice(["front", "back"])}
    if kind == "card":
        action["card"] = rng.choice(list(CARD_COSTS))
        action["as"] = rng.choice([*FLIGHTS, "standard"])
        action["action"] = {**action, "do": rng.choice(STANDARD)}
        action["spaces"] = [{"row": 0, "col": 0, "points": 1}, {"row": 2, "col": 1, "points": 2}]
    return action


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 4))
def test_no_legal_action_breaks_the_column_rule_or_the_bird_count(seed, n):
    rng = random.Random(seed)
    game = Game(list(SPECIES[:n]), seed)
    tiles = 5 * n + 5
    columns = columns_for(n)
    for _ in range(300):
        if game.over:
            break
        try:
            if game.turn is None:
                game.apply({"do": "land", "nest": NEST})
            else:
                game.apply(candidate(rng, columns))
        except BadInput:
            continue
        check_columns(game.board)
        on_board = sum(cell is not None for row in game.board for cell in row)
        assert on_board + len(game.deck) + len(game.face_up) == tiles
        assert all(0 <= c for c in game.cubes.values())
        spent = sum(game.full_cubes.values()) - sum(game.cubes.values())
        assert spent == game.nest_cubes + sum(s["cubes"] for s in game.spaces.values())  # no cube lost or made
        assert all(0 <= h <= 4 for h in game.hands.values())
