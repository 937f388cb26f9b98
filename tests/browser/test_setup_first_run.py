"""A first run on a phone: a freshly installed table, on mock pins, set up entirely from the setup page.

The table starts from the installer's config (docs/config.example.toml, with
mock pins), so nothing is set up yet: the setup code opens the page, the
settings are written into the file (its comments kept), the wiring check sees
a glass tilted through the mock pins, the glass is timed on a fake clock (no
waiting), and the table page then plays a show with the new settings. Bad
input is refused next to the field it names.
"""

import re
import time
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from companion.clock import FakeClock
from companion.hardware.mock import Hands
from companion.web.i18n import catalog, fill
from companion.web.server import ServerThread, make_server
from conftest import installed_table

from .conftest import held_back, unlock

ROOT = Path(__file__).resolve().parents[2]
EMULATED = ("orange", "yellow", "green", "blue", "purple")
# The settings form once its script listens. site.css hides it until then, and no person sees a page before its
# stylesheet; but a test may find the form before the stylesheet is in, and change it unheard.
SETTINGS = "#settings-form[data-ready]"


@pytest.fixture
def fresh(tmp_path):
    """A table as the installer leaves it (its example config, mock pins), started and served on 127.0.0.1."""
    clock = FakeClock()
    table = installed_table(tmp_path, mock_pins=True, clock=clock).start()
    server = ServerThread(make_server(table, "127.0.0.1", 0))
    yield SimpleNamespace(table=table, url=server.url, path=tmp_path / "config.toml", clock=clock, hands=Hands(table))
    server.close()
    table.stop()


@pytest.fixture
def phone(launch, fresh):
    context = launch()
    requests, errors = [], []
    context.on("request", lambda request: requests.append(request.url))
    page = context.pages[0] if context.pages else context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "status of 4" not in m.text else None)
    yield page
    context.close()
    assert [url for url in requests if not url.startswith(fresh.url)] == [], "a request left 127.0.0.1"
    assert errors == []


def refused(page, expect, field_id: str, slot_id: str, words: str) -> None:
    """The settings were refused, the field marked and its reason (the config's own words) beside it."""
    page.click("#save-settings")
    expect(page.locator(f"#{slot_id}")).to_contain_text(words)
    expect(page.locator(f"#{field_id}")).to_have_attribute("aria-invalid", "true")


def test_a_source_chosen_before_the_pages_words_arrive_still_moves_its_pins(fresh, phone, expect):
    """A quick hand changes a glass's source while the page's words are still on their way: the pins follow
    all the same (the page once waited for its words before it listened, and the pair stayed)."""
    page = phone
    page.goto(fresh.url + "setup/")
    page.fill("#setup-code", fresh.table.first_run.code)
    with held_back(page, re.compile(r"/i18n/\w+\.json")) as held:
        page.click("#code-form button[type=submit]")  # the page reloads with the settings, and asks for its words
        expect(page.locator(SETTINGS)).to_be_visible()  # shown, and ready, while its words are held back
        page.select_option("#source-orange", "emulated")
        expect(page.locator("#pins-orange")).to_have_value("6")
        assert held, "the words arrived before the source was chosen: nothing was tried"
    expect(page.locator("#pins-orange-help")).to_have_text("Pin map: GPIO 6")


def test_a_first_run_from_the_setup_code_to_a_show(fresh, phone, expect, shot):
    page, table = phone, fresh.table
    began = time.monotonic()
    installed = fresh.path.read_text(encoding="utf-8")
    page.goto(fresh.url + "setup/")
    shot(page, "setup-1-code")

    # A wrong code is refused; the one on the table's start-up lines opens the page.
    page.fill("#setup-code", "WRONG-CODE1")
    page.click("#code-form button[type=submit]")
    expect(page.locator("#setup-code-error")).to_have_text("That setup code is wrong.")
    page.fill("#setup-code", table.first_run.code.lower())
    page.click("#code-form button[type=submit]")
    expect(page.locator(SETTINGS)).to_be_visible()

    # Red stays a real glass in a tilt cradle; the others become LED hourglasses on a strip.
    page.fill("#table-name", "Kitchen table")
    for colour in EMULATED:
        page.select_option(f"#source-{colour}", "emulated")
    # An LED glass takes one button pin: the pin map's pair becomes its first pin, and back again.
    expect(page.locator("#pins-orange")).to_have_value("6")
    expect(page.locator("#pins-purple")).to_have_value("23")
    expect(page.locator("#pins-orange-help")).not_to_contain_text("6, ")
    page.select_option("#source-orange", "tilt")
    expect(page.locator("#pins-orange")).to_have_value("6, 12")
    page.select_option("#source-orange", "emulated")
    page.check("#strip-enabled")
    page.check("#buzzer-enabled")

    # Bad input is refused beside its field, in the page's language.
    page.fill("#web-pin", "123")
    refused(page, expect, "web-pin", "web-pin-error", "Not saved: A PIN has 4 to 8 digits.")
    page.fill("#web-pin", "2468")
    page.fill("#pins-blue", "4")
    refused(page, expect, "pins-blue", "pins-blue-error", "GPIO 4 is in use already, by the Red glass.")
    page.fill("#pins-blue", "10")
    page.select_option("#strip-driver", "spi")
    refused(page, expect, "pins-blue", "pins-blue-error", "The LED strip's SPI uses GPIO 10: choose another.")
    shot(page, "setup-2-refused")
    assert fresh.path.read_text(encoding="utf-8") == installed, "a refused setting wrote the file"

    page.fill("#pins-blue", "21")
    page.select_option("#strip-driver", "fake")
    page.click("#save-settings")
    expect(page.locator("#saved")).to_contain_text(str(fresh.path))

    # Written through the config's checks, its comments and the keys the page does not know kept.
    text = fresh.path.read_text(encoding="utf-8")
    written = tomllib.loads(text)
    assert written["table"]["name"] == "Kitchen table" and written["web"]["pin"] == "2468"
    assert written["timers"]["blue"] == {"source": "emulated", "pins": [21]}
    assert written["strip"]["enabled"] and written["strip"]["driver"] == "fake" and written["buzzer"]["enabled"]
    assert "ball switches chatter near 45 degrees" in text and written["nominal"]["purple"] == 80
    assert table.door.pin == "2468"  # applied without a restart

    # The wiring check sees the red glass stood up through its mock pins.
    red = page.locator("#wire-red")
    expect(red.locator(".pose")).to_have_text("lying")
    fresh.hands.set("red", "a_up")
    expect(red.locator(".pose")).to_have_text("end A up")
    expect(red.locator(".switches")).to_have_text("GPIO 4: closedGPIO 5: open")
    fresh.hands.set("red", "b_up")
    expect(red.locator(".pose")).to_have_text("end B up")
    page.click("#strip-parts button[data-part='4']")
    expect(page.locator("#wiring-status")).to_have_text("Blue segment lit (LEDs 64–79).")
    lit = table.rig.strip.frames[-1]
    assert [i for i, p in enumerate(lit) if p != (0, 0, 0)] == list(range(64, 80))
    page.click("#beep")
    expect(page.locator("#wiring-status")).to_have_text("Beeping on GPIO 19.")
    shot(page, "setup-3-wiring")

    # Timing the red glass, one run each way, on the fake clock.
    page.select_option("#timing-timer", "red")
    page.fill("#timing-runs", "1")
    page.click("#timing-start")
    expect(page.locator("#timing-state")).to_have_text("Turn the Red glass over to start.")
    fresh.hands.set("red", "a_up")
    expect(page.locator("#timing-state")).to_contain_text("Timing Red")
    fresh.hands.wait(31.0)
    fresh.hands.set("red", "b_up")
    expect(page.locator("#timing-a_up .runs")).to_have_text("31.10 s")
    fresh.hands.wait(29.0)
    fresh.hands.set("red", "a_up")
    expect(page.locator("#timing-state")).to_have_text("Red is timed: save it.")
    expect(page.locator("#timing-b_up .median")).to_have_text("29.10 s")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the page scrolls sideways on a phone"
    shot(page, "setup-4-timing")
    page.click("#timing-save")
    expect(page.locator("#timing-saved")).to_have_text("Red saved: 31.10 s end A up, 29.10 s end B up.")
    assert tomllib.loads(fresh.path.read_text(encoding="utf-8"))["timers"]["red"]["duration"] == {"a_up": 31.1, "b_up": 29.1}

    # Done: the code is void, and the phone that set the table up goes to the table page, unlocked.
    page.click("#finish-setup")
    expect(page.locator("#start-form")).to_be_visible()
    assert table.first_run.code is None and tomllib.loads(fresh.path.read_text(encoding="utf-8"))["table"]["set_up"]
    first_run_s = time.monotonic() - began

    # The table page plays a show with the new settings: the red glass read by its sensors, timed as calibrated.
    page.click("#start-form button[type=submit]")
    expect(page.locator("#show-status")).to_have_text("Training: the show is running")
    fresh.hands.wait(5.0)
    show = page.evaluate("fetch('/api/show').then((r) => r.json())")
    assert show["timers"]["red"]["source"] == "tilt" and show["timers"]["blue"]["source"] == "emulated"
    assert show["timers"]["red"]["duration"] == pytest.approx(31.1) and show["t"] == pytest.approx(5.0)
    assert page.title().endswith("· Kitchen table")
    shot(page, "setup-5-show")
    print(f"\nfirst run with mock pins, setup code to finished: {first_run_s:.1f} s")
    (ROOT / "tests" / "artifacts").mkdir(exist_ok=True)
    (ROOT / "tests" / "artifacts" / "setup-first-run.txt").write_text(f"{first_run_s:.1f} s\n", encoding="utf-8")

    # Setup is closed: the code opens nothing, and changes need the PIN.
    answer = page.evaluate("""(code) => fetch('/api/setup/code', {method: 'POST', headers: {'Content-Type':
      'application/json', 'X-CSRF-Token': document.querySelector('meta[name=csrf-token]').content},
      body: JSON.stringify({code})}).then((r) => r.status)""", "ABCDEFGHJK")
    assert answer == 403


def test_a_bad_setup_value_is_refused_in_japanese(fresh, phone, expect):
    page = phone
    page.goto(fresh.url + "lang/ja?next=/setup/")
    page.fill("#setup-code", fresh.table.first_run.code)
    page.click("#code-form button[type=submit]")
    expect(page.locator(SETTINGS)).to_be_visible()
    japanese = catalog("ja")  # the page's sentences: ja.json's, not the config's English words
    page.fill("#web-pin", "123")
    refused(page, expect, "web-pin", "web-pin-error", japanese["errors.setup.pin_digits"])
    page.fill("#web-pin", "2468")
    page.fill("#pins-blue", "40")
    refused(page, expect, "pins-blue", "pins-blue-error", fill(japanese["errors.setup.no_gpio"], {"pin": 40}))


def test_setup_is_reopened_from_the_tables_own_screen(fresh, phone, expect, shot):
    """The kiosk shows the setup code while setup is open, and a button that opens it again once done."""
    page, table = phone, fresh.table
    page.goto(fresh.url + "kiosk/")
    code = table.first_run.code
    expect(page.locator("#kiosk-setup-code")).to_have_text(f"{code[:5]}-{code[5:]}")
    table.setup.change_settings({"web": {"pin": "2468"}})
    table.setup.finish_setup()
    page.reload()
    page.click("#kiosk-setup-reopen")
    expect(page.locator("#kiosk-setup-code")).to_be_visible()
    assert table.first_run.code not in (None, code)
    assert tomllib.loads(fresh.path.read_text(encoding="utf-8"))["table"]["set_up"] is False
    shot(page, "setup-6-kiosk")


def owners_settings(page, url: str, table, expect) -> None:
    """The settings page of a set-up table, as its owner opens it: the PIN shows no settings; a new setup code
    (setup opened again), typed as the screen shows it in lower case, does."""
    unlock(page, url, "/setup/")  # the PIN is the players'
    expect(page.locator("#setup-code")).to_be_visible()
    assert page.locator("#settings-form").count() == 0
    code = table.first_run.reopen()
    page.fill("#setup-code", f"{code[:5]}-{code[5:]}".lower())
    page.click("#code-form button[type=submit]")
    expect(page.locator(SETTINGS)).to_be_visible()


def test_an_led_glass_is_timed_by_taps_on_the_page_and_the_timing_can_be_given_up(browser, demo, expect):
    """The demo's glasses are LED glasses: the table reads no sensor of theirs, so timing one waited for ever on
    "Turn the Red glass over to start", with nothing to tap and no way out. The page offers Turned and Cancel."""
    page = browser.page
    owners_settings(page, browser.url, demo.table, expect)
    page.select_option("#timing-timer", "red")
    page.fill("#timing-runs", "1")
    page.click("#timing-start")
    expect(page.locator("#timing-state")).to_have_text(
        "The table does not see the Red glass turn: tap “Turned” as you turn it over (its button does the same).")
    page.click("#timing-turn")
    expect(page.locator("#timing-state")).to_contain_text("Timing Red: each time its top runs dry")
    page.click("#timing-cancel")
    expect(page.locator("#timing-box")).to_be_hidden()
    expect(page.locator("#timing-timer")).to_be_focused()  # not the page: Cancel went away with the box
    assert page.request.get(f"{browser.url}api/setup/timing").json() == {"timing": None}


def test_a_glass_moved_onto_the_hub_from_the_page_in_japanese(fresh, phone, expect):
    """The hub's own settings and its status box are drawn from what the hub's module declares: the owner moves
    red onto a hub, gives its port in the hub's own field, and the wiring check shows the hub's hello and red's
    channel in the page's language."""
    from companion.hardware.hub_fake import FakeHub
    from companion.hardware.sensors import hub

    hub_link = fresh.path.parent / "hub"
    fake = FakeHub(6, link=hub_link, clock=fresh.clock, poses=["b_up"] * 6)
    try:
        page = phone
        page.goto(fresh.url + "lang/ja?next=/setup/")
        page.fill("#setup-code", fresh.table.first_run.code)
        page.click("#code-form button[type=submit]")
        expect(page.locator(SETTINGS)).to_be_visible()
        words = hub.WORDS["ja"]
        box = page.locator('fieldset[data-section="hub"]')
        expect(box.locator("legend")).to_have_text(words["setup.hub"])
        expect(box.locator("label[for=hub-port]")).to_have_text(words["setup.hub_port"])
        page.select_option("#source-red", "hub")
        page.fill("#web-pin", "2468")
        refused(page, expect, "hub-port", "hub-error", words["errors.setup.hub_port"])
        page.fill("#hub-port", str(hub_link))
        page.click("#save-settings")
        expect(page.locator("#saved")).to_be_visible()
        assert tomllib.loads(fresh.path.read_text(encoding="utf-8"))["hub"] == {"port": str(hub_link)}
        status = page.locator('[data-status="hub"]')
        expect(status.locator("h3")).to_have_text(words["setup.hub"])
        expect(status.locator(".lines")).to_contain_text(words["setup.hub_hello"].split("{")[0])
        channel = fill(words["setup.hub_channel"], {"channel": 0, "timer": catalog("ja")["timer.red"],
                                                    "pose": catalog("ja")["setup.pose.b_up"]})
        expect(status.locator(".lines")).to_contain_text(channel)
    finally:
        fake.close()
