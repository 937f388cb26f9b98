"""The progress pages and their JSON: every figure said in a sentence and shown as a table in both languages, within
the page budget at a long history, the charts' two outcome colours apart for colour-blind eyes."""

import gzip
import importlib.util
import itertools
import re
from pathlib import Path

import pytest

from companion.records.fakes import RUN_OUT_GLASSES, show_with_runouts
from companion.skyrockets.festivals import event_id
from companion.web import PAGE_BUDGET, create_app
from companion.web.progress.charts import OUTCOME

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["/progress", "/progress/trouble", "/progress/flock", "/progress/geese", "/progress/tonight"]
FIGURES = ["campaign", "trouble", "flock", "geese", "tonight"]
NIGHT = 1_767_290_400.0  # 2026-01-01 18:00 UTC


def colour_check():
    """The colour-vision test of the timer fills, so the charts' colours answer to the same simulation."""
    spec = importlib.util.spec_from_file_location("colour_blind", ROOT / "tests" / "web" / "test_colour_blind.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def client(table):
    return create_app(table, testing=True).test_client()


def history(table, shows: int) -> None:
    """`shows` shows over the campaign's events, ten an evening, every pattern of run-outs in turn."""
    patterns = [p for n in range(4) for p in itertools.combinations(RUN_OUT_GLASSES, n)]
    for i in range(shows):
        show_with_runouts(table.store, event_id(2 + i % 29), patterns[i % len(patterns)],
                          wall=NIGHT + (i // 10) * 86400 + (i % 10) * 300)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_figure_is_said_in_a_sentence_in_the_pages_language(client, table, lang):
    history(table, 30)
    client.set_cookie("lang", lang)
    for path in PAGES:
        page = client.get(path).get_data(as_text=True)
        assert client.get(path).status_code == 200, path
        assert "progress." not in re.sub(r'"[^"]*"', "", page), f"{path}: a raw catalogue key"
        assert "<script>" not in page and " style=" not in page and " on" + "click" not in page
        assert page.count('class="sentence"') >= (path != "/progress/tonight"), path  # tonight: the recap's lines
    trouble = client.get("/progress/trouble").get_data(as_text=True)
    losses = client.get("/api/progress/trouble").json["losses"]
    if lang == "en":
        assert "ran out in" in trouble and f"of your {losses} losses" in trouble
    else:
        assert f"失敗した{losses}回のうち" in trouble


def test_each_figure_has_its_json_as_the_table_computes_it(client, table):
    history(table, 12)
    for figure in FIGURES:
        answer = client.get(f"/api/progress/{figure}")
        assert answer.status_code == 200
        expected = (table.progress.players(figure) if figure in ("flock", "geese")
                    else getattr(table.progress, figure)())
        assert answer.json == expected


def test_tonights_recap_is_a_picture_and_a_text_to_share(client, table, clock):
    show_with_runouts(table.store, "event-02", ("red",), wall=clock.wall() - 60)
    picture = client.get("/progress/tonight.svg")
    assert picture.headers["Content-Type"].startswith("image/svg+xml")
    assert picture.get_data(as_text=True).startswith("<svg") and "1 won, 0 lost" in picture.get_data(as_text=True)
    page = client.get("/progress/tonight").get_data(as_text=True)
    assert 'id="share-button"' in page and "1 won, 0 lost" in page and 'id="picture-button"' in page


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_progress_page_stays_in_the_budget_at_a_long_history(client, table, lang):
    history(table, 600)  # sixty nights, every event tried twenty times and more: the strips and the columns full
    client.set_cookie("lang", lang)
    for path in PAGES:
        page = client.get(path, headers={"Accept-Encoding": "gzip"})
        zipped = page.headers.get("Content-Encoding") == "gzip"
        text = (gzip.decompress(page.data) if zipped else page.data).decode()
        total = len(page.data)
        assets = re.findall(r'(?:href|src)="(/[^"]+\.(?:css|js))"', text)
        assets.append(re.search(r'data-catalog="([^"]+)"', text)[1].replace("&amp;", "&"))
        for asset in set(assets):
            total += len(client.get(asset, headers={"Accept-Encoding": "gzip"}).data)
        assert total <= PAGE_BUDGET, (path, total)


@pytest.mark.parametrize("vision", ["normal", "protanopia", "deuteranopia", "tritanopia"])
def test_a_win_and_a_loss_stay_apart_for_colour_blind_eyes(vision):
    check = colour_check()
    win, loss = (check.seen(OUTCOME[o], vision) for o in ("win", "loss"))
    assert check.ciede2000(win, loss) >= check.MIN_DELTA_E


def take_the_whole_budget(monkeypatch, clock, name: str) -> None:
    """Each call of the figure book's `name` takes a page's whole replay budget on the table's clock."""
    from companion.records import figures as figure_book

    real = getattr(figure_book, name)

    def slow(*args, **kwargs):
        clock.advance(figure_book.REPLAY_BUDGET_S)
        return real(*args, **kwargs)

    monkeypatch.setattr(figure_book, name, slow)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_what_goes_wrong_says_how_many_shows_are_counted_while_they_are_counted(client, table, clock, monkeypatch,
                                                                                lang):
    history(table, 5)
    take_the_whole_budget(monkeypatch, clock, "show_figures")  # a journal's replay: one a reading
    client.set_cookie("lang", lang)
    page = client.get("/progress/trouble").get_data(as_text=True)
    assert ("figures: 1 of 5 so far." if lang == "en" else "5回のうち1回まで") in page
    assert client.get("/api/progress/trouble").json["counting"] == {"counted": 2, "shows": 5}
    table.progress.fill()
    assert client.get("/api/progress/trouble").json["counting"] is None
    assert "role=\"status\"" not in client.get("/progress/trouble").get_data(as_text=True)


def seat(name: str, score: int, winner: bool) -> dict:
    return {"name": name, "score": score, "winner": winner, "values": [], "no_goose_bonus": 0}


# ann and ben each beat the other once and both beat cho: a shared first place, explained; cho last.
SHARED_LEAD = [{"kind": "geese", "over": True, "wall": NIGHT + i, "players": players} for i, players in enumerate([
    [seat("ann", 30, True), seat("ben", 20, False), seat("cho", 10, False)],
    [seat("ann", 20, False), seat("ben", 30, True), seat("cho", 10, False)]])]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_head_to_head_is_a_ranking_with_its_chart_table_and_a_shared_place_said(client, table, monkeypatch, lang):
    from companion.progress.players import per_player

    monkeypatch.setattr(table.progress, "players", lambda kind: per_player(SHARED_LEAD, kind))
    client.set_cookie("lang", lang)
    page = client.get("/progress/geese").get_data(as_text=True)
    said = re.search(r'id="ranking-sentence">([^<]+)<', page)[1]
    assert said == ("ann, ben share the lead head to head: each finished ahead in 3 of 4 meetings."
                    if lang == "en" else
                    "直接対決の首位はann、benが分け合っています：どちらも4回の対戦のうち3回上位で終えました。")
    table_rows = re.findall(r"<tr><td>(\d)</td><th scope=\"row\">(\w+)</th><td>(\d)</td><td>(\d)</td>",
                            page.split('id="ranking-title"')[1])
    assert table_rows == [("1", "ann", "3", "1"), ("1", "ben", "3", "1"), ("3", "cho", "0", "4")]
    assert page.count('class="help ranking-tie"') == 1
    ranking = client.get("/api/progress/geese").json["ranking"]
    assert [(r["place"], r["name"], r["share"]) for r in ranking["rows"]] == [(1, "ann", 75), (1, "ben", 75),
                                                                             (3, "cho", 0)]


FLOCK_NEST = {"points": [3, 7, 11, 14, 16], "pair": 3}
BOTH_SPACES = 2  # the rules' bonus for holding both spaces a movement card marks


def held_points(card: list[dict], board, player: str) -> int:
    """A movement card's points counted by hand: the spaces of `board` the player's birds stand on, and the
    bonus when they stand on both."""
    held = [space for space in card if (board[space["row"]][space["col"]] or {}).get("owner") == player]
    return sum(space["points"] for space in held) + (BOTH_SPACES if len(held) == len(card) else 0)


def card_for(board, player: str) -> list[dict]:
    """Two spaces to score: one the player holds now (when they hold any), the space beside it otherwise."""
    mine = [(r, c) for r, row in enumerate(board) for c, bird in enumerate(row) if (bird or {}).get("owner") == player]
    r, c = mine[0] if mine else (0, 0)
    return [{"row": r, "col": c, "points": 4}, {"row": (r + 1) % len(board), "col": c, "points": 5}]


def landing_card(board, player: str) -> list[dict]:
    """Two spaces to score at a landing, on the board after it: the front bird of each column leaves and the
    others move up one, so a bird of the player's second or further in its column stands one row further up."""
    for c in range(len(board[0])):
        birds = [row[c] for row in board if row[c] is not None]
        for k, bird in enumerate(birds[1:]):
            if bird["owner"] == player:
                return [{"row": k, "col": c, "points": 3}, {"row": (k + 1) % len(board), "col": c, "points": 6}]
    return card_for(board, player)


def test_movement_card_points_of_a_whole_game_are_seen_by_stage_and_card_type(client, table):
    """Über den Wolken played to its end through the API: movement cards taken, a score card played in each stage
    by whoever can, the cards in hand scored at each landing; each player's points by stage, from nests and from
    movement cards on the progress page and its JSON are those counted here card by card."""
    pin = {"X-Table-Pin": table.door.pin}
    players = ["crane", "kite"]
    gid = client.post("/api/flock/games", json={"players": players, "seed": 4}, headers=pin).json["id"]
    movement = {p: [0] for p in players}  # counted here: each player's movement points, stage by stage
    view = client.get(f"/api/flock/games/{gid}").json["view"]
    while not view["over"]:
        turn = view["turn"]
        if turn is None:  # the landing: every card in hand scored on the board after it
            cards = {p: [{"spaces": landing_card(view["board"], p)} for _ in range(view["hands"][p])] for p in players}
            view = client.post(f"/api/flock/games/{gid}/actions", json={"action": {
                "do": "land", "nest": FLOCK_NEST, "movement_cards": cards}}, headers=pin).json["view"]
            after = view["stages"][-1]["board_after_landing"]
            for p in players:
                movement[p][-1] += sum(held_points(c["spaces"], after, p) for c in cards[p])
                movement[p].append(0)
            continue
        if view["hands"][turn] >= 2 and view["cubes"][turn] >= view["card_costs"]["score"]:
            spaces = card_for(view["board"], turn)
            movement[turn][-1] += held_points(spaces, view["board"], turn)
            action = {"do": "card", "card": "score", "spaces": spaces}
        elif (view["display"] and view["hands"][turn] < view["hand_limit"]
              and view["prices"]["take"] <= view["cubes"][turn]):
            action = {"do": "take"}
        else:
            action = {"do": "pass"}
        answer = client.post(f"/api/flock/games/{gid}/actions", json={"action": action}, headers=pin)
        assert answer.status_code == 200, answer.json
        view = answer.json["view"]
    nests = {p: [stage["scores"][p]["nest"] for stage in view["stages"]] for p in players}
    assert all(sum(movement[p]) > 0 for p in players)  # every player's movement cards scored
    assert sum(held_points(c["spaces"], s["board_after_landing"], p) for s in view["stages"]
               for p in players for c in s["movement_cards"][p]) > 0  # at landings too, not only by a score card

    shown = {row["name"]: row for row in client.get("/api/progress/flock").json["players"]}
    for p in players:
        assert shown[p]["movement"] == sum(movement[p])
        assert shown[p]["nest"] == sum(nests[p])
        assert shown[p]["stages"] == [n + m for n, m in zip(nests[p], movement[p])]
    page = client.get("/progress/flock").get_data(as_text=True)
    for p in players:
        assert re.search(rf'<th scope="row">{p}</th><td>[^<]*</td><td>{sum(nests[p])}</td><td>{sum(movement[p])}</td>',
                         page), p
    total = sum(map(sum, movement.values()))
    assert f"Movement cards gave {total} of all {total + sum(map(sum, nests.values()))} points" in page


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_players_page_says_how_many_games_are_scored_while_they_are_scored(client, table, clock, monkeypatch, lang):
    for _ in range(3):
        client.post("/api/geese/games", json={"players": ["ann", "ben", "cho"]},
                    headers={"X-Table-Pin": table.door.pin})
    take_the_whole_budget(monkeypatch, clock, "game_summary")  # a game's scoring: one a reading
    client.set_cookie("lang", lang)
    page = client.get("/progress/geese").get_data(as_text=True)
    assert ("Scoring the games: 1 of 3 so far." if lang == "en" else "3ゲームのうち1ゲームまで") in page
    table.progress.fill()
    assert client.get("/api/progress/flock").json["scoring"] is None
    assert "role=\"status\"" not in client.get("/progress/geese").get_data(as_text=True)


def test_a_bars_value_is_drawn_inside_the_chart_however_long():
    from companion.web.progress import charts

    drawn = str(charts.bars([{"label": "1. ann", "value": 100, "fill": OUTCOME["win"], "text": "100%"},
                             {"label": "2. ben", "value": 50, "fill": OUTCOME["win"], "text": "50%"}]))
    x = float(re.findall(r'<text x="([\d.]+)"[^>]*>100%</text>', drawn)[0])
    assert x + charts.DIGIT * len("100%") <= charts.WIDTH
