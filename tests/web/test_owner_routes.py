"""One owner's key for every config change: every route that changes (or reads out) the table's config asks for
the owner's session the setup code opens; the table PIN, in a session or a header, lets players play and keep
scores, and is refused there. Every change route of the app is walked, so a new one must say which it is."""

import re
from pathlib import Path

import pytest

from companion.clock import FakeClock
from companion.config import load_or_fresh
from companion.hardware.mock import mock_pin_factory
from companion.records import Store
from companion.table import Table
from companion.web import create_app
from conftest import csrf_in

ROOT = Path(__file__).resolve().parents[2]
PIN = "246813"
CHANGES = {"POST", "PUT", "PATCH", "DELETE"}

# The owner's: the table's config, its hardware under test, its backups (which carry the config).
OWNERS = {"setup.change_settings", "setup.done", "setup.light_part", "setup.beep", "setup.start_timing",
          "setup.turn_timed", "setup.cancel_timing", "setup.save_timing", "show.calibrate", "maintenance.restore",
          "maintenance.upload_release"}
OWNERS_READING = {"setup.settings", "setup.wiring", "setup.timing", "maintenance.download"}
# The keys themselves, and what only the table's own screen may do.
DOORS = {"setup.code", "auth.enter_pin", "auth.pair", "auth.forget_pin", "setup.reopen", "kiosk.new_pairing"}
# Playing and keeping scores: the PIN's.
PLAY = {"show.start", "show.flip", "show.lay", "show.abort_show", "show.mute", "scorepad.players",
        "scorepad.save_festival", "scorepad.delete_festival", "scorepad.import_history",
        "flock.new_game", "flock.act", "flock.enter_stage", "flock.undo", "flock.stage_score", "flock.save_card",
        "geese.check", "geese.create_game", "geese.add_action", "geese.lay_out", "geese.undo", "geese.score_record"}


@pytest.fixture
def table(tmp_path):
    text = (ROOT / "docs" / "config.example.toml").read_text(encoding="utf-8")
    text = text.replace("/var/lib/companion/companion.sqlite3", str(tmp_path / "db.sqlite3"))
    text = text.replace('# pin = "246813"', f'pin = "{PIN}"')
    (tmp_path / "config.toml").write_text(text, encoding="utf-8")
    config = load_or_fresh(tmp_path / "config.toml")
    table = Table(config, Store(config.database), mock_pin_factory(), clock=FakeClock())
    yield table
    table.stop()


def client_of(app, page="/setup/"):
    client = app.test_client()
    html = client.get(page).get_data(as_text=True)
    client.csrf = csrf_in(html)
    return client


def url_of(rule) -> str:
    return re.sub(r"<(?:\w+:)?\w+>", "1", rule.rule)


def test_every_change_route_is_the_owners_a_door_or_play():
    app = create_app(_stand_in(), testing=True)
    changing = {r.endpoint for r in app.url_map.iter_rules() if r.methods & CHANGES}
    assert changing - (OWNERS | DOORS | PLAY) == set(), "a new route: say whose it is"
    assert (OWNERS | DOORS | PLAY) - changing == set(), "a route gone: take it off the lists"


def test_a_pin_session_or_header_is_refused_on_every_owners_route_and_changes_nothing(table):
    app = create_app(table, testing=True)
    player = client_of(app)
    assert player.post("/pin", data={"pin": PIN, "csrf": player.csrf, "next": "/"}).status_code == 303
    config = table.configured.now.path.read_text(encoding="utf-8")
    for rule in app.url_map.iter_rules():
        if rule.endpoint not in OWNERS | OWNERS_READING:
            continue
        method = "POST" if rule.endpoint in OWNERS else "GET"
        for headers in ({"X-CSRF-Token": player.csrf}, {"X-Table-Pin": PIN}):
            answer = player.open(url_of(rule), method=method, json={}, headers=headers)
            assert answer.status_code == 403, (rule.endpoint, headers, answer.status_code)
            if rule.rule.startswith("/api/"):
                assert answer.json["code"] == "errors.owner_needed", rule.endpoint
            else:  # the backup's download: a page saying why, never the file
                assert answer.mimetype == "text/html", rule.endpoint
    assert table.configured.now.path.read_text(encoding="utf-8") == config
    assert player.post("/api/mute", json={"muted": True}, headers={"X-CSRF-Token": player.csrf}).status_code == 200


def test_the_setup_code_opens_an_owners_session_that_outlives_the_finished_setup(table):
    app = create_app(table, testing=True)
    owner = client_of(app)
    code = table.first_run.code
    shown = f" {code[:5].lower()}-{code[5:]} "  # as the screen shows it, typed in lower case
    assert owner.post("/api/setup/code", json={"code": shown}, headers={"X-CSRF-Token": owner.csrf}).status_code == 200
    assert owner.post("/api/setup/done", json={}, headers={"X-CSRF-Token": owner.csrf}).status_code == 200
    assert table.first_run.code is None  # the code is void ...
    assert owner.get("/api/setup/settings").status_code == 200  # ... the session it opened is still the owner's
    answer = owner.post("/api/setup/settings", json={"table": {"name": "Window"}}, headers={"X-CSRF-Token": owner.csrf})
    assert answer.status_code == 200 and table.door.name == "Window"
    owner.post("/pin/forget", data={"csrf": owner.csrf, "next": "/"})  # locking the page ends the owner's session
    assert owner.get("/api/setup/settings").json["code"] == "errors.owner_needed"


def test_the_settings_page_asks_a_set_up_tables_owner_for_a_setup_code_with_a_letters_keyboard(table):
    app = create_app(table, testing=True)
    player = client_of(app)
    player.post("/pin", data={"pin": PIN, "csrf": player.csrf, "next": "/"})
    table.first_run.close()  # set up: the code is void until setup is reopened
    page = player.get("/setup/").get_data(as_text=True)
    assert 'id="setup-code"' in page and 'autocapitalize="characters"' in page and 'inputmode="numeric"' not in page
    assert "companion setup --reopen" in page
    closed = player.post("/api/setup/code", json={"code": "ABCDE-FGHJK"}, headers={"X-CSRF-Token": player.csrf})
    assert closed.status_code == 403 and closed.json["code"] == "setup.closed"


def _stand_in():
    from companion.ports import FixedDoor, Ports
    return Ports(desk=None, ledger=None, games=None, setup=None, door=FixedDoor(pin=PIN))
