"""The pages through Flask's test client: every page, its headers, no inline script, the PIN, the languages."""

import html
import json
import re
import sqlite3
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import pytest

from companion.errors import BadInput
from companion.hardware import sensors
from companion.skyrockets import COLOURS, parse_event
from companion.web import PAGE_BUDGET, create_app
from companion.web.show import pages as table_page
from companion.web.i18n import CATALOG_DIR, catalog
from companion.web.looks import LOOKS
from conftest import csrf_in

WEB = Path(__file__).resolve().parents[2] / "companion" / "web"
PIN = {"X-Table-Pin": "1234"}
SOLO = {"id": "solo", "name": "Solo", "countdown": "red", "running": ["red"], "countdown_start": 1}
LAN_PHONE = {"REMOTE_ADDR": "192.168.1.20"}
IMPORTED = re.compile(r"""^import\b[^"']*["']([^"']+)["']""", re.M)  # a module's static imports


@pytest.fixture
def client(table):
    return create_app(table, testing=True, config={"ALLOWED_HOSTS": ["192.168.1.20"]}).test_client()


class Page(HTMLParser):
    """What the tests look for in a page: scripts, event-handler and style attributes, texts."""

    def __init__(self, html: str):
        super().__init__()
        self.scripts, self.handlers, self.styles, self.ids, self.links = [], [], [], [], []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script":
            self.scripts.append(attrs)
        if tag == "style":
            self.styles.append(tag)
        self.handlers += [name for name in attrs if name.startswith("on")]
        self.styles += [name for name in attrs if name == "style"]
        if "id" in attrs:
            self.ids.append(attrs["id"])
        for name in ("src", "href"):
            if attrs.get(name):
                self.links.append(attrs[name])


def csrf(client, path="/"):
    return csrf_in(client.get(path).get_data(as_text=True))


def unlock(client):
    response = client.post("/pin", data={"pin": "1234", "csrf": csrf(client), "next": "/"})
    assert response.status_code == 303


def finish_a_show(client, table, clock):
    client.post("/api/show/start", json={"event": SOLO}, headers=PIN)
    clock.advance(30.0)
    table.pump()
    assert client.post("/api/show/flip", json={"timer": "red"}, headers=PIN).json["outcome"] == "win"
    return client.get("/api/shows").json[0]["id"]


def all_pages(client, table, clock):
    show_id = finish_a_show(client, table, clock)
    return ["/", "/scorepad", "/shows", f"/shows/{show_id}", "/pin", "/kiosk/", "/kiosk/progress", "/no-such-page"]


# ---- every page ------------------------------------------------------------------

def test_every_page_has_no_inline_script_handler_or_style(client, table, clock):
    locked = all_pages(client, table, clock)
    unlock(client)
    for path in locked + ["/", "/scorepad"]:  # the unlocked pages hold the forms
        response = client.get(path)
        assert response.status_code in (200, 404), path
        page = Page(response.get_data(as_text=True))
        assert all(script.get("src") and script.get("type") == "module" for script in page.scripts), path
        assert page.handlers == [], path
        assert page.styles == [], path
        assert len(page.ids) == len(set(page.ids)), path
        assert all(link.startswith(("/", "#", "http://localhost/")) for link in page.links), (path, page.links)


def test_every_answer_carries_the_security_headers(client, table, clock):
    paths = all_pages(client, table, clock) + ["/api/show", "/api/nope", "/static/css/site.css"]
    for path in paths:
        headers = client.get(path).headers
        csp = headers["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "unsafe-inline" not in csp and "script-src 'self'" in csp, path
        assert headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["Referrer-Policy"] == "no-referrer", path


def test_the_session_cookie_is_httponly_and_samesite_strict(client):
    client.get("/")
    cookie = client.get_cookie("companion_session")
    assert cookie is not None and cookie.http_only and cookie.same_site == "Strict"


def test_errors_outside_the_api_are_friendly_pages(client):
    missing = client.get("/no-such-page")
    assert missing.status_code == 404 and missing.mimetype == "text/html"
    assert "Nothing here" in missing.get_data(as_text=True) and "Traceback" not in missing.get_data(as_text=True)
    wrong_method = client.post("/scorepad", data={"csrf": csrf(client)})
    assert wrong_method.status_code == 405 and wrong_method.mimetype == "text/html"
    too_big = client.post("/pin", data={"pin": "1" * 40_000, "csrf": "x"})
    assert too_big.status_code == 413 and too_big.mimetype == "text/html"


# ---- the table page -------------------------------------------------------------------

def test_the_pin_is_shown_only_on_the_tables_own_screen(client):
    assert '<strong id="table-pin">1234</strong>' in client.get("/").get_data(as_text=True)
    for address in ("::1", "127.0.0.1"):
        assert "1234" in client.get("/", environ_base={"REMOTE_ADDR": address}).get_data(as_text=True)
    from_a_phone = client.get("/", environ_base=LAN_PHONE).get_data(as_text=True)
    assert "table-pin" not in from_a_phone and "1234" not in from_a_phone


def test_controls_appear_only_after_the_pin(client):
    locked = client.get("/").get_data(as_text=True)
    assert 'id="pin"' in locked and 'id="start-form"' not in locked
    unlock(client)
    unlocked = client.get("/").get_data(as_text=True)
    assert 'id="start-form"' in unlocked and 'id="event-form"' in unlocked
    assert 'id="calibration-form"' not in unlocked  # the owner's: the PIN does not change the config
    assert 'data-unlocked="1"' in unlocked
    client.post("/pin/forget", data={"csrf": csrf(client), "next": "/"})
    assert 'id="start-form"' not in client.get("/").get_data(as_text=True)


def test_a_wrong_pin_on_the_page_is_refused_then_slowed_down(client):
    token = csrf(client)
    for _ in range(3):
        refused = client.post("/pin", data={"pin": "0000", "csrf": token}, environ_base=LAN_PHONE)
        assert refused.status_code == 403 and "That PIN is wrong." in refused.get_data(as_text=True)
    slowed = client.post("/pin", data={"pin": "1234", "csrf": token}, environ_base=LAN_PHONE)
    assert slowed.status_code == 429 and int(slowed.headers["Retry-After"]) >= 1
    assert 'id="start-form"' not in client.get("/").get_data(as_text=True)


def test_the_pin_form_needs_its_csrf_token(client):
    client.get("/")
    assert client.post("/pin", data={"pin": "1234"}).status_code == 403
    assert client.post("/pin", data={"pin": "1234", "csrf": "forged"}).status_code == 403


def test_the_pin_form_goes_back_only_to_this_site(client):
    token = csrf(client)
    back = client.post("/pin", data={"pin": "1234", "csrf": token, "next": "/scorepad"})
    assert back.headers["Location"] == "/scorepad"
    elsewhere = client.post("/pin", data={"pin": "1234", "csrf": token, "next": "//evil.example/"})
    assert elsewhere.headers["Location"] == "/"


def test_the_form_limits_are_the_rules_limits():
    base = {"id": "e", "countdown": "red", "running": ["red"]}
    for field in ("id", "name", "rules"):
        limit = table_page.EVENT_LIMITS[field]
        parse_event(dict(base, **{field: "x" * limit}))
        with pytest.raises(BadInput):
            parse_event(dict(base, **{field: "x" * (limit + 1)}))
    for field in ("hand_size", "countdown_start"):
        low, high = table_page.EVENT_LIMITS[field]
        parse_event(dict(base, **{field: low}))
        parse_event(dict(base, **{field: high}))
        for wrong in (low - 1, high + 1):
            with pytest.raises(BadInput):
                parse_event(dict(base, **{field: wrong}))


def test_the_custom_event_form_carries_the_servers_limits(client):
    unlock(client)
    page = client.get("/").get_data(as_text=True)
    assert re.search(r'name="event.id" required maxlength="64"', page)
    assert re.search(r'name="event.hand_size"[^>]*min="0" max="20"', page)
    assert re.search(r'name="event.countdown_start"[^>]*min="1" max="9"', page)
    assert 'maxlength="2000"' in page


def test_every_timer_is_named_with_its_own_symbol(client):
    page = client.get("/").get_data(as_text=True)
    assert len({look["symbol"] for look in LOOKS.values()}) == len(COLOURS) == len(LOOKS)
    assert list(LOOKS) == list(COLOURS)
    for colour in COLOURS:
        tile = re.search(rf'id="timer-{colour}".*?</h2>', page, re.S)[0]
        assert LOOKS[colour]["symbol"] in tile and colour.capitalize() in tile
    assert json.loads(re.search(r"data-looks='([^']+)'", page)[1]) == LOOKS


def test_the_qr_code_gives_the_address_other_phones_can_open(client, table, monkeypatch):
    from_a_phone = client.get("/", base_url="http://192.168.1.20:8000", environ_base=LAN_PHONE)
    page = from_a_phone.get_data(as_text=True)
    assert '<svg viewBox="0 0' in page and 'class="qr-code"' in page
    assert ">http://192.168.1.20:8000/<" in page
    # On the table's own screen (a loopback address) the QR code must name the table's network address.
    monkeypatch.setattr(table.door, "listening", ("0.0.0.0", 8000))
    client.application.config["LAN_ADDRESSES"] = ["10.1.2.3"]
    on_the_table = client.get("/", base_url="http://127.0.0.1:8000").get_data(as_text=True)
    assert ">http://10.1.2.3:8000/<" in on_the_table


def test_a_nonsense_host_header_is_refused_not_a_server_error(client):
    assert client.get("/", headers={"Host": "127.0.0.1:nonsense"}).status_code == 400  # a port is digits


# ---- score pad and past shows -------------------------------------------------------------

def test_the_scorepad_shows_best_stars_and_the_rotation(client, table, clock):
    client.post("/api/players", json={"players": ["Aiko", "Ben"]}, headers=PIN)
    finish_a_show(client, table, clock)
    page = client.get("/scorepad").get_data(as_text=True)
    assert re.search(r"<th scope=\"row\">Solo</th>\s*<td><span class=\"stars\"><span aria-hidden=\"true\">★★★</span>"
                     r"<span class=\"visually-hidden\">3 of 3 stars</span></span>", page)
    assert "Ben<strong> (starts next)</strong>" in page  # the start player passed on after the show
    assert 'href="/api/scorepad.csv"' in page
    assert 'id="players-form"' not in page
    unlock(client)
    assert 'id="players-form"' in client.get("/scorepad").get_data(as_text=True)


def test_past_shows_list_and_timeline(client, table, clock):
    show_id = finish_a_show(client, table, clock)
    listing = client.get("/shows").get_data(as_text=True)
    assert f'href="/shows/{show_id}"' in listing and "Won" in listing
    page = client.get(f"/shows/{show_id}").get_data(as_text=True)
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in page and "<polyline" in page
    assert "show time (s)" in page and "sand on top (s)" in page
    assert f'href="/api/shows/{show_id}/log"' in page


def test_a_damaged_journal_still_gets_its_page(client, table, clock):
    show_id = finish_a_show(client, table, clock)
    with sqlite3.connect(table.store.path) as db:
        db.execute("UPDATE journal SET line = '{broken' WHERE show_id = ? AND n = 2", (show_id,))
    response = client.get(f"/shows/{show_id}")
    assert response.status_code == 200
    assert "cannot be replayed" in response.get_data(as_text=True) and "line 2" in response.get_data(as_text=True)


@pytest.mark.parametrize("path", ["/shows/999", "/shows/99999999999999999999999"])
def test_an_unknown_show_is_a_404_page(client, path):
    response = client.get(path)
    assert response.status_code == 404 and "There is no show" in response.get_data(as_text=True)


# ---- languages -------------------------------------------------------------------------------

def test_the_browser_language_chooses_japanese(client):
    page = client.get("/", headers={"Accept-Language": "ja,en;q=0.5"}).get_data(as_text=True)
    assert '<html lang="ja" data-catalog="/i18n/ja.json?area=table">' in page
    assert "観衆トークン" in page and "カウントダウン" in page and "赤" in page
    english = client.get("/", headers={"Accept-Language": "de,en;q=0.5"}).get_data(as_text=True)
    assert '<html lang="en"' in english and "Crowd tokens" in english


def test_the_language_switch_sets_a_cookie_and_goes_back(client):
    response = client.get("/lang/ja?next=/scorepad")
    assert response.status_code == 303 and response.headers["Location"] == "/scorepad"
    assert client.get_cookie("lang").value == "ja"
    page = client.get("/scorepad", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "スコアパッド" in page and 'href="/lang/en?next=/scorepad"' in page
    assert client.get("/lang/xx?next=//evil.example").headers["Location"] == "/"
    assert client.get_cookie("lang").value == "ja"


def test_the_catalogs_have_the_same_keys_and_the_proper_japanese(client):  # the app registers the areas
    for folder in (CATALOG_DIR, *WEB.glob("*/i18n")):
        pair = [json.loads((folder / f"{lang}.json").read_text("utf-8")) for lang in ("en", "ja")]
        assert set(pair[0]) == set(pair[1]), folder
    english, japanese = catalog("en"), catalog("ja")
    assert [japanese[f"timer.{c}"] for c in COLOURS] == ["赤", "橙", "黄", "緑", "青", "紫"]
    assert japanese["tokens.title"] == "観衆トークン" and japanese["countdown.title"] == "カウントダウン"
    for key, text in english.items():  # the same {slots} in both, so a message never loses a value
        assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", japanese[key])), key


def test_every_message_the_code_asks_for_is_in_the_catalog(client):
    known = {**catalog("en"), **sensors.words()["en"]}  # the table serves its kinds' words beside the catalogs
    sources = [*WEB.glob("**/templates/**/*.html"), *WEB.glob("**/static/**/*.js"), *WEB.glob("**/*.py")]
    asked = set()
    for path in sources:
        text = path.read_text("utf-8")
        asked |= set(re.findall(r"""\b_\(\s*["']([\w.]+)["']""", text))
        asked |= set(re.findall(r"""\bt\(\s*["']([\w.]+)["']""", text))
        asked |= set(re.findall(r"""\btranslate\(\s*["']([\w.]+)["']""", text))
    # keys built from data: every value the data can take
    asked |= {f"timer.{c}" for c in COLOURS}
    asked |= {f"{kind}.{x}" for kind, values in {
        "outcome": ("idle", "running", "win", "loss", "aborted"), "state": ("running", "empty", "lying", "out_of_play"),
        "warning": ("countdown_turned_while_running", "not_in_play"), "result": ("win", "loss"),
        "start": ("builtin", "saved"), "custom": ("running", "lying", "out"), "nav": ("table", "scorepad", "shows"),
        "lang": ("en", "ja"), "error": ("400", "403", "404", "405", "409", "413", "429", "500", "other"),
        "setup.driver": ("spi", "pwm", "pi5", "fake"),
        "setup.pose": ("a_up", "b_up", "side"), "setup.part": ("countdown", "tokens"),
        "cues": ("low_sand", "runout", "advance", "win", "loss", "switch", "switch_on"),
        "status": ("running", "win", "loss"), "table": ("alerts_on",),
        "maintenance.state": ("waiting", "installing", "done", "rolled_back", "refused"),
    }.items() for x in values}
    for kind in map(sensors.SensorKind.for_page, sensors.kinds()):  # the words each kind's page shows
        fields = [word for f in kind["fields"] for word in (f["label"], f["help"])]
        asked |= {word for word in (kind["label"], *kind["switch_words"], kind["reads_word"], kind["title"], *fields)
                  if word}
    missing = sorted(key for key in asked if "." in key and not key.endswith(".") and key not in known)
    assert missing == []


def test_a_table_serves_the_words_of_its_own_areas_only(client):
    from companion.mqtt.hall import Hall, create_hall_app

    hall = create_hall_app(Hall(), testing=True).test_client()  # in the same process: its areas registered too
    assert "hall.title" in hall.get("/i18n/en.json?area=hall").json
    served = client.get("/i18n/ja.json?area=table").json
    assert "hall.title" not in served and served["countdown.title"] == "カウントダウン"
    assert client.get("/i18n/ja.json?area=hall").status_code == 404


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_table_page_and_its_assets_stay_under_100_kb(client, lang):
    client.set_cookie("lang", lang)
    phone = {"Accept-Encoding": "gzip, deflate, br"}  # what a phone's browser downloads, as it asks for it
    page = client.get("/", headers=phone)
    total = len(page.data)
    text = page.get_data(as_text=True)
    parsed = Page(text)
    assets = {link for link in parsed.links if link.startswith("/static/")}
    assets.add(html.unescape(re.search(r'data-catalog="([^"]+)"', text).group(1)))  # fetched by the script
    modules = [script["src"] for script in parsed.scripts if script.get("src")]
    while modules:  # every module the page's scripts import, and theirs
        path = modules.pop()
        assets.add(path)
        source = client.get(path).get_data(as_text=True)
        modules += [url for url in (urljoin(path, name) for name in IMPORTED.findall(source)) if url not in assets]
    for path in assets:
        response = client.get(path, headers=phone)
        assert response.status_code == 200, path
        total += len(response.data)
    assert total <= PAGE_BUDGET, total


def test_a_second_app_renders_its_pages_without_compiling_a_template(table, monkeypatch):
    """Templates are compiled once per process (companion.web.compiled): the suite builds an app per test, and
    compiling every template again for each was most of what rendering a page cost it."""
    import jinja2

    create_app(table, testing=True).test_client().get("/")
    compiled, compile_ = [], jinja2.Environment.compile

    def compiling(env, source, *args, **kwargs):
        compiled.append(args)
        return compile_(env, source, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", compiling)
    assert create_app(table, testing=True).test_client().get("/").status_code == 200
    assert compiled == []
