"""Every refusal a player can meet carries a catalogue code and its values, so each page says it in its language.

The API is walked with bad input (the concrete refusals of each game and page, then whatever hypothesis
makes up): every 4xx answer must name a code both catalogues hold, filled with its params to a Japanese
sentence with no slot left and no Latin word but the few a Japanese page writes as they are. A second
check reads the modules players reach and finds any refusal raised without a code.
"""

import ast
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.hardware import sensors
from companion.web.errors import STATUS_CODES
from companion.web.i18n import CATALOG_DIR, fill
from conftest import as_owner

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "companion" / "web"
PIN = {"X-Table-Pin": "1234"}
# Latin words a Japanese sentence may keep as they are: units, names of parts and formats, the broker example.
ALLOWED_LATIN = {"PIN", "LED", "GPIO", "JSON", "SPI", "PWM", "VP", "mqtt", "host", "s", "MiB"}
GENERIC = {STATUS_CODES[400], STATUS_CODES[409]}  # a refusal that says no more than its status
PLAYER_PARAMS = {"name", "player"}  # values the players wrote (or a species, which the page names)
KINDS = {"colour": "timer.", "timer": "timer.", "species": "flock.species.", "suit": "geese.suit."}  # as i18n.js
# The modules whose refusals a page's player can reach, and the functions in them that read only the
# operator's files (their refusals go to a terminal, in English).
PLAYER_MODULES = [
    "skyrockets/events.py", "skyrockets/colours.py", "skyrockets/festivals.py", "players.py", "jsonin.py",
    "section.py", "config.py", "calibration.py", "mqtt/settings.py",
    "web/api.py", "web/flock/api.py", "web/geese/api.py", "flock/kind.py", "geese/kind.py", "records/games.py",
    "web/scorepad/results.py", "web/scorepad/pieces.py", "records/festivals.py", "table/__init__.py",
    "table/setting.py", "table/bench.py", "table/desk.py", "table/ledger.py", "table/timebase.py", "fields.py",
    "flock/birds.py", "flock/board.py", "flock/cards.py", "flock/game.py", "flock/moves.py", "flock/sheet.py",
    "flock/stage.py", "geese/cards.py", "geese/game.py", "geese/replay.py", "hardware/hub.py",
]
OPERATOR_ONLY = {
    ("config.py", "load_config"), ("config.py", "check_host"), ("config.py", "check_port"),
    ("config.py", "_allowed_hosts"), ("mqtt/settings.py", "password"), ("mqtt/settings.py", "read"),
    ("mqtt/settings.py", "check_base"), ("records/festivals.py", "festivals"),
}


def raw_catalog(lang: str) -> dict:
    """Every message written in `lang` itself (no English standing in for a missing one), the kinds of sensor's
    own words too."""
    messages = dict(sensors.words().get(lang, {}))
    for folder in (CATALOG_DIR, *WEB.glob("*/i18n"), ROOT / "companion" / "mqtt" / "hall" / "i18n"):
        path = folder / f"{lang}.json"
        if path.exists():
            messages.update(json.loads(path.read_text("utf-8")))
    return messages


ENGLISH, JAPANESE = raw_catalog("en"), raw_catalog("ja")


def japanese(answer: dict) -> str:
    """The sentence a Japanese page shows for an error answer, checked: a code of both catalogues,
    values (not English words) for params, every slot filled, no Latin word but the allowed ones."""
    code, params = answer.get("code"), answer.get("params", {})
    assert code in ENGLISH and code in JAPANESE, answer
    assert code not in GENERIC, answer  # a refusal a player meets says what is wrong
    for name, value in params.items():
        assert isinstance(value, (int, float)) or name in PLAYER_PARAMS or " " not in str(value), answer
        assert name not in KINDS or f"{KINDS[name]}{value}" in JAPANESE, answer  # the page has its word
    template = JAPANESE[code]
    assert set(re.findall(r"\{(\w+)\}", template)) <= set(params), answer
    text = fill(template, params)
    assert not re.search(r"\{\w+\}", text), text
    latin = set(re.findall(r"[A-Za-z]+", re.sub(r"\{\w+\}", "", template))) - ALLOWED_LATIN
    assert not latin, (code, latin)
    return text



@pytest.fixture
def games(client, table):
    as_owner(client, table)  # the setup and calibration routes are the owner's: their inputs are read for the owner
    flock = client.post("/api/flock/games", json={"players": ["crane", "kite"], "seed": 5}, headers=PIN)
    geese = client.post("/api/geese/games", json={"players": ["Ann", "Bo", "Cy"]}, headers=PIN)
    assert flock.status_code == geese.status_code == 201
    return {"flock": flock.json["id"], "geese": geese.json["id"]}


def refused(client, path: str, body, status: int | None = None, headers=PIN) -> dict:
    answer = client.post(path, json=body, headers=headers)
    assert 400 <= answer.status_code < 500, (path, body, answer.status_code)
    assert status is None or answer.status_code == status, (path, answer.json)
    japanese(answer.json)
    return answer.json


# ---- the refusals a player meets -------------------------------------------------------------------

def test_a_wrong_pin_is_refused_in_japanese(client):
    assert refused(client, "/api/show/abort", {}, 403, headers={"X-Table-Pin": "0000"})["code"] == "errors.pin_wrong"


def test_the_show_controls_refuse_in_japanese_with_the_timers_colour(client):
    assert refused(client, "/api/show/flip", {"timer": "red"}, 409)["code"] == "errors.show.none"
    assert refused(client, "/api/show/start", {"event": "no-such"}, 400)["code"] == "errors.event.unknown"
    solo = {"id": "solo", "name": "Solo", "countdown": "red", "running": ["red"], "countdown_start": 1}
    assert client.post("/api/show/start", json={"event": solo}, headers=PIN).status_code == 201
    assert refused(client, "/api/show/start", {"event": "training"}, 409)["code"] == "errors.show.running"
    blue = refused(client, "/api/show/flip", {"timer": "blue"}, 409)
    assert blue["code"] == "errors.show.not_in_play" and blue["params"] == {"colour": "blue"}
    assert refused(client, "/api/show/flip", {"timer": "pink"}, 400)["code"] == "errors.colour.unknown"


def test_a_custom_event_is_refused_in_japanese(client):
    both = {"id": "x", "name": "X", "countdown": "red", "running": ["red"], "lying": ["red"]}
    answer = refused(client, "/api/show/start", {"event": both}, 400)
    assert answer["code"] == "errors.event.run_and_lie" and answer["params"] == {"colour": "red"}
    out = {"id": "x", "name": "X", "countdown": "blue", "running": ["red"]}
    assert refused(client, "/api/show/start", {"event": out})["params"] == {"timer": "blue"}
    far = {**out, "countdown": "red", "countdown_start": 99}
    assert refused(client, "/api/show/start", {"event": far})["code"] == "errors.range"


def test_festivals_and_players_names_are_refused_in_japanese(client):
    assert refused(client, "/api/festivals", {"name": "", "events": ["training"]})["code"] \
        == "errors.festival.name"
    assert refused(client, "/api/festivals", {"name": "F", "events": ["training", "training"]})["code"] \
        == "errors.festival.twice"
    assert refused(client, "/api/players", {"players": ["Ann", "Ann"]})["params"] == {"name": "Ann"}
    assert refused(client, "/api/players", {"players": ["Ann\u202e"]})["code"] == "errors.name.characters"
    assert refused(client, "/api/players", {"players": ["x" * 41]})["code"] == "errors.name.length"


def test_a_history_that_cannot_be_read_is_refused_by_its_line(client):
    answer = refused(client, "/api/history", {"history": '{"format": "nope"}\n'}, 400)
    assert answer["code"] == "history.refused.line" and answer["params"] == {"line": 1}


def test_the_bird_games_refuse_in_japanese(client, games):
    flock = f"/api/flock/games/{games['flock']}/actions"
    assert refused(client, flock, {"action": {"do": "nope"}})["code"] == "errors.choice"
    assert refused(client, flock, {"action": {"do": "add", "bird": 0, "col": 99}})["code"] == "errors.range"
    assert refused(client, "/api/flock/games", {"players": ["crane", "crane"]})["params"] == {"species": "crane"}
    geese = f"/api/geese/games/{games['geese']}/actions"
    answer = refused(client, geese, {"action": {"player": "Bo", "arrive": [{"n": 1, "suit": "gull"}]}})
    assert answer["code"] == "geese.refused.out_of_turn"
    assert refused(client, "/api/geese/check", {"hand": [{"n": 99, "suit": "gull"}]})["code"] == "errors.range"


def test_setup_values_are_refused_in_japanese(client, table):
    owner = {"X-CSRF-Token": as_owner(client, table)}
    assert refused(client, "/api/setup/settings", {"settings": {"web": {"pin": "12"}}},
                   headers=owner)["code"] == "errors.setup.demo"
    assert refused(client, "/api/setup/timing/save", {}, 409, headers=owner)["code"] == "errors.setup.not_timing"


# ---- whatever a script or a broken page sends -------------------------------------------------------

ENDPOINTS = ["/api/show/start", "/api/show/flip", "/api/show/lay", "/api/mute", "/api/calibration", "/api/players",
             "/api/festivals", "/api/festivals/1/delete", "/api/history", "/api/flock/stage", "/api/flock/games",
             "/api/flock/games/{flock}/actions", "/api/flock/games/{flock}/stages", "/api/flock/cards",
             "/api/geese/score", "/api/geese/check", "/api/geese/games", "/api/geese/games/{geese}/setup",
             "/api/geese/games/{geese}/actions", "/api/setup/settings", "/api/setup/wiring/strip", "/api/setup/timing"]
FIELDS = ["event", "timer", "pose", "muted", "challenge", "players", "festival", "history", "action", "stage",
          "mode", "seed", "names", "type", "name", "card", "hand", "wintering", "put", "settings", "colour", "runs",
          "part", "board", "nest", "do", "from", "to", "arrive", "migrate", "player", "version"]
values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 99) | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["red", "crane", "gull", "training", "", "x" * 50, "\u202e", "deck", "front"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=3),
    max_leaves=8)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(ENDPOINTS), body=st.dictionaries(st.sampled_from(FIELDS), values, max_size=3))
def test_every_refusal_of_made_up_input_has_a_code_in_both_catalogues(client, games, path, body):
    answer = client.post(path.format(**games), json=body, headers=PIN)
    assert answer.status_code < 500, (path, body)
    if answer.status_code >= 400:
        japanese(answer.json)


# ---- no refusal without a code ----------------------------------------------------------------------

def uncoded(module: str, source: str) -> list[str]:
    """The refusals (BadInput, Conflict) of `module` raised without a code, outside its operator-only functions."""
    found = []
    for function in [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)]:
        if (module, function.name) in OPERATOR_ONLY:
            continue
        for node in ast.walk(function):
            call = node.exc if isinstance(node, ast.Raise) else None
            name = getattr(getattr(call, "func", None), "id", None)
            if name in ("BadInput", "Conflict") and not any(k.arg == "code" for k in call.keywords):
                found.append(f"{module}:{node.lineno} ({function.name})")
    return found


def test_every_refusal_a_player_can_reach_is_raised_with_a_code():
    found = [line for module in PLAYER_MODULES
             for line in uncoded(module, (ROOT / "companion" / module).read_text("utf-8"))]
    assert found == []


def test_the_check_would_find_a_refusal_without_a_code():
    source = 'def f():\n    raise BadInput("x", "no", code="errors.shape")\n\ndef g():\n    raise Conflict("x", "no")\n'
    assert uncoded("players.py", source) == ["players.py:5 (g)"]
    assert uncoded("config.py", source.replace("def g", "def load_config")) == []  # the operator's own file


def test_every_code_a_refusal_names_is_in_both_catalogues():
    named = set()
    for module in [*PLAYER_MODULES, "hardware/tilt.py"]:  # the refusals, and the sensors' faults
        source = (ROOT / "companion" / module).read_text("utf-8")
        named |= set(re.findall(r'(?:code=|error_code = )"([\w.]+)"', source))
        named |= set(re.findall(r'"(faults\.[\w.]+)"', source))
    assert {"errors.name.characters", "faults.tilt.both_closed", "faults.hub.lost"} <= named  # the search finds them
    assert sorted(code for code in named if code not in ENGLISH or code not in JAPANESE) == []
    example = {"colour": "red", "timer": "red", "species": "crane", "suit": "gull", "name": "Ann", "player": "kite"}
    for code in named:
        slots = re.findall(r"\{(\w+)\}", JAPANESE[code])
        japanese({"code": code, "params": {slot: example.get(slot, 1) for slot in slots}})
