"""The web's reproductions: no open redirect, no 500 from any input, error codes a page can translate."""

import json

import pytest

from companion.web.i18n import catalog
from conftest import as_owner, csrf_in

PIN = {"X-Table-Pin": "1234"}



def csrf(client) -> str:
    page = client.get("/").get_data(as_text=True)
    return csrf_in(page)


LEADING_AWAY = ["/%09/evil.com", "/%0a/evil.com", "/%0d%0a/evil.com", "//evil.com", "/\\evil.com",
                "/%5Cevil.com", "https://evil.com", "/%E2%80%A8/evil.com", "/%20/evil.com", "evil.com"]


@pytest.mark.parametrize("target", LEADING_AWAY)
def test_the_language_switch_goes_back_only_to_a_local_path(client, target):
    answer = client.get(f"/lang/ja?next={target}")
    assert answer.status_code == 303
    assert answer.headers["Location"] == "/"


@pytest.mark.parametrize("target", ["/%09/evil.com", "//evil.com", "/%0a/x"])
def test_the_pin_form_goes_back_only_to_a_local_path(client, target):
    from urllib.parse import unquote

    answer = client.post("/pin", data={"pin": "1234", "csrf": csrf(client), "next": unquote(target)})
    assert answer.status_code == 303 and answer.headers["Location"] == "/"


def test_a_local_path_is_kept(client):
    assert client.get("/lang/ja?next=/scorepad").headers["Location"] == "/scorepad"


def body(client, path: str, text: str):
    return client.post(path, data=text, headers={**PIN, "Content-Type": "application/json"})


HUGE = "9" * 400


@pytest.mark.parametrize("path,text,field", [
    ("/api/calibration", f'{{"timer": "red", "seconds": {HUGE}}}', "body"),
    ("/api/calibration", '{"timer": "red", "seconds": NaN}', "body"),
    ("/api/calibration", '{"timer": "red", "seconds": 1e999}', "body"),
    ("/api/players", '{"players": ["\\ud800"]}', "body.players[0]"),
    ("/api/players", '{"players": ["Ann\\u0007"]}', "players[0]"),
    ("/api/players", '{"players": ["Ann\\u0085Bob"]}', "players[0]"),
    ("/api/show/start", '{"event": {"id": "\\ud800", "running": ["red"], "countdown": "red"}}', "body.event.id"),
    ("/api/show/start", '{"event": {"id": "x", "name": "\\udfff", "running": ["red"], "countdown": "red"}}',
     "body.event.name"),
    ("/api/show/start", '{"event": {"id": "x", "rules": "\\ud800", "running": ["red"], "countdown": "red"}}',
     "body.event.rules"),
    ("/api/show/start", '{"event": {"id": "a\\u0000b", "running": ["red"], "countdown": "red"}}', "event.id"),
    ("/api/show/start", '{"event": {"id": "x", "name": "a\\nb", "running": ["red"], "countdown": "red"}}',
     "event.name"),
    ("/api/show/start", "[" * 5000 + "]" * 5000, "body"),
])
def test_extreme_values_are_400_naming_the_field(client, table, path, text, field):
    as_owner(client, table)  # the calibration is the owner's
    answer = body(client, path, text)
    assert answer.status_code == 400, answer.json
    assert answer.json["field"] == field
    assert answer.json["code"].startswith("errors.") and answer.json["code"] != "errors.bad_input"  # says what is wrong
    assert client.get("/api/show").json["outcome"] == "idle"


def test_rules_text_may_run_over_lines(client):
    event = {"id": "lines", "name": "Lines", "rules": "one\ntwo", "running": ["red"], "countdown": "red"}
    assert body(client, "/api/show/start", json.dumps({"event": event})).status_code == 201


@pytest.mark.parametrize("path", ["/nothing", "/", "/api/show", "/api/nothing"])
def test_a_host_label_over_63_characters_is_400_not_500(client, path):
    answer = client.get(path, headers={"Host": "a" * 70 + ".local"})
    assert answer.status_code in (400, 421)  # not a name at all, or not the table's: refused either way
    assert "Traceback" not in answer.get_data(as_text=True)


def test_a_newline_in_next_is_no_500(client):
    assert client.get("/lang/en?next=/a%0d%0aSet-Cookie:%20x=1").status_code == 303


def test_every_error_code_has_a_message_in_both_languages(client):
    answers = [client.post("/api/show/abort"), client.post("/api/show/abort", headers={"X-Table-Pin": "0"}),
               client.get("/api/nothing"), client.put("/api/show", headers=PIN), body(client, "/api/show/flip", "{")]
    codes = {a.json["code"] for a in answers} | {"errors.pin_wait", "errors.csrf", "errors.streams_full",
                                                  "errors.internal", "errors.bad_host", "errors.conflict"}
    assert {"errors.pin_needed", "errors.pin_wrong", "errors.not_found", "errors.method"} <= codes
    for a in answers:
        assert set(a.json) == {"error", "field", "code"}
    for lang in ("en", "ja"):
        messages = catalog(lang)
        assert all(code in messages for code in codes), sorted(codes - set(messages))
    assert catalog("ja")["errors.pin_wrong"] != catalog("en")["errors.pin_wrong"]
