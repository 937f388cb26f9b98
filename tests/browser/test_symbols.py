"""Each timer's symbol beside its colour on the table's screen, the past show's timeline and its shared result,
in a real browser, with axe-core finding nothing wrong on those pages."""

import json
import re
import urllib.request

from companion.skyrockets import COLOURS
from companion.web.looks import LOOKS

from .accessibility import assert_symbols, no_axe_violations

NAMES = {c: c.capitalize() for c in COLOURS}


def start(url: str) -> dict:
    request = urllib.request.Request(url + "api/show/start", data=json.dumps({"event": "training"}).encode(),
                                     method="POST", headers={"X-Table-Pin": "1234", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_the_screen_the_timeline_and_the_result_show_every_timer_by_its_symbol(browser, demo, shot):
    from playwright.sync_api import expect

    page = browser.page
    page.goto(browser.url + "kiosk/")
    expect(page.locator("#kiosk-status")).to_have_text("No show")
    start(browser.url)
    expect(page.locator("#kiosk-track li.here")).to_have_count(1)
    assert_symbols(page, ".kiosk-glass", COLOURS, NAMES)  # each glass tile: its symbol in its colour, its name
    assert_symbols(page, "#kiosk-track li.here", ["orange"], {"orange": ""})  # the countdown glass's space
    no_axe_violations(page, "the table's screen during a show")

    demo.clock.advance(60.001)  # red at 30 s, yellow at 50 s, red again at 1:00: the third run-out loses Training
    expect(page.locator("#kiosk-status")).to_have_text("Lost")
    runouts = [r["timer"] for r in demo.table.desk.snapshot()["runouts"]]
    page.goto(browser.url + "shows/1")
    in_play = page.evaluate("() => [...document.querySelectorAll('svg.timeline g.glass')].map((g) => g.dataset.timer)")
    assert in_play and set(in_play) <= set(COLOURS)
    for colour in in_play:
        marks = page.locator(f'svg.timeline g.glass[data-timer="{colour}"] text').all_text_contents()
        assert set(marks) <= {LOOKS[colour]["symbol"], "✕"} and marks.count("✕") == runouts.count(colour)
        assert marks.count(LOOKS[colour]["symbol"]) >= 1 + runouts.count(colour)
    assert page.locator("svg.timeline desc").text_content().startswith("Ran out: Red at 30 s")
    said = ", ".join(f"{LOOKS[c]['symbol']} {NAMES[c]}" for c in runouts)
    expect(page.locator("#share-text")).to_contain_text(f"Ran out: {said}")
    assert re.search(r"Ran out: .*\n#Skyrockets$", page.locator("#share-text").inner_text())
    no_axe_violations(page, "a past show: its timeline and result")
    shot(page, "symbols-past-show")


def test_the_strip_on_the_page_names_each_segment_by_its_symbol(browser):
    from playwright.sync_api import expect

    page = browser.page
    page.goto(browser.url)
    expect(page.locator("#strip-rows .strip-row")).to_have_count(8)  # six segments, countdown, tokens
    assert_symbols(page, "#strip-rows .strip-row[data-colour]", COLOURS, NAMES)
