"""Plays as BG Stats receives them: read from a result's link, and the same game finished on a second, fresh table
(two tables each have a game 1: BG Stats must see two plays, not one updated)."""

import html
import json
import random
import re
from contextlib import contextmanager
from urllib.parse import parse_qs, urlsplit

from companion.clock import FakeClock
from companion.flock.game import Game as FlockGame
from companion.geese.game import Game as GeeseGame
from companion.geese.strategies import STRATEGIES
from companion.table import demo_table
from companion.web.server import make_server

ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126 Mobile Safari/537.36"
PIN = {"X-Table-Pin": "1234"}
NEST = {"points": [3, 7, 11, 14, 16], "pair": 3}


def link_play(href: str) -> dict:
    parts = urlsplit(href)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "app.bgstatsapp.com", "/createPlay.html")
    return json.loads(parse_qs(parts.query)["data"][0])


def page_play(client, path: str) -> dict:
    """The play behind the BG Stats link of the page at `path`, as an Android phone is served it."""
    page = client.get(path, headers={"User-Agent": ANDROID}).get_data(as_text=True)
    return link_play(html.unescape(re.search(r'id="bgstats-link" href="([^"]+)"', page)[1]))


@contextmanager
def second_table(tmp_path):
    """A fresh demo table of its own file: a test client on its app."""
    table = demo_table(tmp_path / "second.sqlite3", clock=FakeClock(), pin="1234").start()
    try:
        yield make_server(table, "127.0.0.1", 0).flask_app.test_client()
    finally:
        table.stop()


def finished_geese_game(client, names=("ann", "ben", "cho", "dan"), seed: int = 1) -> int:
    """A whole game of 帰る雁 recorded through the API, moves chosen by the rules core's greedy planner."""
    rng = random.Random(seed)
    game = GeeseGame(len(names), rng)
    gid = client.post("/api/geese/games", json={"players": list(names)}, headers=PIN).json["id"]
    for card in game.setup:
        assert client.post(f"/api/geese/games/{gid}/setup", json={"card": card.to_json()}, headers=PIN).status_code == 200
    while not game.over:
        player = names[game.seat]
        move = STRATEGIES["greedy"](game, rng)
        cards = [c.to_json() for c in move.cards]
        action = ({"player": player, "arrive": cards, **({"take": move.take.to_json()} if move.take else {})}
                  if move.kind == "arrive" else {"player": player, "migrate": {"value": move.value, "cards": cards}})
        answer = client.post(f"/api/geese/games/{gid}/actions", json={"action": action}, headers=PIN)
        assert answer.status_code == 200, answer.json
        if move.kind == "arrive":
            game.arrive(list(move.cards), move.take)
        else:
            game.migrate(move.value, list(move.cards))
    return gid


def finished_flock_game(client, players: list[str], seed: int) -> int:
    """A whole game of Über den Wolken recorded through the API: every cube passed away, every stage landed."""
    game = FlockGame(players, seed)
    gid = client.post("/api/flock/games", json={"players": players, "seed": seed}, headers=PIN).json["id"]
    while not game.view()["over"]:
        action = {"do": "pass"} if game.turn is not None else {"do": "land", "nest": NEST}
        assert client.post(f"/api/flock/games/{gid}/actions", json={"action": action}, headers=PIN).status_code == 200
        game.apply(action)
    return gid
