"""The table's own screen in headless Chromium at a monitor's 1280x720 and the Touch Display's 800x480."""

import json
import re
import urllib.request

import pytest

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
  };
}"""
FONT_PX = "(selector) => parseFloat(getComputedStyle(document.querySelector(selector)).fontSize)"


@pytest.fixture
def expect(playwright):
    from playwright.sync_api import expect

    return expect


@pytest.fixture(params=list(SCREENS))
def screen(request, launch, demo):
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
    shot(page, f"kiosk-{name}-idle")


def test_the_screen_follows_a_show(screen, expect, shot):
    page, name, demo = screen
    page.goto(demo.url + "kiosk/")
    expect(page.locator("#kiosk-status")).to_have_text("No show")
    start(demo.url)
    expect(page.locator("#kiosk-status")).to_have_text("The show is running")
    expect(page.locator("#kiosk-title")).to_have_text("Training")
    expect(page.locator("#kiosk-track li.here")).to_have_count(1)
    expect(page.locator("#kiosk-tokens")).to_have_text("★★★")
    expect(page.locator("#kiosk-green .state")).to_have_text("Lying on its side")

    # The seconds count down in the browser between updates, in large digits.
    seconds = page.locator("#kiosk-red .seconds")
    expect(seconds).to_have_text(re.compile(r"^0:[0-2]\d$"))
    first = seconds.inner_text()
    expect(seconds).not_to_have_text(first)
    assert seconds.inner_text() < first
    assert page.evaluate(FONT_PX, "#kiosk-red .seconds") >= 0.06 * page.viewport_size["height"]

    # Red (30 s) runs out after 3 s at 10x: a crowd token turns and red stands empty.
    expect(page.locator("#kiosk-tokens")).to_have_text("★★☆")
    expect(page.locator("#kiosk-red .state")).to_have_text("Empty")
    assert page.evaluate("() => document.documentElement.scrollHeight") == page.viewport_size["height"]
    shot(page, f"kiosk-{name}-show")


def test_the_screen_speaks_japanese(launch, demo, expect):
    context = launch(viewport=SCREENS["touch-display"])
    page = context.pages[0] if context.pages else context.new_page()
    page.goto(demo.url + "lang/ja?next=/kiosk/")
    expect(page.locator("#kiosk-status")).to_have_text("ショーなし")
    expect(page.locator(".kiosk-join .label")).to_have_text("スマートフォンでテーブルを開く")
    context.close()
