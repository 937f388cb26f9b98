"""The setup area through Flask's test client: the code, the PIN after, settings written and applied,
the wiring check and timing a glass on a fake clock, the flow closed and reopened."""

import re
import tomllib

import pytest

from companion.hardware import sensors
from companion.hardware.mock import Hands
from companion.table import demo_table
from companion.web import create_app
from conftest import csrf_in, installed_table



@pytest.fixture
def table(tmp_path):
    table = installed_table(tmp_path)
    yield table
    table.stop()


@pytest.fixture
def client(table):
    client = create_app(table, testing=True).test_client()
    page = client.get("/setup/").get_data(as_text=True)
    client.csrf = csrf_in(page)
    return client


def post(client, path, body=None):
    return client.post(path, json=body or {}, headers={"X-CSRF-Token": client.csrf})


def enter(client, table):
    assert post(client, "/api/setup/code", {"code": table.first_run.code}).status_code == 200


def test_a_table_not_set_up_asks_for_its_setup_code_and_nothing_else_opens_it(client, table):
    code = table.first_run.code
    assert len(code) >= 8 and 'id="setup-code"' in client.get("/setup/").get_data(as_text=True)
    assert client.get("/api/setup/settings").status_code == 403
    wrong = post(client, "/api/setup/code", {"code": "A" * len(code)})
    assert wrong.status_code == 403 and wrong.json["code"] == "setup.code_wrong"
    assert post(client, "/api/setup/code", {"code": f" {code[:5].lower()}-{code[5:]} "}).status_code == 200
    assert client.get("/api/setup/settings").json["timers"]["purple"]["source"] == "emulated"
    assert client.post("/api/setup/settings", json={}).status_code == 403  # no CSRF token


def test_wrong_codes_slow_down(client):
    phone = {"REMOTE_ADDR": "192.168.1.77"}  # the table's own screen (loopback) never waits
    for _ in range(3):
        client.post("/api/setup/code", json={"code": "WRONGCODE1"}, headers={"X-CSRF-Token": client.csrf},
                    environ_base=phone)
    slowed = client.post("/api/setup/code", json={"code": "WRONGCODE1"}, headers={"X-CSRF-Token": client.csrf},
                         environ_base=phone)
    assert slowed.status_code == 429 and slowed.json["code"] == "setup.code_wait"
    assert post(client, "/api/setup/code", {"code": "WRONGCODE1"}).json["code"] == "setup.code_wrong"


@pytest.mark.parametrize("settings, field, words", [
    ({"web": {"pin": "123"}}, "web.pin", "expected 4 to 8 digits"),
    ({"timers": {"blue": {"pins": [4, 6]}}}, "timers.blue.pins", "GPIO 4 is already used by the red glass (timers.red.pins)"),
    ({"strip": {"enabled": True, "driver": "spi"}, "timers": {"blue": {"pins": [10, 6]}}}, "timers.blue.pins",
     "which the LED strip's SPI driver takes"),
    ({"buzzer": {"enabled": True, "pin": 40}}, "buzzer.pin", "GPIO 40 does not exist (valid 2-27)"),
    ({"timers": {"red": {"source": "hub"}}}, "hub.port", "missing"),
    ({"web": {"port": 80}}, "web.port", "unknown field (expected pin)"),
    ({"buzzer": {"pin": "19"}}, "buzzer.pin", "expected a whole number"),
])
def test_refused_settings_name_the_key_in_the_configs_own_words_and_write_nothing(client, table, settings, field, words):
    enter(client, table)
    before = table.configured.now.path.read_text(encoding="utf-8")
    refused = post(client, "/api/setup/settings", settings)
    assert refused.status_code == 400 and refused.json["field"] == field and words in refused.json["error"]
    assert table.configured.now.path.read_text(encoding="utf-8") == before


def test_settings_are_written_keeping_comments_and_applied_at_once(client, table):
    enter(client, table)
    answer = post(client, "/api/setup/settings", {
        "table": {"name": "Window table", "language": "ja"}, "web": {"pin": "97531"},
        "timers": {"red": {"source": "emulated", "pins": [4]}}, "strip": {"enabled": True, "driver": "fake"},
        "buzzer": {"enabled": True, "pin": 19}, "mqtt": {"url": ""}})
    assert answer.status_code == 200 and answer.json["table"] == {"name": "Window table", "language": "ja"}
    text = table.configured.now.path.read_text(encoding="utf-8")
    assert "(ball switches chatter near 45 degrees)" in text and "purple = 80" in text
    assert tomllib.loads(text)["web"] == {"host": "0.0.0.0", "port": 8000, "pin": "97531"}
    assert text.index('pin = "97531"') < text.index("# [mqtt]"), "a new key goes with its section's keys"
    assert table.door.pin == "97531" and table.desk.has_strip and "red" in table.rig.buttons
    assert '<html lang="ja"' in client.get("/setup/").get_data(as_text=True)  # the table's language by default


def test_the_wiring_check_reads_the_glasses_lights_the_strip_and_beeps(client, table):
    enter(client, table)
    post(client, "/api/setup/settings", {"strip": {"enabled": True, "driver": "fake"}, "buzzer": {"enabled": True}})
    Hands(table).set("red", "b_up")
    wiring = client.get("/api/setup/wiring").json
    red = wiring["glasses"][0]
    assert red == {"colour": "red", "source": "tilt", "switches": [{"pin": 4, "closed": False}, {"pin": 5, "closed": True}],
                   "pose": "b_up", "fault": None, "fault_code": None, "fault_params": {}, "pressed": None,
                   "kind": sensors.kind("tilt").for_page()}  # what the page shows of its kind, in the kind's words
    assert [p["name"] for p in wiring["strip"]][-2:] == ["countdown track", "crowd tokens"]
    lit = post(client, "/api/setup/wiring/strip", {"part": 6})
    assert lit.json["leds"] == [96, 100]
    assert [i for i, p in enumerate(table.rig.strip.frames[-1]) if p != (0, 0, 0)] == list(range(96, 101))
    assert post(client, "/api/setup/wiring/strip", {"part": 99}).json["field"] == "part"
    assert post(client, "/api/setup/wiring/buzzer").json == {"pin": 19}


def test_timing_a_glass_stores_the_medians_with_the_calibration_band(client, table):
    enter(client, table)
    hands = Hands(table)
    hands.set("red", "a_up")
    post(client, "/api/setup/timing", {"timer": "red", "runs": 1})
    hands.set("red", "b_up")  # turned over: the first run, B up
    hands.wait(30.5)
    hands.set("red", "a_up")
    hands.wait(29.5)
    hands.set("red", "b_up")
    status = client.get("/api/setup/timing").json["timing"]
    assert status["done"] and status["runs"] == {"a_up": [29.6], "b_up": [30.6]}
    assert post(client, "/api/setup/timing/save").json == {"timer": "red", "duration": {"a_up": 29.6, "b_up": 30.6}}
    assert tomllib.loads(table.configured.now.path.read_text())["timers"]["red"]["duration"] == {"a_up": 29.6, "b_up": 30.6}
    post(client, "/api/setup/timing", {"timer": "orange", "runs": 1})  # a 40 s glass timed at 10 s: refused
    hands.set("orange", "a_up")
    hands.wait(10.0)
    hands.set("orange", "b_up")
    refused = post(client, "/api/setup/timing/save")
    assert refused.status_code == 400 and "is not a 40 s glass" in refused.json["error"]


def test_an_led_glass_is_timed_by_the_players_taps_and_a_timing_is_given_up_with_nothing_kept(client, table):
    """The table reads no sensor of an LED glass: each tap on the page is its turn, as its button's press is."""
    enter(client, table)
    assert post(client, "/api/setup/settings", {"timers": {"blue": {"source": "emulated", "pins": [21]}}}).status_code == 200
    hands = Hands(table)
    started = post(client, "/api/setup/timing", {"timer": "blue", "runs": 1}).json["timing"]
    assert started["sensed"] is False and not started["started"]
    for wait in (0.0, 60.2, 59.8):
        hands.wait(wait)
        status = post(client, "/api/setup/timing/turn").json["timing"]
    assert status["done"] and status["runs"] == {"a_up": [60.2], "b_up": [59.8]}
    assert post(client, "/api/setup/timing", {"timer": "red"}).json["timing"]["sensed"] is True  # a tilt cradle
    assert post(client, "/api/setup/timing/cancel").json == {"timing": None}
    assert client.get("/api/setup/timing").json == {"timing": None}
    refused = post(client, "/api/setup/timing/turn")
    assert refused.status_code == 409 and refused.json["code"] == "errors.setup.not_timing"


def test_finishing_closes_the_flow_and_changes_then_need_the_owners_session(client, table):
    enter(client, table)
    post(client, "/api/setup/settings", {"web": {"pin": "2468"}})
    assert post(client, "/api/setup/done").json == {"setup": "done", "next": "/"}
    assert table.first_run.code is None and tomllib.loads(table.configured.now.path.read_text())["table"]["set_up"] is True
    assert client.get("/api/setup/settings").status_code == 200  # this phone's owner's session outlives the flow
    assert post(client, "/api/mute", {"muted": True}).status_code == 200  # ... and it was unlocked with the new PIN
    other = create_app(table, testing=True).test_client()
    assert other.get("/api/setup/settings").status_code == 403
    assert 'id="setup-code"' in other.get("/setup/").get_data(as_text=True)
    refused = other.get("/api/setup/settings", headers={"X-Table-Pin": "2468"})  # the PIN is the players'
    assert refused.status_code == 403 and refused.json["code"] == "errors.owner_needed"


def test_setup_reopens_from_the_table_screen_only_or_from_the_cli(client, table, cli):
    table.setup.change_settings({"web": {"pin": "97531"}})
    table.setup.finish_setup()
    phone = create_app(table, testing=True).test_client()
    csrf = csrf_in(phone.get("/setup/").get_data(as_text=True))
    refused = phone.post("/setup/reopen", data={"csrf": csrf}, environ_base={"REMOTE_ADDR": "192.168.1.20"})
    assert refused.status_code == 403 and table.first_run.code is None
    kiosk = client.get("/kiosk/").get_data(as_text=True)
    assert 'id="kiosk-setup-reopen"' in kiosk
    assert client.post("/setup/reopen", data={"csrf": client.csrf}).status_code == 303
    assert table.first_run.code is not None
    table.setup.finish_setup()
    done = cli("setup", "--reopen", "--config", str(table.configured.now.path))
    assert done.returncode == 0 and "setup reopened" in done.stdout
    printed = re.search(r"setup code ([A-Z0-9]{5}-[A-Z0-9]{5})", done.stdout)[1]  # at once, not at the next page
    assert table.first_run.accepts(printed)  # the running table saw the file change and took that very code
    again = cli("setup", "--reopen", "--config", str(table.configured.now.path))  # while that code is still open
    reprinted = re.search(r"setup code ([A-Z0-9]{5}-[A-Z0-9]{5})", again.stdout)[1]
    assert table.first_run.accepts(reprinted) and not table.first_run.accepts(printed)


def test_the_demo_has_no_setup_flow(tmp_path):
    table = demo_table(tmp_path / "demo.sqlite3")
    try:
        client = create_app(table, testing=True).test_client()
        assert table.first_run.code is None
        assert 'id="setup-code"' in client.get("/setup/").get_data(as_text=True)
    finally:
        table.stop()


def test_a_bad_setup_value_is_refused_by_its_code_in_japanese(client, table):
    from test_error_codes import japanese  # the one check of a refusal's catalogue sentence

    enter(client, table)
    for settings, code, params in (({"web": {"pin": "12"}}, "errors.setup.pin_digits", {}),
                                   ({"timers": {"red": {"pins": [40, 5]}}}, "errors.setup.no_gpio", {"pin": 40}),
                                   ({"mqtt": {"url": "http://x"}}, "errors.setup.broker_url", {}),
                                   ({"nope": {}}, "errors.unknown_field", {})):
        answer = post(client, "/api/setup/settings", settings)
        assert answer.status_code == 400 and answer.json["code"] == code, answer.json
        assert answer.json.get("params", {}) == params
        japanese(answer.json)


# ---- the setup door under attack: strangers' guesses never lock out the owner ------------------------------

class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


OWNER = {"REMOTE_ADDR": "192.168.1.50"}


def strangers_guess_codes(app, clock, rounds: int, addresses: int = 12) -> None:
    """Wrong setup codes from many addresses, each retried at the end of every wait it is given."""
    strangers = [phone(app) for _ in range(addresses)]
    for _ in range(rounds):
        for number, stranger in enumerate(strangers):
            answer = stranger.post("/api/setup/code", json={"code": "WRONGCODE1"},
                                   headers={"X-CSRF-Token": stranger.csrf},
                                   environ_base={"REMOTE_ADDR": f"10.0.0.{number + 1}"})
            assert answer.status_code in (403, 429) and answer.json["code"].startswith("setup.code_")
            clock.now += float(answer.headers.get("Retry-After", 0))


def phone(app):
    client = app.test_client()
    client.csrf = csrf_in(client.get("/setup/").get_data(as_text=True))
    return client


def test_strangers_guessing_codes_never_lock_out_a_phone_that_passed_the_code_or_the_tables_screen(client, table):
    clock = client.application.extensions["setup_guard"].clock = Clock()
    owner = client.application.test_client()
    owner_csrf = csrf_in(owner.get("/setup/").get_data(as_text=True))
    code = table.first_run.code
    assert owner.post("/api/setup/code", json={"code": code}, headers={"X-CSRF-Token": owner_csrf},
                      environ_base=OWNER).status_code == 200
    strangers_guess_codes(client.application, clock, rounds=4)
    newcomer = phone(client.application)
    stranger = newcomer.post("/api/setup/code", json={"code": code}, headers={"X-CSRF-Token": newcomer.csrf},
                             environ_base={"REMOTE_ADDR": "10.0.1.1"})
    # A new address with the right code is heard: the setup code has no table-wide count (guessing.py), so the
    # owner's first phone on a fresh card is never kept out by guessers elsewhere.
    assert stranger.status_code == 200
    again = owner.post("/api/setup/code", json={"code": code}, headers={"X-CSRF-Token": owner_csrf},
                       environ_base=OWNER)
    assert again.status_code == 200, again.json
    screen = post(client, "/api/setup/code", {"code": code})  # the test client is loopback: the table's screen
    assert screen.status_code == 200, screen.json


def test_done_during_a_pin_guessing_attack_finishes_and_unlocks_the_phone(client, table):
    clock = client.application.extensions["pin_guard"].clock = Clock()
    owner = client.application.test_client()
    owner_csrf = csrf_in(owner.get("/setup/").get_data(as_text=True))
    assert owner.post("/api/setup/code", json={"code": table.first_run.code}, headers={"X-CSRF-Token": owner_csrf},
                      environ_base=OWNER).status_code == 200
    for number in range(12):
        client.application.test_client().post("/api/show/abort", headers={"X-Table-Pin": "000000"},
                                              environ_base={"REMOTE_ADDR": f"10.0.0.{number + 1}"})
    assert client.application.extensions["pin_guard"].wait_s("10.0.9.9", clock.now) > 0  # the attack is on
    table.setup.change_settings({"web": {"pin": "97531"}})  # saved first, as the page does
    done = owner.post("/api/setup/done", json={}, headers={"X-CSRF-Token": owner_csrf}, environ_base=OWNER)
    assert done.status_code == 200, done.json
    assert table.first_run.code is None
    assert owner.get("/api/setup/settings", environ_base=OWNER).status_code == 200


def test_a_refused_done_leaves_setup_open(client, table):
    enter(client, table)
    refused = client.post("/api/setup/done", data="[", content_type="application/json",
                          headers={"X-CSRF-Token": client.csrf})
    assert refused.status_code == 400 and table.first_run.code is not None


def test_a_wrong_pin_header_never_stands_in_for_the_csrf_token(client, table):
    enter(client, table)
    before = table.configured.now.path.read_text(encoding="utf-8")
    wrong = client.post("/api/setup/settings", json={"web": {"pin": "2468"}}, headers={"X-Table-Pin": "wrong"})
    assert wrong.status_code == 403, wrong.json
    assert table.configured.now.path.read_text(encoding="utf-8") == before
    right = client.post("/api/setup/settings", json={"web": {"pin": "2468"}},
                        headers={"X-Table-Pin": table.door.pin})
    assert right.status_code == 200, right.json  # a script with the right PIN needs no token


def test_a_phone_that_unlocked_with_the_pin_enters_the_setup_code_during_a_guessing_run(client, table):
    clock = client.application.extensions["setup_guard"].clock = Clock()
    owner = phone(client.application)
    assert owner.post("/pin", data={"pin": table.door.pin, "csrf": owner.csrf}, environ_base=OWNER).status_code == 303
    strangers_guess_codes(client.application, clock, rounds=3)
    answer = owner.post("/api/setup/code", json={"code": table.first_run.code}, headers={"X-CSRF-Token": owner.csrf},
                        environ_base=OWNER)
    assert answer.status_code == 200, answer.json


def test_a_new_pin_from_the_cli_reaches_the_running_table_and_locks_its_phones(client, table, cli):
    enter(client, table)
    assert post(client, "/api/setup/settings", {"table": {"name": "Kitchen"}}).status_code == 200  # no PIN set
    assert post(client, "/api/setup/done").status_code == 200 and client.get("/api/setup/settings").status_code == 200
    before = table.door.pin
    done = cli("setup", "--new-pin", "--config", str(table.configured.now.path))
    assert done.returncode == 0, done.stderr
    pin = re.search(r"The table PIN is now (\d+)", done.stdout)[1]
    assert table.door.pin == pin and (pin != before or len(pin) == 6)
    if pin != before:
        assert post(client, "/api/mute", {"muted": True}).status_code == 403  # a phone unlocked with the old PIN is out
    assert client.get("/api/setup/settings").status_code == 200  # the owner's session is not the PIN's


def test_a_pin_set_in_the_config_is_not_redrawn_by_the_cli(client, table, cli):
    enter(client, table)
    assert post(client, "/api/setup/settings", {"web": {"pin": "97531"}}).status_code == 200
    refused = cli("setup", "--new-pin", "--config", str(table.configured.now.path))
    assert refused.returncode == 1 and "set in the config" in refused.stderr and table.door.pin == "97531"


def test_finish_is_refused_until_the_settings_are_saved(client, table):
    """A Save that failed (a pin in use) must not let Finish close setup with no PIN written."""
    enter(client, table)
    refused_save = post(client, "/api/setup/settings", {"timers": {"red": {"pins": [4, 4]}}})
    assert refused_save.status_code == 400
    refused = post(client, "/api/setup/done")
    assert refused.status_code == 409 and refused.json["code"] == "setup.unsaved", refused.json
    assert table.first_run.code is not None and not table.configured.now.set_up
    assert post(client, "/api/setup/settings", {"web": {"pin": "97531"}}).status_code == 200
    assert post(client, "/api/setup/done").status_code == 200 and table.configured.now.set_up


def test_a_pin_in_use_names_the_glass_that_has_it_in_the_phones_language(client, table):
    enter(client, table)
    refused = post(client, "/api/setup/settings", {"timers": {"blue": {"pins": [4, 6]}}})
    assert refused.json["code"] == "errors.setup.pin_used_by_glass" and refused.json["params"] == {"pin": 4, "colour": "red"}
    refused = post(client, "/api/setup/settings", {"buzzer": {"enabled": True, "pin": 4}})
    assert refused.json["code"] == "errors.setup.pin_used_by_glass"
    refused = post(client, "/api/setup/settings", {"buzzer": {"enabled": True, "pin": 6}, "timers": {"blue": {"pins": [6, 16]}}})
    assert refused.json["code"] in {"errors.setup.pin_used_by_buzzer", "errors.setup.pin_used_by_glass"}


def test_an_led_glass_is_offered_its_one_button_pin_not_a_tilt_pair(client, table):
    """The example config's purple glass is an LED glass: its field holds its button's pin alone."""
    enter(client, table)
    page = client.get("/setup/").get_data(as_text=True)
    purple = re.search(r'<input id="pins-purple"[^>]*>', page)[0]
    sources = re.search(r'<select id="source-purple".*?</select>', page, re.S)[0]  # each source's pins on its option
    assert 'value="23"' in purple and 'value="tilt" data-pins="23, 24"' in sources
    assert 'value="emulated" data-pins="23"' in sources and 'value="hub" data-pins="23, 24"' in sources
    assert re.search(r'id="pins-purple-help">[^<]*\b23\b(?!, 24)', page)
    assert 'value="4, 5"' in re.search(r'<input id="pins-red"[^>]*>', page)[0]
    assert client.get("/api/setup/settings").json["timers"]["purple"]["pins"] == [23]


def test_the_hubs_settings_and_status_are_drawn_from_what_the_hub_declares(client, table):
    """The hub's port field, its words and example, and its status box come from the hub's own module."""
    enter(client, table)
    client.set_cookie("lang", "ja")
    page = client.get("/setup/").get_data(as_text=True)
    hub = re.search(r'<fieldset data-section="hub">.*?</fieldset>', page, re.S)[0]
    assert "シリアルセンサーハブ" in hub and "ハブのポート" in hub and 'placeholder="/dev/serial/by-id/…"' in hub
    assert re.search(r'<input id="hub-port" name="hub.port" value=""[^>]*aria-describedby="hub-port-help hub-error"',
                     hub) and 'data-error-for="hub"' in hub
    assert re.search(r'<div class="sensor-status" data-status="hub" hidden>\s*<h3>シリアルセンサーハブ</h3>', page)
    assert client.get("/api/setup/settings").json["hub"] == {"port": ""}


def test_the_table_page_says_setup_is_pending_until_it_is_done_and_names_its_check_apart(client, table):
    page = client.get("/").get_data(as_text=True)
    assert 'id="setup-pending"' in page and 'href="/setup/"' in page
    setup_title = re.search(r"<h1[^>]*>([^<]+)</h1>", client.get("/setup/").get_data(as_text=True))[1]
    check_title = re.search(r'<h2 id="setup-check-title">([^<]+)</h2>', page)[1]
    assert setup_title.strip() != check_title.strip()  # the pre-show check is not the table's setup
    table.setup.change_settings({"web": {"pin": "97531"}})
    table.setup.finish_setup()
    assert 'id="setup-pending"' not in client.get("/").get_data(as_text=True)


def test_the_demo_command_walks_the_first_run_setup(tmp_path):
    """`companion demo` keeps its settings in a file of its own, not set up yet: a newcomer walks the setup."""
    db = tmp_path / "companion.sqlite3"
    table = demo_table(db, config_path=tmp_path / "companion-demo.toml")
    try:
        client = create_app(table, testing=True).test_client()
        page = client.get("/setup/").get_data(as_text=True)
        client.csrf = csrf_in(page)
        assert 'id="setup-pending"' in client.get("/").get_data(as_text=True)
        enter(client, table)
        assert client.get("/api/setup/settings").json["timers"]["red"] == {"source": "emulated", "pins": [4],
                                                                            "duration": None}
        saved = post(client, "/api/setup/settings", {"table": {"name": "Demo"}, "web": {"pin": "2468"}})
        assert saved.status_code == 200, saved.json
        assert post(client, "/api/setup/done").status_code == 200
        assert table.configured.now.set_up and table.door.pin == "2468" and table.configured.now.name == "Demo"
        assert table.desk.has_strip and set(table.rig.buttons) == set(table.configured.now.timers)  # still the demo's rig
    finally:
        table.stop()


def test_the_setup_page_leads_to_the_tables_backup(client, table):
    enter(client, table)
    page = client.get("/setup/").get_data(as_text=True)
    link = re.search(r'<a href="([^"]+)" id="backup-link">', page)[1]
    assert link == "/maintenance/" and client.get(link).status_code == 200


def test_the_demos_setup_says_where_its_code_is_and_a_pin_left_blank_keeps_the_one_it_showed(tmp_path):
    """In the demo the code and PIN are in the terminal alone; the page named the screen and the journal, and its
    blank PIN field said nothing of what blank means."""
    table = demo_table(tmp_path / "demo.sqlite3", pin="4321", config_path=tmp_path / "demo.sqlite3.demo.toml")
    try:
        client = create_app(table, testing=True).test_client()
        page = client.get("/setup/").get_data(as_text=True)
        assert "in the terminal that started it" in page
        client.csrf = csrf_in(page)
        enter(client, table)
        settings = client.get("/setup/").get_data(as_text=True)
        assert 'placeholder="unchanged"' in settings and "Left blank, the PIN stays the one" in settings
        assert post(client, "/api/setup/settings", {"table": {"name": "Demo"}}).status_code == 200
        assert table.door.pin == "4321" and post(client, "/api/setup/done").status_code == 200
    finally:
        table.stop()
