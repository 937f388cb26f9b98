"""Setup from a seed: the triangle, the deck, cubes, movement cards, and who starts."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from companion.errors import BadInput
from companion.flock.birds import SPECIES, depths
from companion.flock.board import check_columns, count, start_player
from companion.flock.setup import setup
from flockdata import board


@pytest.mark.parametrize("players, columns, birds, cubes, display", [
    (["crane", "kite"], 5, 9, 10, 4),
    (["crane", "kite", "goose"], 6, 12, 13, 5),
    (["crane", "kite", "goose", "swallow"], 7, 15, 16, 6),
])
def test_setup_sizes_by_player_count(players, columns, birds, cubes, display):
    s = setup(players, random.Random(1))
    assert s["columns"] == columns and len(s["board"][0]) == columns
    assert sum(cell is not None for row in s["board"] for cell in row) == birds
    assert all(n == cubes for n in s["cubes"].values())
    assert s["display"] == display and all(n == 2 for n in s["hands"].values())
    assert len(s["face_up"]) == 2 and len(s["deck"]) == 2 * len(players) + 2 - 2


def test_depths_are_the_triangles_of_the_rules():
    assert depths(5) == [1, 2, 3, 2, 1]
    assert depths(6) == [1, 2, 3, 3, 2, 1]
    assert depths(7) == [1, 2, 3, 3, 3, 2, 1]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.permutations(SPECIES), st.integers(2, 4))
def test_setup_always_lays_a_legal_triangle_with_the_right_birds(seed, species, n):
    players = list(species[:n])
    s = setup(players, random.Random(seed))
    check_columns(s["board"])
    assert [count(s["board"], c) for c in range(s["columns"])] == depths(s["columns"])
    on_board = [cell for row in s["board"] for cell in row if cell]
    for p in players:
        mine = [b for b in on_board if b["owner"] == p]
        assert sorted(b["sex"] for b in mine) == ["F", "F", "M"]
        in_deck = [b for b in s["deck"] + s["face_up"] if b["owner"] == p]
        assert len(in_deck) == 2
    assert sum(b["owner"] == "neutral" for b in on_board) == 3
    assert sum(b["owner"] == "neutral" for b in s["deck"] + s["face_up"]) == 2
    assert s == setup(players, random.Random(seed))  # reproducible from the seed


def test_the_start_player_has_most_birds_in_the_front_row_then_the_front_two_rows_then_by_lot():
    front = board("kF . . . .", "cF cF . . .", "cM cF . . .")
    assert start_player(front, ["crane", "kite"], random.Random(0)) == ("kite", "front_row")
    two_rows = board(". . . . .", "cF kF cF . .", "kM kF kM . .")
    assert start_player(two_rows, ["crane", "kite"], random.Random(0)) == ("crane", "front_rows")
    tied = board(". . . . .", "cF kF . . .", "kM cF . . .")
    picked = {start_player(tied, ["crane", "kite"], random.Random(seed))[0] for seed in range(20)}
    assert picked == {"crane", "kite"}
    assert start_player(tied, ["crane", "kite"], random.Random(5))[1] == "random"


def test_setup_refuses_a_bad_player_list_naming_it():
    with pytest.raises(BadInput) as refused:
        setup(["crane", "owl"], random.Random(0))
    assert refused.value.field == "players[1]"
