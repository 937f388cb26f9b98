"""The Über den Wolken JSON API through Flask's test client: stage scoring, setup, saved games, cards, the live feed."""

import json
import threading

import pytest

from companion.records import GameShelf
from companion.table.games import KINDS, TableGames
from companion.web import create_app
from companion.flock.kind import FLOCK
from companion.web.flock.api import answer
from companion.web.live import game_stream
from flockdata import NEST_EXAMPLE, board

PIN = {"X-Table-Pin": "1234"}
STAGE = {"players": ["crane", "kite"], "nest": {"points": [3, 7, 11], "pair": 3},
         "board": board(". . . . .", ". kM . . .", "cF kF kM . n"),
         "movement_cards": {"kite": [{"spaces": [{"row": 2, "col": 1, "points": 4},
                                                 {"row": 0, "col": 0, "points": 1}]}]}}


@pytest.fixture
def client(tmp_path):
    from companion.table import demo_table

    table = demo_table(tmp_path / "t.sqlite3", pin="1234")
    yield create_app(table, testing=True).test_client()
    table.stop()


def test_stage_scoring_needs_neither_pin_nor_csrf_and_agrees_with_the_hand_count(client):
    answer = client.post("/api/flock/stage", data=json.dumps(STAGE), content_type="application/json")
    assert answer.status_code == 200
    assert answer.json["scores"]["kite"] == {"nest": 7, "movement": 4, "stage": 11, "total": 11}
    assert answer.json["scores"]["crane"]["total"] == 3
    assert list(answer.json) == ["landed", "board_after_landing", "scores", "birds_on_board"]


@pytest.mark.parametrize("body, field", [
    ('{"players": ["crane", "kite"], "nest": {"points": [3], "pair": 0}, "board": [[null,null,null,null,null],'
     '[null,null,{"owner":"kite","sex":"M"},null,null],[null,null,null,null,null]]}', "board[2][2]"),
    ('{"players": NaN}', "body"),
    ('[1, 2]', "body"),
    ('{"players": ["crane", "kite"]}', "board"),
])
def test_bad_stage_input_is_400_naming_the_field(client, body, field):
    answer = client.post("/api/flock/stage", data=body, content_type="application/json")
    assert answer.status_code == 400 and answer.json["field"] == field
    assert "Traceback" not in answer.json["error"]


def test_setup_preview_is_reproducible_and_refuses_bad_players(client):
    one = client.get("/api/flock/setup?players=crane,kite,goose&seed=42").json
    assert one == client.get("/api/flock/setup?players=crane,kite,goose&seed=42").json
    assert one["columns"] == 6 and one["seed"] == 42
    bad = client.get("/api/flock/setup?players=crane,owl")
    assert bad.status_code == 400 and bad.json["field"] == "players[1]"
    assert client.get("/api/flock/setup?players=crane,kite&seed=x").json["field"] == "seed"


def test_games_need_the_pin_and_keep_every_move_with_undo(client):
    assert client.post("/api/flock/games", json={"players": ["crane", "kite"]}).status_code == 403
    game = client.post("/api/flock/games", json={"players": ["crane", "kite"], "seed": 5}, headers=PIN)
    assert game.status_code == 201 and game.json["version"] == 1
    gid, first = game.json["id"], game.json["view"]["turn"]
    moved = client.post(f"/api/flock/games/{gid}/actions", json={"action": {"do": "pass"}, "version": 1}, headers=PIN)
    assert moved.status_code == 200 and moved.json["view"]["cubes"][first] == 8
    stale = client.post(f"/api/flock/games/{gid}/actions", json={"action": {"do": "pass"}, "version": 1}, headers=PIN)
    assert stale.status_code == 409 and stale.json["field"] == "version" and stale.json["version"] == 2
    assert stale.json["code"] == "errors.version_clash" and "now version 2" in stale.json["error"]
    illegal = client.post(f"/api/flock/games/{gid}/actions", json={"action": {"do": "land", "nest": NEST_EXAMPLE}},
                          headers=PIN)
    assert illegal.status_code == 400 and "every cube" in illegal.json["error"]
    undone = client.post(f"/api/flock/games/{gid}/undo", json={"version": 2}, headers=PIN)
    assert undone.json["view"]["cubes"][first] == 10 and undone.json["view"]["moves"] == 0
    assert client.get(f"/api/flock/games/{gid}").json["version"] == 3  # resumable from any phone
    assert client.get("/api/flock/games").json[0]["id"] == gid
    assert client.get(f"/flock/games/{gid}").status_code == 200
    assert client.get("/api/flock/games/999").status_code == 404


def test_a_sheet_takes_three_stages_and_names_the_winner(client):
    sheet = client.post("/api/flock/games", json={"mode": "sheet", "players": ["crane", "kite"], "seed": 2},
                        headers=PIN).json
    gid = sheet["id"]
    assert sheet["view"]["next_board"] and sheet["view"]["stage"] == 1
    stage = {"board": STAGE["board"], "nest": STAGE["nest"], "movement_cards": STAGE["movement_cards"]}
    for _ in range(3):
        answer = client.post(f"/api/flock/games/{gid}/stages", json={"stage": stage}, headers=PIN)
        assert answer.status_code == 200
    view = answer.json["view"]
    assert view["totals"] == {"crane": 9, "kite": 33} and view["winners"] == ["kite"] and view["tie_break"] == "points"
    full = client.post(f"/api/flock/games/{gid}/stages", json={"stage": stage}, headers=PIN)
    assert full.status_code == 409
    wrong = client.post(f"/api/flock/games/{gid}/actions", json={"action": {"do": "pass"}}, headers=PIN)
    assert wrong.status_code == 409 and wrong.json["field"] == "mode"


def test_cards_are_entered_once_and_kept(client):
    assert client.post("/api/flock/cards", json={"type": "nest", "name": "A", "card": NEST_EXAMPLE}).status_code == 403
    saved = client.post("/api/flock/cards", json={"type": "nest", "name": "Nest A", "card": NEST_EXAMPLE}, headers=PIN)
    assert saved.status_code == 201
    card = {"spaces": [{"row": 2, "col": 4, "points": 3}, {"row": 1, "col": 0, "points": 1}]}
    client.post("/api/flock/cards", json={"type": "movement", "name": "M1", "card": card}, headers=PIN)
    kept = client.get("/api/flock/cards").json
    assert kept["nest"]["Nest A"] == NEST_EXAMPLE and kept["movement"]["M1"] == card
    bad = client.post("/api/flock/cards", json={"type": "nest", "name": "B", "card": {"points": [], "pair": 0}},
                      headers=PIN)
    assert bad.status_code == 400 and bad.json["field"] == "card.points"


def test_the_live_feed_sends_each_new_version_of_a_game(tmp_path):
    shelf = GameShelf(tmp_path / "g.sqlite3", KINDS)
    table = TableGames(shelf)
    game = table.new_game("flock", FLOCK.new("sheet", ["crane", "kite"], 5))
    stream = game_stream(table, "flock", game["id"], answer, None, keepalive_s=15.0, retry_ms=3000,
                         closing=threading.Event())
    assert next(stream).startswith("retry:")
    assert next(stream).startswith("id: 1\nevent: game\n")
    table.change_game("flock", game["id"], lambda state: state)
    assert next(stream).startswith("id: 2\nevent: game\n")
    resumed = game_stream(table, "flock", game["id"], answer, 2, keepalive_s=0.0, retry_ms=3000,
                          closing=threading.Event())
    next(resumed)
    assert next(resumed) == ": keep-alive\n\n"  # a phone that has version 2 waits for the next
    shelf.close()


def test_a_phone_reconnecting_with_a_foreign_last_event_id_hears_the_next_change(tmp_path):
    """An id the game never reached (from another database) is unknown: the phone is brought up to date."""
    shelf = GameShelf(tmp_path / "g.sqlite3", KINDS)
    table = TableGames(shelf)
    game = table.new_game("flock", FLOCK.new("sheet", ["crane", "kite"], 5))
    stream = game_stream(table, "flock", game["id"], answer, 99, keepalive_s=15.0, retry_ms=3000,
                         closing=threading.Event())
    next(stream)
    assert next(stream).startswith("id: 1\nevent: game\n")  # the current state, not silence
    table.change_game("flock", game["id"], lambda state: state)
    assert next(stream).startswith("id: 2\nevent: game\n")  # and the next change
    shelf.close()


def test_the_phone_api_sends_the_current_game_to_a_foreign_last_event_id(client):
    game = client.post("/api/flock/games", json={"players": ["crane", "kite"], "seed": 5}, headers=PIN).json
    answer_ = client.get(f"/api/flock/games/{game['id']}/events", headers={"Last-Event-ID": "12345"}, buffered=False)
    chunks = answer_.response
    assert next(chunks).decode().startswith("retry:")
    assert next(chunks).decode().startswith("id: 1\nevent: game\n")
    answer_.close()


def test_undo_with_nothing_to_undo_is_409_with_one_code(client):
    game = client.post("/api/flock/games", json={"players": ["crane", "kite"], "seed": 5}, headers=PIN).json
    empty = client.post(f"/api/flock/games/{game['id']}/undo", json={}, headers=PIN)
    assert empty.status_code == 409 and empty.json["code"] == "errors.nothing_to_undo"


def test_a_stage_the_nest_card_cannot_score_is_refused_when_entered_and_the_games_page_still_answers(client):
    game = client.post("/api/flock/games", json={"mode": "sheet", "players": ["crane", "kite"], "seed": 5},
                       headers=PIN).json
    three = board(". . . . .", ". kM . . .", "kF kF kM . n")  # kite lands three birds
    stage = {"board": three, "nest": {"points": [3], "pair": 0}}  # points for one bird landed only
    refused = client.post(f"/api/flock/games/{game['id']}/stages", json={"stage": stage}, headers=PIN)
    assert refused.status_code == 400 and refused.json["field"] == "stage.nest.points"
    assert refused.json["code"] == "flock.refused.nest_short"
    assert client.get(f"/api/flock/games/{game['id']}").json["version"] == 1  # nothing kept of it
    assert client.get("/flock").status_code == 200 and client.get(f"/flock/games/{game['id']}").status_code == 200
    stage["nest"] = NEST_EXAMPLE
    assert client.post(f"/api/flock/games/{game['id']}/stages", json={"stage": stage}, headers=PIN).status_code == 200


def test_an_action_with_a_field_no_action_has_is_refused_naming_it(client):
    game = client.post("/api/flock/games", json={"players": ["crane", "kite"], "seed": 5}, headers=PIN).json
    answer = client.post(f"/api/flock/games/{game['id']}/actions", json={"action": {"do": "pass", "count": 2}},
                         headers=PIN)
    assert answer.status_code == 400 and answer.json["field"] == "action.count"
    assert answer.json["code"] == "errors.unknown_field"
