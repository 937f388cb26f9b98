"""Every saved board game is checked by its kind on the shelf: what the rules cannot replay is never kept.

A state that reaches the shelf by another door than the API (a history
import, a script) used to be kept as it came, and the pages then failed on
it; and the table's card limit was counted outside the transaction that kept
the card.
"""

import json
import threading

import pytest

from companion.errors import BadInput
from companion.flock.kind import FLOCK, MAX_CARDS
from companion.geese.kind import GEESE
from companion.records import GameShelf
from companion.records.games import GameKind
from companion.table.games import KINDS

PIN = {"X-Table-Pin": "1234"}
NEST = {"points": [3, 7, 11, 14, 16], "pair": 3}



def test_an_empty_geese_state_is_never_kept_and_the_games_still_answer(table, client):
    game = client.post("/api/geese/games", json={"players": ["ann", "ben", "cho"]}, headers=PIN).json
    with pytest.raises(BadInput) as refused:
        table.games.new_game("geese", {})
    assert refused.value.field == "state.players"
    with pytest.raises(BadInput) as refused:
        table.games.change_game("geese", game["id"], lambda state: {})
    assert refused.value.field == "state.players"
    assert client.get("/api/geese/games").status_code == 200
    undo = client.post(f"/api/geese/games/{game['id']}/undo", json={}, headers=PIN)
    assert undo.status_code == 409 and undo.json["code"] == "errors.nothing_to_undo"


def test_a_one_player_flock_game_is_never_kept_and_the_page_still_answers(table, client):
    two = FLOCK.new("sheet", ["crane", "kite"], 5)
    with pytest.raises(BadInput) as refused:
        table.games.new_game("flock", {**two, "players": ["crane"]})
    assert refused.value.field == "state.players" and refused.value.error_code == "flock.refused.players"
    assert client.get("/flock").status_code == 200


def test_a_state_of_a_mebibyte_is_refused_by_its_size(table):
    state = FLOCK.new("moves", ["crane", "kite"], 5, names={"crane": "A" * 40})
    big = {**state, "log": [{"do": "pass", "spaces": "x" * 1024}] * 1024}  # 1 MiB and more of moves
    with pytest.raises(BadInput) as refused:
        table.games.new_game("flock", big)
    assert refused.value.field == "state" and refused.value.error_code == "errors.too_large"
    assert f"{FLOCK.max_state_bytes // 1024} KiB" in str(refused.value)
    assert table.games.saved_games("flock") == []


def test_the_card_limit_is_kept_by_the_shelf_itself(table):
    for i in range(MAX_CARDS):
        table.games.keep_game_card("flock", f"nest/N{i}", NEST)
    with pytest.raises(BadInput) as refused:
        table.games.keep_game_card("flock", "nest/one more", NEST)
    assert refused.value.error_code == "flock.refused.cards_full"
    table.games.keep_game_card("flock", "nest/N0", {**NEST, "pair": 1})  # kept again under its name: no more room
    assert len(table.games.game_cards("flock")) == MAX_CARDS and table.games.game_cards("flock")["nest/N0"]["pair"] == 1


def test_phones_keeping_cards_at_once_never_pass_the_limit(table):
    for i in range(MAX_CARDS - 10):
        table.games.keep_game_card("flock", f"nest/N{i}", NEST)
    start, refusals = threading.Barrier(4), []

    def keep(phone: int):
        start.wait()
        for i in range(10):
            try:
                table.games.keep_game_card("flock", f"nest/P{phone}-{i}", NEST)
            except BadInput as e:
                refusals.append(e.error_code)

    phones = [threading.Thread(target=keep, args=(p,)) for p in range(4)]
    for phone in phones:
        phone.start()
    for phone in phones:
        phone.join()
    assert len(table.games.game_cards("flock")) == MAX_CARDS
    assert refusals == ["flock.refused.cards_full"] * 30


def test_a_card_of_another_door_is_checked_by_its_kind(table):
    with pytest.raises(BadInput) as refused:
        table.games.keep_game_card("flock", "nest/A", {"points": [], "pair": 0})
    assert refused.value.field == "card.points"
    with pytest.raises(BadInput) as refused:
        table.games.keep_game_card("flock", "owl/A", NEST)
    assert refused.value.field == "type"
    with pytest.raises(BadInput) as refused:
        table.games.keep_game_card("geese", "nest/A", NEST)
    assert refused.value.error_code == "geese.refused.no_cards"
    assert table.games.game_cards("flock") == {} and table.games.game_cards("geese") == {}


# ---- the checks another door (the history import) asks ----------------------------------------

def test_the_shelf_names_what_it_refuses(tmp_path):
    shelf = GameShelf(tmp_path / "g.sqlite3", KINDS)
    assert set(shelf.kinds) == {"flock", "geese"} and all(isinstance(k, GameKind) for k in shelf.kinds.values())
    state = GEESE.act(GEESE.new(["ann", "ben", "cho"]), {"player": "ann", "arrive": [{"n": 2, "suit": "gull"}]})
    assert shelf.check("geese", state) == state
    with pytest.raises(BadInput) as refused:
        shelf.check("owls", state)
    assert refused.value.field == "kind"
    wrong = {**state, "actions": [*state["actions"], {"player": "ann", "arrive": [{"n": 2, "suit": "gull"}]}]}
    with pytest.raises(BadInput) as refused:
        shelf.check("geese", wrong)
    assert refused.value.field == "state.actions[1].player" and refused.value.error_code == "geese.refused.out_of_turn"
    moves = FLOCK.new("moves", ["crane", "kite"], 5)
    with pytest.raises(BadInput) as refused:
        shelf.check("flock", {**moves, "log": [{"do": "pass"}, {"do": "nope"}]})
    assert refused.value.field == "state.log[1].action.do"
    with pytest.raises(BadInput) as refused:
        shelf.check("flock", [])
    assert refused.value.field == "state"
    card = {"spaces": [{"row": 2, "col": 4, "points": 3}, {"row": 1, "col": 0, "points": 1}]}
    assert shelf.check_card("flock", "movement/M1", card) == card
    with pytest.raises(BadInput) as refused:
        shelf.check_card("flock", "movement/ M1", card)
    assert refused.value.field == "name"
    shelf.close()


def test_a_flock_move_replays_the_game_once(tmp_path, monkeypatch):
    """A move is proven by replaying the log once and trying the move on it: the shelf's check and the answer's
    view reuse that game, rather than replaying the whole log twice more (once inside the write)."""
    from companion.flock.game import Game

    shelf = GameShelf(tmp_path / "g.sqlite3", KINDS)
    game = shelf.create("flock", FLOCK.new("moves", ["crane", "kite"], 5))
    for _ in range(3):  # a few moves in: each replays a longer log
        action = FLOCK.view(game["state"])["legal"][0]
        replays, replay = [], Game.replay.__func__
        monkeypatch.setattr(Game, "replay", classmethod(lambda cls, state: replays.append(1) or replay(cls, state)))
        game = shelf.change("flock", game["id"], lambda state: FLOCK.play(state, action))
        shown = FLOCK.view(game["state"])
        monkeypatch.undo()
        assert len(replays) == 1
        assert shown == FLOCK.view(json.loads(json.dumps(game["state"])))  # as a fresh replay shows it
    with pytest.raises(BadInput):  # a state that did not come from a move is still replayed whole
        FLOCK.check({**game["state"], "log": game["state"]["log"][:-1] + [{"do": "fly_side"}]})
