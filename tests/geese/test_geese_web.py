"""The 帰る雁 area through Flask's test client: the score and checker API, tracked games, pages, the live feed."""

import json
import re
import threading
import pytest

from companion.records import GameShelf
from companion.table.games import KINDS, TableGames
from companion.web import create_app
from companion.web.geese.api import view
from companion.web.live import game_stream

PIN = {"X-Table-Pin": "1234"}


def c(n, suit):
    return {"n": n, "suit": suit}


@pytest.fixture
def client(tmp_path):
    """An app on a table that has only what this area asks of it: the PIN and the board games."""
    shelf = GameShelf(tmp_path / "games.sqlite3", KINDS)
    table = TableGames(shelf)
    table.pin = "1234"
    yield create_app(table, testing=True).test_client()
    shelf.close()


def new_game(client, players=("ann", "ben", "cho")):
    answer = client.post("/api/geese/games", json={"players": list(players)}, headers=PIN)
    assert answer.status_code == 201, answer.json
    return answer.json


def test_score_needs_neither_pin_nor_csrf_and_matches_the_rules(client):
    answer = client.post("/api/geese/score", json={
        "players": ["ann", "ben", "cho"],
        "migrations": {"ann": [[c(4, "gull"), c(4, "crane"), c(4, "eagle"), c(4, "thrush")]]}})
    assert answer.status_code == 200
    assert answer.json["players"]["ann"]["migrations"][0] == {"cards": 4, "value": 4, "largest_suit": 1,
                                                              "rainbow": True, "vp": 16}
    assert answer.json["players"]["ann"]["total"] == 16 + 1


def test_an_illegal_record_is_400_naming_the_action(client):
    answer = client.post("/api/geese/score", json={
        "players": ["ann", "ben", "cho"], "wintering": [],
        "actions": [{"player": "ann", "migrate": {"value": 2, "cards": [c(2, "gull"), c(1, "gull")]}}]})
    assert answer.status_code == 400
    assert answer.json["field"] == "actions[0].migrate.cards[1]"
    assert "a 1 can be used only as 1 now, not as 2" in answer.json["error"]


@pytest.mark.parametrize("body", [b"{\"players\": 1e999}", b"[1, 2", "\"\\ud800\"".encode(), b"\xff"])
def test_bodies_that_are_not_json_are_400(client, body):
    answer = client.post("/api/geese/score", data=body, content_type="application/json")
    assert answer.status_code == 400 and answer.json["field"] == "body"


def test_the_checker_finds_every_value_and_the_best_group(client):
    hand = [c(3, "gull"), c(3, "crane"), c(5, "gull"), c(5, "gull"), c(5, "eagle")]
    answer = client.post("/api/geese/check", json={"hand": hand, "wintering": {"3": 2}})
    assert answer.status_code == 200
    assert answer.json["values"] == [5] and answer.json["best"]["vp"] == 15
    assert answer.json["best"]["suit"] == "gull" and answer.json["best"]["of_suit"] == 3
    assert answer.json["split"]["vp"] == 15 and len(answer.json["split"]["migrations"]) == 1
    refused = client.post("/api/geese/check", json={"hand": hand, "wintering": {"7": 1}})
    assert refused.status_code == 400 and refused.json["field"] == "wintering.7"


def test_changes_need_the_pin(client):
    assert client.post("/api/geese/games", json={"players": ["a", "b", "c"]}).status_code == 403
    assert client.post("/api/geese/games", json={"players": ["a", "b", "c"]},
                       headers={"X-Table-Pin": "0000"}).status_code == 403
    game = new_game(client)
    assert client.post(f"/api/geese/games/{game['id']}/undo", json={}).status_code == 403


def test_a_tracked_game_from_setup_to_score(client):
    game = new_game(client)
    gid = game["id"]
    for card in (c(6 - 1, "gull"), c(5, "crane"), c(2, "thrush")):
        game = client.post(f"/api/geese/games/{gid}/setup", json={"card": card, "version": game["version"]},
                           headers=PIN).json
    game = client.post(f"/api/geese/games/{gid}/setup", json={"card": c(2, "thrush"), "put": False},
                       headers=PIN).json
    assert game["ground"][4]["high"] == 7 and game["ground"][1]["w"] == 0
    turn = client.post(f"/api/geese/games/{gid}/actions", headers=PIN, json={
        "version": game["version"], "action": {"player": "ann", "arrive": [c(5, "eagle"), c(5, "thrush")],
                                               "take": c(5, "gull")}})
    assert turn.status_code == 200, turn.json
    game = turn.json
    assert game["log"] == [{"action": 0, "player": "ann", "card": c(5, "thrush"), "vp": 4}]
    assert game["next_player"] == "ben"
    closed = client.post(f"/api/geese/games/{gid}/setup", json={"card": c(1, "gull")}, headers=PIN)
    assert closed.status_code == 400 and "setup is closed" in closed.json["error"]
    illegal = client.post(f"/api/geese/games/{gid}/actions", headers=PIN, json={
        "action": {"player": "ben", "migrate": {"value": 1, "cards": [c(2, "gull")]}}})
    assert illegal.status_code == 400 and illegal.json["field"] == "actions[1].migrate.cards[0]"
    stale = client.post(f"/api/geese/games/{gid}/undo", json={"version": 1}, headers=PIN)
    assert stale.status_code == 409 and stale.json["field"] == "version"
    game = client.post(f"/api/geese/games/{gid}/actions", headers=PIN, json={
        "action": {"player": "ben", "migrate": {"value": 1, "cards": [c(1, "gull")]}}}).json
    assert game["result"]["players"]["ben"]["total"] == 1 + 1
    again = client.get(f"/api/geese/games/{gid}").json
    assert again["version"] == game["version"] and again["actions"] == game["actions"]
    assert [g["id"] for g in client.get("/api/geese/games").json] == [gid]
    page = client.get(f"/geese/games/{gid}/score").get_data(as_text=True)
    assert "ben" in page and "Total: 2 VP" in page and "Wintering ground: 4 VP" in page
    undone = client.post(f"/api/geese/games/{gid}/undo", json={}, headers=PIN).json
    assert len(undone["actions"]) == 1


def test_unknown_games_are_404(client):
    assert client.get("/api/geese/games/99").status_code == 404
    assert client.get("/geese/games/99").status_code == 404
    assert client.get(f"/api/geese/games/{2**63}").status_code == 404


def test_the_pages_in_both_languages(client):
    page = client.get("/geese").get_data(as_text=True)
    assert "every 6" in page and "20 each" in page and ">8<" in page  # 3 players: no 6s, 20 each, 8 to the ground
    client.set_cookie("lang", "ja")
    page = client.get("/geese").get_data(as_text=True)
    assert "6をすべて" in page and "越冬地" in page
    assert client.get("/geese/check").status_code == 200


def test_the_score_sheet_explains_a_tie(client):
    game = new_game(client, ("ann", "ben", "cho"))
    for who in ("ann", "ben"):
        client.post(f"/api/geese/games/{game['id']}/actions", headers=PIN, json={
            "action": {"player": who, "migrate": {"value": 1, "cards": [c(1, "crane")]}}})
    page = client.get(f"/geese/games/{game['id']}/score").get_data(as_text=True)
    assert "ann and ben both have 2 VP: ann is earlier in turn order" in page


def test_the_live_feed_sends_each_new_version(tmp_path):
    shelf = GameShelf(tmp_path / "g.sqlite3", KINDS)
    table = TableGames(shelf)
    game = table.new_game("geese", {"players": ["a", "b", "c"], "wintering": [], "actions": []})
    closing = threading.Event()
    stream = game_stream(table, "geese", game["id"], view, None, keepalive_s=15, retry_ms=3000, closing=closing)
    assert next(stream) == "retry: 3000\n\n"
    first = next(stream)
    assert first.startswith("id: 1\nevent: game\n") and json.loads(first.split("data: ")[1])["version"] == 1
    table.change_game("geese", game["id"], lambda state: {**state, "wintering": [c(3, "gull")]})
    second = next(stream)
    assert second.startswith("id: 2\n") and json.loads(second.split("data: ")[1])["ground"][2]["w"] == 1
    resumed = game_stream(table, "geese", game["id"], view, 1, keepalive_s=15, retry_ms=3000, closing=closing)
    next(resumed)
    assert next(resumed).startswith("id: 2\n")  # a phone that had version 1 gets only what it lacks
    closing.set()
    shelf.close()


def test_the_live_feed_is_served_as_event_stream(client):
    game = new_game(client)
    answer = client.get(f"/api/geese/games/{game['id']}/events", buffered=False)
    assert answer.mimetype == "text/event-stream"
    chunks = answer.response
    assert next(chunks).decode().startswith("retry:")
    assert b"event: game" in next(chunks)
    answer.close()


def test_games_are_kept_on_the_real_tables_shelf(table):
    client = create_app(table, testing=True).test_client()
    game = client.post("/api/geese/games", json={"players": ["a", "b", "c", "d"]}, headers={"X-Table-Pin": table.door.pin})
    assert game.status_code == 201
    assert table.games.game("geese", game.json["id"])["state"]["players"] == ["a", "b", "c", "d"]
    assert "geese" in client.get("/geese").get_data(as_text=True)


AGREED = {"players": ["ann", "ben", "cho", "dan"],
          "wintering": [c(6, "gull"), c(6, "crane"), c(3, "eagle"), c(3, "thrush"), c(1, "goose")],
          "actions": [
              {"player": "ann", "arrive": [c(6, "eagle")]},                                          # 6+3 = 9: 3 VP
              {"player": "ben", "arrive": [c(6, "thrush"), c(2, "gull")], "take": c(6, "gull")},    # 10: 1 VP
              {"player": "cho", "migrate": {"value": 5, "cards": [c(3, "gull"), c(3, "gull"), c(5, "gull"),
                                                                  c(3, "goose"), c(5, "crane")]}},  # 5 × 4 = 20
              {"player": "dan", "migrate": {"value": 3, "cards": [c(3, "crane"), c(2, "eagle"), c(1, "thrush")]}},
          ]}  # dan: 2 can be 3 (w(2) = 1), 1 can be 2 only (w(1) = 1): illegal — see below


def test_the_command_the_api_and_the_page_agree(client, cli, tmp_path):
    record = json.loads(json.dumps(AGREED))
    record["actions"][3] = {"player": "dan", "migrate": {"value": 3, "cards": [c(3, "crane"), c(2, "eagle"),
                                                                               c(3, "thrush")]}}  # rainbow: 9
    expected = {"ann": 3, "ben": 1, "cho": 20, "dan": 9 + 1}
    api = client.post("/api/geese/score", json=record).json
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    done = cli("score", "geese", str(path))
    assert json.loads(done.stdout) == api
    assert {name: p["total"] for name, p in api["players"].items()} == expected
    assert api["ranking"] == ["cho", "dan", "ann", "ben"]
    game = new_game(client, record["players"])
    for card in record["wintering"]:
        client.post(f"/api/geese/games/{game['id']}/setup", json={"card": card}, headers=PIN)
    for action in record["actions"]:
        assert client.post(f"/api/geese/games/{game['id']}/actions", json={"action": action},
                           headers=PIN).status_code == 200
    page = client.get(f"/geese/games/{game['id']}/score").get_data(as_text=True)
    for name, total in expected.items():
        assert f'<strong>{name}</strong> — <span class="total">{total}</span> VP' in page
    assert "5 × 4 (gull 3 + geese 1) = 20 VP" in page
    assert "rainbow (every suit different): 3 × 3 = 9 VP" in page
    assert re.search(r"Wintering ground: 3 VP: #1 <span[^>]*title=\"eagle 6\"", page)  # ann's VP, turn by turn


def test_the_illegal_turn_is_refused_alike(client, cli, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(AGREED))
    done = cli("score", "geese", str(path))
    api = client.post("/api/geese/score", json=AGREED)
    assert done.returncode == 2 and api.status_code == 400
    assert api.json["field"] == "actions[3].migrate.cards[2]"
    assert f"{path}: {api.json['error']}\n" in done.stderr
    assert "a 1 can be used only as 1–2 now, not as 3" in api.json["error"]


def test_a_turn_out_of_turn_is_refused_for_people_and_for_scripts(client):
    game = new_game(client)
    answer = client.post(f"/api/geese/games/{game['id']}/actions", headers=PIN,
                         json={"action": {"player": "ben", "arrive": [c(3, "gull")]}})
    assert answer.status_code == 400
    body = answer.get_json()
    assert body["field"] == "actions[0].player"  # the path, for scripts
    assert body["code"] == "geese.refused.out_of_turn" and body["params"] == {"player": "ben", "turn": "ann"}
    assert body["error"] == "actions[0].player: ben plays out of turn: it is ann's turn"


def test_a_tracked_game_counts_hands_and_the_setup_holds_what_the_deal_leaves(client):
    game = new_game(client, ("ann", "ben", "cho", "dan"))
    assert game["hands"] == {"ann": 18, "ben": 18, "cho": 18, "dan": 18} and game["setup_size"] == 8
    for card in [c(1, "gull")] * 3 + [c(2, "gull")] * 3 + [c(3, "gull")] * 2:
        client.post(f"/api/geese/games/{game['id']}/setup", json={"card": card}, headers=PIN)
    full = client.post(f"/api/geese/games/{game['id']}/setup", json={"card": c(4, "gull")}, headers=PIN)
    assert full.status_code == 400 and full.get_json()["code"] == "geese.refused.setup_full"
    out = client.post(f"/api/geese/games/{game['id']}/setup", json={"card": c(2, "gull"), "put": False}, headers=PIN)
    assert out.status_code == 200 and len(out.get_json()["wintering"]) == 7
    arrived = client.post(f"/api/geese/games/{game['id']}/actions", headers=PIN, json={"action": {
        "player": "ann", "arrive": [c(5, "gull"), c(6, "gull")], "take": c(1, "gull")}})
    view = arrived.get_json()
    assert view["hands"]["ann"] == 17 and view["next_player"] == "ben" and not view["over"]


def test_a_game_exports_as_json_and_csv(client):
    game = new_game(client)
    client.post(f"/api/geese/games/{game['id']}/actions", headers=PIN,
                json={"action": {"player": "ann", "migrate": {"value": 1, "cards": [c(1, "goose")]}}})
    exported = client.get(f"/api/geese/games/{game['id']}/export.json").get_json()
    assert exported["record"]["actions"][0]["player"] == "ann" and exported["over"] is False
    assert exported["result"]["players"]["ann"]["total"] == 1
    rows = client.get(f"/api/geese/games/{game['id']}/export.csv").get_data(as_text=True).splitlines()
    assert rows[0].startswith("game,place,player") and rows[1].split(",")[2] == "ann" and len(rows) == 4


def test_every_refusal_a_player_meets_has_a_sentence_in_both_languages(client):
    import re
    from pathlib import Path

    from companion.web.i18n import catalog

    root = Path(__file__).resolve().parents[2] / "companion"
    codes = set()
    for folder in ("geese", "flock", "web/geese", "web/flock"):
        for source in (root / folder).glob("*.py"):
            codes |= set(re.findall(r'code="([a-z_.]+)"', source.read_text(encoding="utf-8")))
    codes |= set(re.findall(r'"(?:geese|flock)\.refused\.[a-z_]+"',
                            (root / "geese/replay.py").read_text(encoding="utf-8")))
    codes = {c.strip('"') for c in codes}
    assert {"geese.refused.out_of_turn", "flock.refused.empty"} <= codes
    for lang in ("en", "ja"):
        assert sorted(codes - set(catalog(lang))) == [], lang
    assert catalog("ja")["geese.refused.out_of_turn"] != catalog("en")["geese.refused.out_of_turn"]


def test_a_three_player_game_hands_its_pages_the_deck_without_sixes(client):
    gid = new_game(client)["id"]  # three players: the 6s are out of the deck
    page = client.get(f"/geese/games/{gid}").get_data(as_text=True)
    assert 'data-players="3"' in page
    rules = json.loads(re.search(r'data-rules="([^"]*)"', page)[1].replace("&#34;", '"').replace("&quot;", '"'))
    assert rules["removed"] == {"3": [6], "4": [], "5": []}
    assert 'id="turn-player"' not in page and 'id="migrate-value"' not in page  # the table knows both
    assert 'data-players="3"' in client.get(f"/geese/check?game={gid}").get_data(as_text=True)
    assert "data-players" not in client.get("/geese/check").get_data(as_text=True)


def test_a_score_that_lost_the_no_goose_bonus_says_so(client):
    game = new_game(client)
    gid = game["id"]
    for card in (c(1, "gull"), c(1, "crane"), c(2, "gull"), c(2, "crane"), c(3, "gull"), c(3, "crane"),
                 c(4, "gull"), c(4, "crane")):
        game = client.post(f"/api/geese/games/{gid}/setup", json={"card": card}, headers=PIN).json
    assert game["bonus_lost"] == {"ann": False, "ben": False, "cho": False}
    game = client.post(f"/api/geese/games/{gid}/actions", headers=PIN, json={
        "action": {"player": "ann", "migrate": {"value": 1, "cards": [c(1, "thrush")]}}}).json
    assert game["result"]["players"]["ann"]["total"] == 1 + 1 and not game["bonus_lost"]["ann"]
    game = client.post(f"/api/geese/games/{gid}/actions", headers=PIN, json={
        "action": {"player": "ben", "arrive": [c(5, "gull")]}}).json
    game = client.post(f"/api/geese/games/{gid}/actions", headers=PIN, json={
        "action": {"player": "cho", "arrive": [c(5, "crane")]}}).json
    game = client.post(f"/api/geese/games/{gid}/actions", headers=PIN, json={
        "action": {"player": "ann", "migrate": {"value": 1, "cards": [c(1, "goose")]}}}).json
    # two migrations: 1 + 1 VP, and the bonus of 2² = 4 lost to the goose; the page is told why
    assert game["result"]["players"]["ann"]["total"] == 1 + 1 and game["bonus_lost"] == {
        "ann": True, "ben": False, "cho": False}
