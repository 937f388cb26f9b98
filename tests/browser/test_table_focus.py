"""Every player keeps the focus: when the control holding it goes away (Start, Abort, a Flip button at the
show's end, Close on the result card) it moves on to what comes next, never to the page body; and a form's
refusal is heard: the refused field takes the focus, marked invalid and described by the message, and a
message for no field is in a live region.
"""

import pytest

from companion.clock import FakeClock
from companion.table import demo_table

from .conftest import answers_held_back, unlock

FOCUSED = "(() => { const el = document.activeElement; return el === document.body ? 'body' : el.id || el.className; })()"


def focused(page) -> str:
    return page.evaluate(FOCUSED)


@pytest.fixture
def table_page(serve, phone, tmp_path):
    clock = FakeClock()
    served = serve(demo_table(tmp_path / "demo.sqlite3", clock=clock))
    page = phone(served.url)
    unlock(page, served.url, "/")
    page.wait_for_selector("#start-form", state="visible")  # its script works it once the events are in
    return page, clock


def test_focus_moves_on_when_its_control_goes(table_page, expect):
    page, clock = table_page
    status = page.locator("#show-status")
    expect(page.locator("#start-event option")).to_have_count(1)
    page.focus("#start-form button[type=submit]")
    page.keyboard.press("Enter")  # Start goes with the form: the focus goes to the show's heading
    expect(status).to_have_text("Training: the show is running")
    expect(page.locator("#start-form")).to_be_hidden()
    expect(page.locator("#show-title")).to_be_focused()

    page.focus("#timer-red .flip")  # a Flip button held when the show ends: the result card takes the focus
    clock.advance(60.001)  # red, yellow, red: the last crowd token turns
    expect(status).to_have_text("Training: lost")
    expect(page.locator("#timer-red .flip")).to_be_hidden()
    expect(page.locator("#result-title")).to_be_focused()
    page.focus("#result-close")
    page.keyboard.press("Enter")  # the card closes: back to the top
    expect(page.locator("#result")).to_be_hidden()
    expect(page.locator("#show-title")).to_be_focused()

    page.focus("#abort")  # Clear the result (after the end, one tap): the start form comes back and has it
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(status).to_have_text("No show is running.")
    expect(page.locator("#abort")).to_be_hidden()
    expect(page.locator("#start-form button[type=submit]")).to_be_focused()

    page.keyboard.press("Enter")  # a show again, aborted with two taps on Abort
    expect(status).to_have_text("Training: the show is running")
    page.focus("#abort")
    page.keyboard.press("Enter")
    expect(page.locator("#abort")).to_have_text("Tap again to confirm")
    page.keyboard.press("Enter")
    expect(page.locator("#start-form")).to_be_visible()
    assert focused(page) != "body"
    expect(page.locator("#start-form button[type=submit]")).to_be_focused()


@pytest.mark.parametrize("lang, said", [
    ("en", "training is a built-in event: give yours another id."),
    ("ja", "trainingは組み込みのイベントです。別の ID を付けてください。"),
])
def test_a_refused_field_takes_the_focus_with_its_message(serve, phone, tmp_path, expect, lang, said):
    served = serve(demo_table(tmp_path / "demo.sqlite3", clock=FakeClock()))
    page = phone(served.url, lang=lang)
    unlock(page, served.url, "/")
    page.locator("#event-form").locator("xpath=ancestor::details/summary").click()
    page.fill("#ev-id", "training")  # the built-in event's id: the table refuses it
    page.fill("#ev-name", "Mine")
    page.select_option("#ev-countdown", "red")
    page.check('input[name="setup.red"][value="running"]')
    page.click("#event-form button[type=submit]")
    field = page.locator("#ev-id")
    expect(page.locator("#ev-id-error")).to_have_text(said)
    expect(field).to_be_focused()
    expect(field).to_have_attribute("aria-invalid", "true")
    assert "ev-id-error" in field.get_attribute("aria-describedby").split()


def test_a_message_for_no_field_is_in_a_live_region(table_page):
    page, _ = table_page
    lone = page.locator('#start-form [data-error-for=""]')
    assert lone.get_attribute("role") == "alert"
    described = page.locator('#start-form [data-error-for="event"]')
    assert described.get_attribute("role") is None  # its field is focused instead: said once, not twice


def test_a_new_geese_game_refused_is_heard(serve, phone, tmp_path, expect):
    """The same forms on another page: a rule refusal (one player) focuses the players' field with it."""
    served = serve(demo_table(tmp_path / "demo.sqlite3", clock=FakeClock()))
    page = phone(served.url)
    unlock(page, served.url, "/geese")
    page.fill("#players", "Ann")
    page.click("#new-game button[type=submit]")
    field = page.locator("#players")
    expect(page.locator("#players-error")).not_to_be_empty()
    expect(field).to_be_focused()
    expect(field).to_have_attribute("aria-invalid", "true")
    assert page.locator('#new-game [data-error-for=""]').get_attribute("role") == "alert"


def test_the_start_form_has_the_focus_back_while_its_start_is_still_answered(table_page, expect):
    """On a busy table the answer to Start can come after the stream has shown the show, and after the show has
    been aborted: the start form is back while its button still waits for that answer. Its button takes the focus
    all the same (a disabled one could not, and the focus fell to the page body)."""
    page, _ = table_page
    status = page.locator("#show-status")
    expect(page.locator("#start-event option")).to_have_count(1)
    with answers_held_back(page, "**/api/show/start") as answers:  # the table starts the show at once
        page.focus("#start-form button[type=submit]")
        page.keyboard.press("Enter")
        expect(status).to_have_text("Training: the show is running")  # from the stream
        answers.some("the start")
        expect(page.locator("#show-title")).to_be_focused()
        page.focus("#abort")
        page.keyboard.press("Enter")
        page.keyboard.press("Enter")
        expect(status).to_have_text("No show is running.")
        expect(page.locator("#start-form button[type=submit]")).to_be_focused()
    expect(status).to_have_text("No show is running.")  # the late answer does not bring the show back
    expect(page.locator("#start-form button[type=submit]")).to_be_focused()
