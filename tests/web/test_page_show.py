"""The table page's server side: limits and sounds handed over as data, the sensors for the setup check,
past shows numbered with their duration, the areas as packages, and the Japanese edition's own words."""

import json
import re
from pathlib import Path


from companion.clock import FakeClock
from companion.config import Config, TiltConfig, default_timers
from companion.hardware.mock import Hands, mock_pin_factory
from companion.skyrockets import COLOURS
from companion.skyrockets.colours import MAX_DURATION_S
from companion.skyrockets.show import CROWD_TOKENS
from companion.records import Store
from companion.table import Table
from companion.web.i18n import catalog
from companion.web.looks import SOUNDS
from conftest import as_owner, csrf_in
from companion.web.shows.pages import lasted, lasted_at_table

WEB = Path(__file__).resolve().parents[2] / "companion" / "web"
PIN = {"X-Table-Pin": "1234"}



def attribute(page: str, name: str) -> str:
    return re.search(rf"""{name}=(['"])(.*?)\1""", page, re.S)[2]


def test_the_page_hands_its_limits_and_sounds_to_the_script_as_data(client, table):
    page = client.get("/").get_data(as_text=True)
    assert json.loads(attribute(page, "data-sounds")) == SOUNDS
    assert int(attribute(page, "data-crowd-tokens")) == CROWD_TOKENS
    client.post("/pin", data={"pin": "1234", "csrf": csrf_in(page)})
    as_owner(client, table)  # the calibration form is the owner's
    unlocked = client.get("/").get_data(as_text=True)
    assert re.search(rf'id="cal-seconds"[^>]*max="{int(MAX_DURATION_S)}"', unlocked)


def test_every_moment_has_its_own_tune_and_vibration():
    assert set(SOUNDS) == {"low_sand", "runout", "advance", "win", "loss"}
    tunes = [tuple(map(tuple, sound["notes"])) for sound in SOUNDS.values()]
    assert len(set(tunes)) == len(tunes)
    for sound in SOUNDS.values():
        assert all(re.fullmatch(r"[A-G][#b]?\d", note) and 0 < s <= 1 for note, s in sound["notes"])
        assert sound["vibrate"] and all(isinstance(ms, int) and 0 < ms <= 1000 for ms in sound["vibrate"])


def test_the_pages_area_scripts_are_served_from_their_packages(client):
    page = client.get("/").get_data(as_text=True)
    assert '<script type="module" src="/table/static/table.js">' in page
    for script in ("table.js", "alerts.js", "setup.js", "glass.js", "strip.js"):
        response = client.get(f"/table/static/{script}")
        assert response.status_code == 200 and response.mimetype in ("text/javascript", "application/javascript")
    assert client.get("/shows/static/times.js").status_code == 200
    assert client.get("/scorepad/static/scorepad.js").status_code == 200


def test_every_area_is_a_package_with_both_catalogs(client):
    areas = {area.name: area for area in client.application.extensions["areas"]}
    assert {"table", "scorepad", "shows"} <= set(areas)
    for name in ("table", "scorepad", "shows"):
        folder = areas[name].catalogs
        assert (folder / "en.json").exists() and (folder / "ja.json").exists(), name
    assert not (WEB / "table.py").exists() and not (WEB / "templates" / "table").exists()


def test_the_japanese_words_are_the_japanese_editions(client):
    japanese = catalog("ja")
    every = " ".join(japanese.values())
    assert "スカイロケット" in every and "スカイロケッツ" not in every
    assert japanese["countdown.button"] == "ボタンスペース"  # the last space of the countdown track, as the rules name it
    assert "ボタンスペース" in japanese["happening.button"] and "観衆トークン" in japanese["tokens.title"]
    english = catalog("en")
    assert set(english) == set(japanese)


def test_the_run_out_banner_and_the_result_say_what_happened_in_both_languages(client):
    for lang in ("en", "ja"):
        messages = catalog(lang)
        assert "{timer}" in messages["table.turn_it"]
        assert {"{timer}", "{time}", "{n}"} <= set(re.findall(r"\{\w+\}", messages["table.why_loss"]))
    assert catalog("en")["table.turn_it"].format(timer="● Red") == "● Red ran out — turn it!"


# ---- the sensors for the setup check ------------------------------------------------------------

def tilt_table(tmp_path, clock):
    config = Config(database=tmp_path / "tilt.sqlite3", timers=default_timers("tilt"), tilt=TiltConfig())
    return Table(config, Store(config.database), mock_pin_factory(), clock=clock, pin="1234")


def test_before_a_show_the_snapshot_carries_what_each_glass_reads_and_follows_its_moves(tmp_path):
    clock = FakeClock()
    table = tilt_table(tmp_path, clock)
    try:
        before = table.desk.current()
        assert before["outcome"] == "idle"
        assert set(before["sensors"]) == set(COLOURS)
        assert before["sensors"]["red"] == {"source": "tilt", "sensed": True, "pose": "side", "fault": None, "fault_code": None, "fault_params": {}}
        Hands(table).set("red", "a_up", settle=0.5)
        after = table.desk.current()
        assert after["sensors"]["red"]["pose"] == "a_up" and after["seq"] > before["seq"]
    finally:
        table.stop()


def test_emulated_glasses_say_so_and_read_nothing(table):
    sensors = table.desk.current()["sensors"]
    assert all(s == {"source": "emulated", "sensed": False, "pose": None, "fault": None, "fault_code": None, "fault_params": {}} for s in sensors.values())


def test_a_stuck_tilt_pair_is_a_fault_with_its_code_and_seconds_in_the_snapshot(tmp_path):
    clock = FakeClock()
    table = tilt_table(tmp_path, clock)
    try:
        Hands(table).set("red", "both", settle=TiltConfig().both_closed_fault_s + 0.5)
        red = table.desk.current()["sensors"]["red"]
        assert red["fault"].startswith("both tilt switches closed")  # the words for scripts stay
        assert red["fault_code"] == "faults.tilt.both_closed" and red["fault_params"] == {"seconds": 3.0}
        Hands(table).set("red", "a_up", settle=0.5)
        assert table.desk.current()["sensors"]["red"]["fault_code"] is None
    finally:
        table.stop()


# ---- past shows ------------------------------------------------------------------------------

def test_past_shows_are_numbered_with_duration_outcome_and_a_time_for_the_phones_zone(client, table, clock):
    client.post("/api/show/start", json={"event": "training"}, headers=PIN)
    clock.advance(45)
    table.pump()
    client.post("/api/show/abort", headers=PIN)
    page = client.get("/shows").get_data(as_text=True)
    assert re.search(r'<th scope="row"><a href="/shows/1" aria-label="Show 1">#1</a></th>', page)
    assert re.search(r'<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">[^<]+ UTC</time>', page)
    assert "<td>0:45</td>" in page and "Aborted" in page
    assert '<script type="module" src="/shows/static/times.js">' in page


def test_a_show_still_running_has_no_duration():
    assert lasted({"started": "2025-05-04T19:30:00Z", "ended": None}) == "–"
    assert lasted_at_table({"started": "2025-05-04T19:30:00Z", "ended": None}) == "–"
    assert lasted_at_table({"started": "2025-05-04T19:30:00Z", "ended": "2025-05-04T20:31:02Z"}) == "61:02"


def test_a_shows_two_lengths_are_each_named_for_their_clock(client, table, clock):
    """The list gave one length and the show's page another under the same word: one was the show's own clock,
    the other the table's. Each is named for the clock it counts."""
    client.post("/api/show/start", json={"event": "training"}, headers=PIN)
    clock.advance(45)
    table.pump()
    client.post("/api/show/abort", headers=PIN)
    listed = client.get("/shows").get_data(as_text=True)
    assert '<th scope="col">Length</th>' in listed and "<td>0:45</td>" in listed
    assert "Length: on the show&#39;s own clock" in listed
    page = client.get("/shows/1").get_data(as_text=True)
    assert "<dt>Length (show clock)</dt><dd>0:45</dd>" in page
    assert "<dt>Length (table&#39;s clock)</dt><dd>0:45</dd>" in page


# ---- laying a glass down from the page ----------------------------------------------------

def test_a_glass_is_laid_on_its_side_from_the_page_as_a_long_press_does(client, table, clock):
    client.post("/api/show/start", json={"event": "training"}, headers=PIN)
    clock.advance(5)
    laid = client.post("/api/show/lay", json={"timer": "red"}, headers=PIN)
    assert laid.status_code == 200
    red = laid.json["timers"]["red"]
    assert red["state"] == "lying" and red["pose"] == "side" and 24 <= red["top_s"] <= 25.5
    again = client.post("/api/show/lay", json={"timer": "red"}, headers=PIN)
    assert again.status_code == 409 and again.json["field"] == "timer"
    assert client.post("/api/show/lay", json={"timer": "red"}).status_code == 403
    assert client.post("/api/show/lay", json={"timer": "pink"}, headers=PIN).json["field"] == "timer"
    log = client.get(f"/api/shows/{laid.json['id']}/log").get_data(as_text=True).splitlines()
    assert json.loads(log[-1]) == {"t": json.loads(log[-1])["t"], "type": "pose", "timer": "red", "pose": "side"}
