"""The shelf's check refuses exactly what the API refuses: a record passes `GameShelf.check` iff the API can make it.

Records are played with random legal moves (and so are valid), then some are
mutated (a field dropped or added, a player too few, a move changed, a card
more); each is then built through the API as a phone would (start the game,
lay out its cards, enter its moves or stages) and the API's verdict (every
request taken, and the game kept as exactly that record) compared with the
check's. Another door (a history import) asks the check: this is what keeps
it from letting in what the API would refuse.
"""

import copy
import random

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from companion.errors import BadInput
from companion.flock.birds import SPECIES
from companion.flock.game import Game as FlockGame
from companion.flock.kind import FLOCK
from companion.geese.game import Game as GeeseGame
from companion.geese.strategies import play, random_player
from companion.records import GameShelf
from companion.table.games import KINDS, TableGames
from companion.web import create_app

PIN = {"X-Table-Pin": "1234"}
NEST = {"points": [1, 2, 3, 4, 5, 6, 7], "pair": 1}  # covers any landing
PEOPLE = ["Ann", "Bo", "Cy", "Di", "Ed"]
JUNK = [None, True, 0, -1, "x", [], {}]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    shelf = GameShelf(tmp_path_factory.mktemp("kinds") / "g.sqlite3", KINDS)
    table = TableGames(shelf)
    table.pin = "1234"
    yield shelf, create_app(table, testing=True).test_client()
    shelf.close()


# ---- records played with legal moves -------------------------------------------------------------

def flock_moves(rng: random.Random) -> dict:
    players = rng.sample(SPECIES, rng.randint(2, 4))
    names = {players[0]: PEOPLE[0]} if rng.random() < 0.3 else None
    state = FLOCK.new("moves", players, rng.randrange(10**6), 30, names)
    game = FlockGame.replay(state)
    for _ in range(rng.randint(0, 40)):
        if game.over:
            break
        legal = game.legal_moves()
        action = rng.choice(legal) if legal else {"do": "land", "nest": NEST}
        game.apply(action)
        state["log"].append(action)
    return state


def flock_sheet(rng: random.Random) -> dict:
    players = rng.sample(SPECIES, rng.randint(2, 4))
    state = FLOCK.new("sheet", players, rng.randrange(10**6))
    for _ in range(rng.randint(0, 3)):
        board = FLOCK.new("sheet", players, rng.randrange(10**6))["start_board"]  # a flock the rules lay out
        points = [rng.randint(0, 9) for _ in range(rng.randint(1, 7))]  # too few: a landing it cannot score
        state["stages"].append({"board": board, "nest": {"points": points, "pair": rng.randint(-2, 3)}})
    return state


def geese_game(rng: random.Random) -> dict:
    seats = rng.choice([3, 4, 5])
    game = GeeseGame(seats, random.Random(rng.randrange(10**6)))
    for _ in range(rng.randint(0, 25)):
        if game.over:
            break
        play(game, random_player(game, rng))
    record = game.record(PEOPLE[:seats])
    record["wintering"] = record["wintering"][:rng.randint(0, len(record["wintering"]))] \
        if not record["actions"] else record["wintering"]
    return record


# ---- mutations -------------------------------------------------------------------------------------

MUTATIONS = ("drop", "add", "junk", "players", "entry", "entries", "seed", "names", "movement_set", "start_board",
             "card")


def mutated(record: dict, rng: random.Random, kind: str, how: str) -> dict:
    record = copy.deepcopy(record)
    entries = {"flock": "log" if record.get("mode") == "moves" else "stages", "geese": "actions"}[kind]
    if how == "drop":
        record.pop(rng.choice(sorted(record)))
    elif how == "add":
        record["extra"] = 1
    elif how == "junk":
        record[rng.choice(sorted(record))] = rng.choice(JUNK)
    elif how == "players":
        players = record["players"]
        record["players"] = rng.choice([players[:1], players[:2], [players[0], *players], players[::-1],
                                        [f" {players[0]}", *players[1:]]])
    elif how == "entry" and record[entries]:
        i = rng.randrange(len(record[entries]))
        pool = {"flock": [{"do": "pass"}, {"do": "nope"}, {"do": "take"}, {"do": "pass", "extra": 1}, "x",
                          {"do": "fly_side", "from": [2, 0], "to": [2, 1]}, {"do": "land", "nest": NEST},
                          {"board": None, "nest": NEST}],
                "geese": [{"player": record["players"][0], "arrive": [{"n": 1, "suit": "gull"}]},
                          {"player": record["players"][-1], "migrate": {"value": 1, "cards": [{"n": 1, "suit": "goose"}]}},
                          {"player": "nobody", "arrive": [{"n": 1, "suit": "gull"}]}, "x",
                          {**record[entries][i], "extra": 1}]}[kind]
        record[entries][i] = rng.choice(pool)
    elif how == "entries" and record[entries]:
        i = rng.randrange(len(record[entries]))
        if rng.random() < 0.5:
            del record[entries][i]
        else:
            record[entries].insert(i, record[entries][i])
    elif kind == "flock" and how == "seed":
        record["seed"] = record["seed"] + 1
    elif kind == "flock" and how == "names":
        record["names"] = rng.choice([{}, {"owl": "Ann"}, {record["players"][0]: " Ann"},
                                      {record["players"][-1]: "Bo"}, {p: "Ann" for p in record["players"]}])
    elif kind == "flock" and how == "movement_set" and "movement_set" in record:
        record["movement_set"] = rng.choice([5, 31, 99, 100])
    elif kind == "flock" and how == "start_board" and "start_board" in record:
        record["start_board"] = record["start_board"][::-1]
    elif kind == "geese" and how == "card":
        card = {"n": rng.randint(1, 7), "suit": rng.choice(["gull", "goose", "crane", "owl"])}
        record["wintering"] = [*record["wintering"], card] if rng.random() < 0.7 else record["wintering"][1:]
    return record


# ---- the two verdicts ------------------------------------------------------------------------------

def checked(shelf: GameShelf, kind: str, record) -> bool:
    try:
        assert shelf.check(kind, record) == record  # a state passes as it is: the check changes nothing
        return True
    except BadInput:
        return False


def made_by_the_api(client, kind: str, record) -> bool:
    """Whether the API, used as a phone uses it, keeps a game as exactly `record`."""
    if not isinstance(record, dict):
        return False
    if kind == "flock":
        start = {k: record[k] for k in ("mode", "players", "seed", "movement_set", "names") if k in record}
        entries = [("stages", "stage", record.get("stages"))] if record.get("mode") == "sheet" \
            else [("actions", "action", record.get("log"))]
        if start.get("seed") is None:
            return False  # the API would draw a seed of its own
    else:
        start = {"players": record.get("players")}
        entries = [("setup", "card", record.get("wintering")), ("actions", "action", record.get("actions"))]
    if not all(isinstance(sent, list) for _, _, sent in entries):
        return False  # no request sends anything but one entry after another
    steps = [(path, {field: entry}) for path, field, sent in entries for entry in sent]
    made = client.post(f"/api/{kind}/games", json=start, headers=PIN)
    if made.status_code != 201:
        return False
    for path, body in steps:
        if client.post(f"/api/{kind}/games/{made.json['id']}/{path}", json=body, headers=PIN).status_code != 200:
            return False
    kept = client.get(f"/api/{kind}/games/{made.json['id']}/export.json").json["record"]
    return kept == record


MAKERS = {"flock": [flock_moves, flock_sheet], "geese": [geese_game]}


def every_mutation(test):
    """Each mutation of each kind of record at least once, beside what hypothesis makes up."""
    for kind, makers in MAKERS.items():
        for maker in range(len(makers)):
            for how in MUTATIONS:
                test = example(kind=kind, maker=maker, seed=7, how=how)(test)
    return test


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(sorted(MAKERS)), maker=st.integers(0, 1), seed=st.integers(0, 2**32),
       how=st.sampled_from((None, *MUTATIONS)))
@every_mutation
def test_the_check_refuses_exactly_what_the_api_refuses(world, kind, maker, seed, how):
    shelf, client = world
    rng = random.Random(seed)
    record = MAKERS[kind][maker % len(MAKERS[kind])](rng)
    if how:
        record = mutated(record, rng, kind, how)
    verdict = checked(shelf, kind, record)
    event(f"{kind}: {'kept' if verdict else 'refused'}")
    assert verdict == made_by_the_api(client, kind, record), record
    if not how:
        assert verdict or kind == "flock" and record["mode"] == "sheet"  # a played game is always kept
