"""The table's own screen in headless Chromium at a monitor's 1280x720 and the Touch Display's 800x480."""

import json
import re
import urllib.request
from datetime import datetime

import pytest

from companion.clock import FakeClock
from companion.table import demo_table

from .conftest import api, held_back

SCREENS = {"monitor": {"width": 1280, "height": 720}, "touch-display": {"width": 800, "height": 480}}

# Every glass tile's box, and whether the page scrolls: the screen must show it all at once.
GEOMETRY = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {
    tiles: [...document.querySelectorAll('.kiosk-glass')].map(box),
    glasses: [...document.querySelectorAll('.kiosk-glass .hourglass')].map(box),
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    view: [innerWidth, innerHeight],
    qr: box(document.querySelector('.kiosk-qr svg')),
    pin: box(document.querySelector('#kiosk-pin')),
    url: box(document.querySelector('#kiosk-url')),
  };
}"""
FONT_PX = "(selector) => parseFloat(getComputedStyle(document.querySelector(selector)).fontSize)"


LAN = "192.168.1.20"  # the address the table's Wi-Fi gave the Pi, in these tests


@pytest.fixture
def on_lan(demo):
    """The demo as a Pi runs it: listening on every address, with one on the table's Wi-Fi."""
    demo.table.door.listening = ("0.0.0.0", int(demo.url.rsplit(":", 1)[1].strip("/")))
    demo.app.config.update(LAN_ADDRESSES=[LAN], MDNS_NAME="raspberrypi.local")
    return demo


@pytest.fixture(params=list(SCREENS))
def screen(request, launch, on_lan):
    demo = on_lan
    """A browser on the table itself at one screen size, recording requests and script errors."""
    context = launch(viewport=SCREENS[request.param])
    page = context.pages[0] if context.pages else context.new_page()
    requests, errors = [], []
    context.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page, request.param, demo
    context.close()
    assert [url for url in requests if not url.startswith(demo.url)] == [], "a request left 127.0.0.1"
    assert errors == []


def start(url: str, event: str = "training") -> dict:
    request = urllib.request.Request(url + "api/show/start", data=json.dumps({"event": event}).encode(),
                                     method="POST", headers={"X-Table-Pin": "1234", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def inside(box, view) -> bool:
    return box[0] >= 0 and box[1] >= 0 and box[2] <= view[0] + 0.5 and box[3] <= view[1] + 0.5


def test_the_screen_shows_everything_at_once_and_large(screen, expect, shot):
    page, name, demo = screen
    page.goto(demo.url + "kiosk/")
    expect(page.locator("#kiosk-status")).to_have_text("No show")
    expect(page.locator("#kiosk-pin")).to_have_text("1234")  # the table's own screen shows the PIN
    expect(page.locator("header.top")).to_be_hidden()  # no phone navigation on the table's screen
    g = page.evaluate(GEOMETRY)
    view = g["view"]
    assert g["scroll"] == view, "nothing scrolls"
    assert len(g["tiles"]) == 6 and all(inside(tile, view) for tile in g["tiles"])
    for left, right in zip(g["tiles"], g["tiles"][1:]):
        assert left[2] <= right[0], "side by side, not overlapping"
    heights = [glass[3] - glass[1] for glass in g["glasses"]]
    assert min(heights) >= 0.25 * view[1], "each glass a quarter of the screen's height or more"
    qr = g["qr"]
    assert inside(qr, view) and qr[2] - qr[0] >= 0.2 * view[1], "a QR code a phone can read from a seat"
    assert inside(g["pin"], view)
    assert page.evaluate(FONT_PX, "#kiosk-pin") >= 0.08 * view[1]
    # The QR code and the address are the Pi's on the Wi-Fi, never the screen's own 127.0.0.1, on one line.
    port = demo.url.rsplit(":", 1)[1].strip("/")
    expect(page.locator("#kiosk-url")).to_have_text(f"{LAN}:{port}")
    url = g["url"]
    assert inside(url, view) and url[3] - url[1] < 1.6 * page.evaluate(FONT_PX, "#kiosk-url"), "one line, whole"
    assert "127.0.0.1" not in page.inner_html(".kiosk-join")
    shot(page, f"kiosk-{name}-idle")


def test_the_screen_follows_a_show(screen, expect, shot):
    page, name, demo = screen
    page.clock.install()
    page.clock.pause_at(datetime(2030, 1, 1))  # the page's timers run only when the test moves its clock
    page.goto(demo.url + "kiosk/")
    expect(page.locator("#kiosk-status")).to_have_text("No show")
    start(demo.url)
    expect(page.locator("#kiosk-status")).to_have_text("The show is running")
    expect(page.locator("#kiosk-title")).to_have_text("Training")
    expect(page.locator("#kiosk-track li.here")).to_have_count(1)
    expect(page.locator("#kiosk-tokens")).to_have_text("★★★")
    expect(page.locator("#kiosk-green .state")).to_have_text("Lying on its side")

    # The seconds count down in the browser between updates, in large digits.
    seconds = page.locator("#kiosk-red .seconds .clock")
    page.clock.run_for(1_500)  # a second and a half of sand: the digits show the next whole second down
    expect(seconds).to_have_text(re.compile(r"^0:[0-2]\d$"))
    first = seconds.inner_text()
    page.clock.run_for(2_000)
    expect(seconds).not_to_have_text(first)
    assert seconds.inner_text() < first
    assert page.evaluate(FONT_PX, "#kiosk-red .seconds") >= 0.06 * page.viewport_size["height"]

    demo.clock.advance(30.001)  # red (30 s) runs out: a crowd token turns
    expect(page.locator("#kiosk-tokens")).to_have_text("★★☆")
    expect(page.locator("#kiosk-tokens-said")).to_have_text("2 of 3 star side up")  # what a screen reader says
    expect(page.locator("#kiosk-red .seconds .said")).to_have_text(re.compile(r"^\d+ s left$"))
    assert page.evaluate("() => document.documentElement.scrollHeight") == page.viewport_size["height"]
    shot(page, f"kiosk-{name}-show")


def test_the_screen_speaks_japanese(launch, demo, expect):
    context = launch(viewport=SCREENS["touch-display"])
    page = context.pages[0] if context.pages else context.new_page()
    page.goto(demo.url + "lang/ja?next=/kiosk/")
    expect(page.locator("#kiosk-status")).to_have_text("ショーなし")
    expect(page.locator(".kiosk-join .label")).to_have_text("スマートフォンでテーブルを開く")
    context.close()


def test_a_screen_up_before_the_wi_fi_shows_the_address_once_it_comes(launch, on_lan, expect):
    demo = on_lan
    demo.app.config["LAN_ADDRESSES"], demo.app.config["MDNS_NAME"] = [], ""  # no network yet, no mDNS
    context = launch(viewport=SCREENS["touch-display"])
    page = context.pages[0] if context.pages else context.new_page()
    page.clock.install()  # the page's timers run when this test says, not when the machine gets round to them
    page.goto(demo.url + "kiosk/")
    expect(page.locator("#kiosk-url")).to_have_text("No network address yet: connect the table to its Wi-Fi.")
    expect(page.locator("#kiosk-qr")).to_be_hidden()
    demo.app.config["LAN_ADDRESSES"] = [LAN]  # the Wi-Fi comes up
    page.clock.run_for(5000)
    expect(page.locator("#kiosk-url")).to_contain_text(LAN)
    expect(page.locator("#kiosk-qr svg")).to_be_visible()
    context.close()


def test_glasses_do_not_read_running_once_the_show_is_over(screen, expect):
    page, _, demo = screen
    page.goto(demo.url + "kiosk/")
    start(demo.url)
    expect(page.locator("#kiosk-status")).to_have_text("The show is running")
    request = urllib.request.Request(demo.url + "api/show/abort", data=b"{}", method="POST",
                                     headers={"X-Table-Pin": "1234", "Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).close()
    expect(page.locator("#kiosk-status")).not_to_have_text("The show is running")
    for colour in ("red", "orange", "yellow", "green", "blue", "purple"):
        expect(page.locator(f"#kiosk-{colour} .state")).not_to_have_text(re.compile("Running|Lying"))


# Two different kanji drawn in the kiosk's own font: as glyphs they differ; as tofu (no CJK font) they
# are the same empty box, pixel for pixel.
GLYPHS_DIFFER = r"""() => {
  const font = getComputedStyle(document.querySelector('#kiosk-title')).fontFamily;
  const draw = (text) => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 64;
    const ink = canvas.getContext('2d');
    ink.font = `48px ${font}`;
    ink.fillText(text, 4, 52);
    return Array.from(ink.getImageData(0, 0, 64, 64).data).join(',');
  };
  return draw('帰') !== draw('雁') && draw('帰') !== draw('\u{10FFFD}');
}"""


def test_japanese_on_the_screen_is_drawn_as_glyphs_not_boxes(launch, demo, expect, shot):
    """install.sh --kiosk brings a CJK font; without one Chromium draws every kanji as the same box."""
    context = launch(viewport=SCREENS["touch-display"])
    page = context.pages[0] if context.pages else context.new_page()
    page.goto(demo.url + "lang/ja?next=/kiosk/")
    expect(page.locator("#kiosk-status")).to_have_text("ショーなし")
    assert page.evaluate(GLYPHS_DIFFER), "Japanese renders as tofu: no CJK font (Debian fonts-noto-cjk)"
    shot(page, "kiosk-touch-display-ja")
    context.close()


def test_one_tap_on_the_screen_lets_a_new_phone_in_without_the_pin(launch, on_lan, expect):
    """During a PIN-guessing attack the owner pairs a new phone from the table's screen: tap, scan, tap."""
    demo = on_lan
    screen = launch(viewport=SCREENS["monitor"]).new_page()
    screen.goto(demo.url + "kiosk/")
    screen.click("#kiosk-pair")
    expect(screen.locator("#kiosk-pair-qr svg")).to_be_visible()
    expect(screen.locator("#kiosk-pair-label")).to_contain_text("Scan")
    code = demo.app.extensions["pairings"]._open  # the code the QR code carries (the phone's camera reads it)
    assert len(code) == 1
    phone = launch(viewport={"width": 390, "height": 844}).new_page()
    phone.goto(f"{demo.url}pair/{next(iter(code))}")
    phone.click("form.pin-form button[type=submit]")
    expect(phone.locator("#start-form")).to_be_visible()  # unlocked: the page offers to start a show


def test_the_pairing_button_waits_for_its_script(launch, on_lan, expect):
    """The screen's script fetches its words before it listens: until then its button is off, not dead to a tap
    (a tap while the words were on their way showed no code, and nothing said why)."""
    screen = launch(viewport=SCREENS["monitor"]).new_page()
    with held_back(screen, re.compile(r"/i18n/\w+\.json")) as held:
        screen.goto(on_lan.url + "kiosk/")
        expect(screen.locator("#kiosk-pin")).to_be_visible()
        expect(screen.locator("#kiosk-pair")).to_be_disabled()
        held.some("the screen never asked for its words")
    expect(screen.locator("#kiosk-pair")).to_be_enabled()
    screen.click("#kiosk-pair")
    expect(screen.locator("#kiosk-pair-qr svg")).to_be_visible()


SOLO = {"id": "solo", "name": "Solo", "hand_size": 3, "countdown": "red", "running": ["red", "yellow"],
        "lying": [], "countdown_start": 1, "rules": ""}
KIOSK_WORDS = {"en": {"low": "⚠ Low sand", "running": "Running", "won": "Won · 3 stars"},
               "ja": {"low": "⚠ 残りわずか", "running": "作動中", "won": "成功・星3つ"}}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_low_sand_has_a_sign_and_a_word_and_the_stars_are_counted_in_words(serve, phone, tmp_path, expect, lang):
    """Not only amber digits: ⚠ and a word. The result says how many stars: a voice reads ★ as 黒星."""
    words = KIOSK_WORDS[lang]
    clock = FakeClock()
    served = serve(demo_table(tmp_path / "demo.sqlite3", clock=clock))
    page = phone(served.url, viewport=SCREENS["touch-display"], lang=lang)
    page.goto(served.url + "kiosk/")
    api(served.url, "/api/show/start", {"event": SOLO})
    state = page.locator("#kiosk-yellow .state")
    expect(state).to_have_text(words["running"])
    clock.advance(40.5)  # yellow (50 s) has 9.5 s left
    expect(state).to_have_text(words["low"])
    expect(page.locator("#kiosk-yellow")).to_have_class(re.compile(r"\blow\b"))
    api(served.url, "/api/show/flip", {"timer": "red"})  # the empty countdown glass turned: the finale, won
    expect(page.locator("#kiosk-status")).to_have_text(words["won"])
    expect(state).not_to_have_text(words["low"])
    assert "★" not in page.locator("#kiosk-status").inner_text()
