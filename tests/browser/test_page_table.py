"""The table page at a real table, in a phone-sized browser: run-out banner, setup check, alerts, PIN after a restart.

The physical glasses are gpiozero mock pins driven from the test, as hands in
the cradles would; the emulated ones are the demo's. Every table runs on a fake
clock: show time passes only when the test moves it. Sound, vibration and the
wake lock are watched through the browser's own objects, wrapped before the
page loads; nothing leaves 127.0.0.1.
"""

import json
import re

import pytest

from companion.clock import FakeClock
from companion.config import Config, TiltConfig, default_timers
from companion.hardware.mock import Hands, mock_pin_factory
from companion.records import Store
from companion.table import Table, demo_table
from companion.web import create_app
from companion.web.i18n import catalog

from .conftest import COUNT_POSTS, PHONE, api, held_back

TABLET = {"width": 768, "height": 1024}
TRAINING_SETUP = {"red": "a_up", "yellow": "a_up", "purple": "a_up", "orange": "a_up", "green": "side", "blue": "side"}


def tilt_table(tmp_path) -> Table:
    config = Config(database=tmp_path / "tilt.sqlite3", timers=default_timers("tilt"),
                    tilt=TiltConfig(start_window_s=2.0))
    return Table(config, Store(config.database), mock_pin_factory(), clock=FakeClock(), pin="1234")


def put(table: Table, colour: str, pose: str) -> None:
    """Set a glass in its cradle, its two ball switches closed or open as the pose has them, and let the switches
    settle (a tenth of a second passes on the table's clock)."""
    Hands(table).set(colour, pose)


def unlock(page, expect):
    page.fill("#pin", "1234")
    page.click(".pin-form button[type=submit]")
    expect(page.locator("#start-form")).to_be_visible()


def settles(page, expression: str, want) -> None:
    """Wait until the page's `expression` is `want`: a page's script does what an update asks a moment after the
    update is shown, so a reading taken at once can be early. Fails saying what it was."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    wanted = json.dumps(want, separators=(",", ":"))  # as JSON.stringify writes it
    try:
        page.wait_for_function(f"() => JSON.stringify({expression}) === {json.dumps(wanted)}", timeout=15_000)
    except PlaywrightTimeout:
        raise AssertionError(f"{expression} is {page.evaluate(expression)!r}, not {want!r}") from None


def one_line_each(page, selector: str) -> list[str]:
    """The texts among `selector` that the browser broke onto more than one line."""
    return page.evaluate("""(selector) => [...document.querySelectorAll(selector)]
      .filter((el) => el.getClientRects().length && el.textContent.trim())
      .filter((el) => { const r = document.createRange(); r.selectNodeContents(el);
                        const size = parseFloat(getComputedStyle(el).fontSize);
                        const tops = [...r.getClientRects()].map((b) => b.top);
                        return Math.max(...tops) - Math.min(...tops) > size * 0.8; })
      .map((el) => el.textContent.trim())""", selector)


# ---- physical glasses: the setup check and the run-out banner ----------------------------------

@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390", "768"])
def test_the_setup_check_ticks_each_glass_as_the_players_set_it(serve, phone, expect, shot, tmp_path, viewport):
    table = serve(tilt_table(tmp_path))
    page = phone(table.url, viewport)
    unlock(page, expect)
    check = page.locator("#setup-check")
    expect(check).to_be_visible()
    expect(check.locator("li")).to_have_count(6)
    expect(check.locator("li[data-colour=red]")).to_contain_text("stand it up")
    expect(check.locator("li[data-colour=orange]")).to_contain_text("countdown track's space 4")
    expect(check.locator("li[data-colour=green]")).to_have_class("ok")  # lying, and the sensors read lying
    expect(check.locator("li[data-colour=red]")).to_have_class("unset")
    expect(page.locator("#setup-check-ready")).to_be_hidden()

    put(table.table, "red", "a_up")
    expect(check.locator("li[data-colour=red]")).to_have_class("ok")
    expect(check.locator("li[data-colour=red] .reads")).to_have_text("sensors: standing")
    for colour, pose in TRAINING_SETUP.items():
        put(table.table, colour, pose)
    expect(check.locator("li.ok")).to_have_count(6)
    expect(page.locator("#setup-check-ready")).to_be_visible()
    shot(page, f"page-setup-check-{viewport['width']}")

    page.click("#start-form button[type=submit]")
    expect(page.locator("#show-status")).to_have_text("Training: the show is running")
    expect(check).to_be_hidden()
    # Once the page has drawn the running show (on a busy machine a state or two after the status line): the
    # glasses in the top half of the screen.
    top_half = viewport["height"] / 2
    page.wait_for_function(f"() => document.getElementById('timers').getBoundingClientRect().top < {top_half}")


def test_a_run_out_is_a_banner_until_the_glass_is_turned(serve, phone, expect, shot, tmp_path):
    table = serve(tilt_table(tmp_path))
    for colour, pose in TRAINING_SETUP.items():
        put(table.table, colour, pose)
    page = phone(table.url)
    expect(page.locator("#show-status")).to_have_text("No show is running.")
    api(table.url, "/api/show/start", {"event": "training"})
    banner = page.locator("#runout-banner")
    expect(page.locator("#show-status")).to_have_text("Training: the show is running")
    expect(banner.locator("p")).to_have_count(0)
    table.table.clock.advance(30.001)  # red's top is dry: turned within its second of grace, it would not count
    expect(page.locator("#timer-red .state")).to_have_text("Empty")
    expect(banner.locator("p")).to_have_count(0)
    table.table.clock.advance(1.0)  # the grace is over, and yellow has 19 s left
    expect(banner.locator("p[data-colour=red]")).to_have_text("● Red ran out — turn it!")
    expect(banner).to_be_in_viewport()
    shot(page, "page-runout-banner")
    put(table.table, "red", "b_up")
    expect(banner.locator("p[data-colour=red]")).to_have_count(0)
    state = table.table.desk.current()
    assert state["outcome"] == "running" and state["timers"]["red"]["awaiting_turn"] is False  # gone by the turn


# ---- emulated glasses: alerts, the result card, the words ---------------------------------------

def test_the_sound_toggle_is_one_tap_kept_on_this_phone_and_sounds_each_moment(serve, phone, expect, tmp_path):
    clock = FakeClock()
    table = serve(demo_table(tmp_path / "demo.sqlite3", clock=clock))
    page = phone(table.url)
    toggle = page.locator("#alerts")
    red = page.locator("#timer-red")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    api(table.url, "/api/show/start", {"event": "training"})
    expect(page.locator("#show-status")).to_have_text("Training: the show is running")
    clock.advance(20.001)
    expect(red).to_have_class("timer low")  # red low on sand, before the tap: no sound
    clock.advance(10.0)
    expect(page.locator("#tokens .token.turned")).to_have_count(1)  # red ran out, before the tap: no sound
    assert page.evaluate("window.__tones") == [] and page.evaluate("window.__vibrations") == []

    api(table.url, "/api/show/abort", {})

    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(toggle).to_contain_text("on")
    settles(page, "window.__tones", [523, 784])  # the advance tune, so the player hears it works
    api(table.url, "/api/show/start", {"event": "training"})
    page.wait_for_function("() => window.__locks.includes('screen')")  # a show runs: the screen stays on
    clock.advance(20.001)
    settles(page, "window.__tones", [523, 784, 659])  # red low on sand: one E5
    settles(page, "window.__vibrations.slice(1)", [[80]])
    clock.advance(10.0)
    expect(page.locator("#tokens .token.turned")).to_have_count(1)  # red ran out: A5, E5, three times
    settles(page, "window.__tones", [523, 784, 659, *[880, 659] * 3])
    settles(page, "window.__vibrations.slice(1)", [[80], [300, 100, 300, 100, 300]])
    api(table.url, "/api/show/abort", {})
    page.wait_for_function("() => window.__locks.includes('released')")  # no show: the screen may sleep again

    page.reload()  # the choice is kept on this phone
    expect(page.locator("#alerts")).to_have_attribute("aria-pressed", "true")
    page.locator("#alerts").click()
    expect(page.locator("#alerts")).to_have_attribute("aria-pressed", "false")
    page.reload()
    expect(page.locator("#alerts")).to_have_attribute("aria-pressed", "false")


def test_the_result_card_says_why_shows_once_and_leaves_no_warning_behind(serve, phone, expect, shot, tmp_path):
    clock = FakeClock()
    table = serve(demo_table(tmp_path / "demo.sqlite3", clock=clock))
    page = phone(table.url)
    api(table.url, "/api/show/start", {"event": "training"})
    expect(page.locator("#show-status")).to_have_text("Training: the show is running")
    clock.advance(50.001)  # red ran out at 30 s and is low again, yellow ran out: a warning on the screen
    expect(page.locator("#tokens .token.turned")).to_have_count(2)
    expect(page.locator("#timer-red")).to_have_class("timer low")
    expect(page.locator("#timer-red .low-sign")).to_be_visible()
    clock.advance(10.0)  # red runs out again: the third crowd token
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#result-title")).to_have_text("Show lost: all 3 crowd tokens are face down")  # what was lost
    expect(page.locator("#result-detail")).to_have_text("● Red ran out at 1:00: run-out number 3, the last crowd token.")
    shot(page, "page-result-loss")
    # The card never hides the menu: the first link is itself what a tap at its centre reaches.
    assert page.evaluate("""() => { const a = document.querySelector("nav a"); const b = a.getBoundingClientRect();
        return document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2) === a; }""")
    later = phone(table.url)  # a phone opened after the show ended: the status says it, no card
    expect(later.locator("#show-status")).to_have_text("Training: lost")
    expect(later.locator("#result")).to_be_hidden()
    # One time base: the show's length in show time, as the card says (1:00);
    # dates in the phone's own time, never UTC.
    later.goto(table.url + "shows")
    expect(later.locator("main table tbody tr").first).to_contain_text("1:00")
    expect(later.locator("main table tbody tr").first.locator("time")).not_to_contain_text("UTC")
    later.goto(table.url + "scorepad")
    expect(later.locator("main table tbody time").first).not_to_contain_text("UTC")
    expect(page.locator(".timer.low")).to_have_count(0)
    expect(page.locator(".low-sign:visible")).to_have_count(0)
    page.click("#result-close")
    expect(page.locator("#result")).to_be_hidden()
    page.reload()
    expect(page.locator("#show-status")).to_have_text("Training: lost")
    expect(page.locator("#result")).to_be_hidden()


def test_a_glass_is_laid_down_from_the_page(serve, phone, expect, tmp_path):
    table = serve(demo_table(tmp_path / "demo.sqlite3", clock=FakeClock()))
    page = phone(table.url)
    unlock(page, expect)
    page.click("#start-form button[type=submit]")
    expect(page.locator("#timer-green .lay")).to_be_hidden()  # it starts lying
    page.click("#timer-red .lay")
    expect(page.locator("#timer-red .state")).to_have_text("Lying on its side")
    expect(page.locator("#timer-red .lay")).to_be_hidden()
    expect(page.locator("#timer-red .flip")).to_be_visible()


def test_start_waits_for_the_events_it_starts(serve, phone, expect, tmp_path):
    """A Start tapped while the list of events was still on its way sent no event, and the table refused it: on a
    busy machine the test of laying a glass down tapped it so and never saw a show."""
    table = serve(demo_table(tmp_path / "demo.sqlite3", clock=FakeClock()))
    page = phone(table.url)
    unlock(page, expect)
    with held_back(page, "**/api/events") as held:
        page.reload()  # the PIN is in: the page loads its events again, held
        held.some("the page never asked for its events")
        expect(page.locator("#start-form")).to_be_hidden()
    expect(page.locator("#start-event option")).to_have_count(1)
    page.click("#start-form button[type=submit]")
    expect(page.locator("#show-status")).to_have_text("Training: the show is running")


def test_a_double_tap_on_flip_flips_the_glass_once(serve, phone, expect, tmp_path):
    """On a slow phone a double tap sent two flips, and the glass stood as it was: the button is off while its
    flip is on its way."""
    table = serve(demo_table(tmp_path / "demo.sqlite3", clock=FakeClock()))
    page = phone(table.url)
    page.context.add_init_script(COUNT_POSTS)  # from the next page on: the PIN's answer loads the table page again
    unlock(page, expect)
    page.click("#start-form button[type=submit]")
    with held_back(page, "**/api/show/flip") as held:  # the first flip stays on its way
        page.click("#timer-red .flip")
        held.some("the first tap sent no flip")  # sent, and so the button is off: not counted before it went
        page.locator("#timer-red .flip").click(force=True)
        assert page.evaluate("window.posts['/api/show/flip']") == 1, "the second tap sent a second flip"
    expect(page.locator("#timer-red .flip")).to_be_enabled()
    assert api(table.url, "/api/show/flip", {"timer": "yellow"})["timers"]["red"]["pose"] == "b_up"  # flipped once


def test_low_sand_is_a_sign_with_a_symbol_on_the_glass(serve, phone, expect, tmp_path):
    clock = FakeClock()
    table = serve(demo_table(tmp_path / "demo.sqlite3", clock=clock))
    page = phone(table.url)
    api(table.url, "/api/show/start", {"event": "training"})
    red = page.locator("#timer-red")
    expect(page.locator("#show-status")).to_have_text("Training: the show is running")
    expect(red).not_to_have_class("timer low")
    clock.advance(20.001)  # red (30 s) has 10 s of sand left
    expect(red).to_have_class("timer low")
    expect(red.locator(".low-sign")).to_have_text("⚠ Low sand")
    api(table.url, "/api/show/abort", {})
    expect(red.locator(".low-sign")).to_be_hidden()
    expect(page.locator(".timer.low")).to_have_count(0)


def test_after_a_restart_a_change_asks_for_the_pin_again_in_the_pages_language(serve, phone, expect, shot, tmp_path):
    served = serve(demo_table(tmp_path / "demo.sqlite3", clock=FakeClock()))
    page = phone(served.url, lang="ja")
    page.fill("#pin", "1234")
    page.click(".pin-form button[type=submit]")
    expect(page.locator("#start-form")).to_be_visible()

    # The web side restarts: a new app, a new key, every session gone; the page still shows its controls.
    old = served.server.flask_app
    served.server.application = served.server.flask_app = create_app(served.table)
    old.extensions["streams"].close()
    page.click("#start-form button[type=submit]")
    dialog = page.locator("#pin-again")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text("テーブルのPINをもう一度入力してください")
    said = page.locator("#start-form .error[data-error-for='']")
    expect(said).not_to_be_empty()
    assert said.inner_text() == catalog("ja")["errors.pin_needed"]  # the catalogue's words, not the API's
    shot(page, "page-pin-again-ja")

    page.fill("#pin-again-pin", "0000")
    page.click("#pin-again button[type=submit]")
    expect(page.locator("#pin-again-error")).to_have_text("PINが違います。")
    page.fill("#pin-again-pin", "1234")
    page.click("#pin-again button[type=submit]")
    expect(dialog).to_be_hidden()
    expect(page.locator("#start-form")).to_be_visible()
    page.click("#start-form button[type=submit]")
    expect(page.locator("#show-status")).to_have_text("トレーニング：ショーの最中です")


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390", "768"])
def test_japanese_labels_never_break_mid_word(serve, phone, expect, shot, tmp_path, viewport):
    served = serve(demo_table(tmp_path / "demo.sqlite3", clock=FakeClock()))
    page = phone(served.url, viewport, lang="ja")
    unlock(page, expect)
    api(served.url, "/api/show/start", {"event": "training"})
    expect(page.locator("#show-title")).to_have_text("トレーニング")
    expect(page.locator("#countdown li.button")).to_have_text("ボタンスペース")
    assert one_line_each(page, "nav a, .timer h2, .timer .flip, #countdown li, .tokens li, #abort, #mute") == []
    styles = page.evaluate("""() => ['nav a', 'button', 'label', 'summary'].map((s) =>
        getComputedStyle(document.querySelector(s)).wordBreak)""")
    assert all(style in ("keep-all", "auto-phrase") for style in styles), styles
    assert "スカイロケッツ" not in page.content()
    shot(page, f"page-japanese-{viewport['width']}")


def test_past_shows_are_shown_in_the_phones_own_time_zone(serve, launch, expect, tmp_path):
    from datetime import datetime, timedelta

    served = serve(demo_table(tmp_path / "demo.sqlite3", clock=FakeClock()))
    api(served.url, "/api/show/start", {"event": "training"})
    api(served.url, "/api/show/abort", {})
    context = launch(timezone_id="Asia/Tokyo")
    try:
        context.add_cookies([{"name": "lang", "value": "ja", "url": served.url}])
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(served.url + "shows")
        started = page.locator("time").first
        expect(started).not_to_have_text(re.compile("UTC"))
        utc = datetime.fromisoformat(started.get_attribute("datetime"))
        tokyo = utc + timedelta(hours=9)  # Japan keeps no summer time
        # In the page's language too: Japanese writes the hour without a leading zero (0:02, 9:30, 21:05),
        # so the test holds at every hour of the day it runs.
        assert started.inner_text() == f"{tokyo:%Y/%m/%d} {tokyo.hour}:{tokyo:%M}"
        assert started.get_attribute("title").endswith("UTC")
    finally:
        context.close()


def test_a_watching_phone_sees_every_glass_the_countdown_and_the_tokens_on_its_first_screen(serve, phone, expect,
                                                                                              shot, tmp_path):
    table = serve(demo_table(tmp_path / "demo.sqlite3", clock=FakeClock()))
    for lang, running in (("en", "Training: the show is running"), ("ja", None)):
        page = phone(table.url, lang=lang)
        if lang == "en":
            api(table.url, "/api/show/start", {"event": "training"})
        expect(page.locator("#board")).to_be_visible()
        if running:
            expect(page.locator("#show-status")).to_have_text(running)
        for part in ["#countdown", "#tokens", *(f"#timer-{c} .glass" for c in
                                               ("red", "orange", "yellow", "green", "blue", "purple"))]:
            box = page.locator(part).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= 844 and box["x"] + box["width"] <= 390, (
                lang, part, box)
        shot(page, f"page-watching-{lang}")


def test_a_stuck_tilt_pair_is_told_in_japanese_on_the_phone_and_the_kiosk(serve, phone, expect, tmp_path):
    table = serve(tilt_table(tmp_path))
    for colour, pose in TRAINING_SETUP.items():
        put(table.table, colour, pose)
    put(table.table, "red", "both")  # both switches closed: a shorted wire or a stuck switch
    page = phone(table.url)
    page.goto(table.url + "lang/ja?next=/")
    unlock(page, expect)
    reads = page.locator("#setup-check li[data-colour=red] .reads")
    expect(reads).not_to_be_empty()
    expect(reads).not_to_contain_text("両方のスイッチ")
    Hands(table.table).wait(3.0)  # both closed for 3 s: a fault
    expect(reads).to_contain_text("両方のスイッチが3秒間閉じたまま（配線のショート")  # ja.json, not `fault`
    api(table.url, "/api/show/start", {"event": "training"})
    expect(page.locator("#timer-red .notes .fault")).to_contain_text("センサーの故障：両方のスイッチ")
    page.goto(table.url + "kiosk/")
    expect(page.locator("#kiosk-red")).to_have_attribute("title", re.compile("^両方のスイッチが3秒間"))
    expect(page.locator("#kiosk-red")).to_contain_text("センサーの故障")
