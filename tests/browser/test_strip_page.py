"""The strip on the table page: drawn by the page between the table's pictures, it shows what the strip shows.

The table runs on a fake clock and the page on Playwright's: show time moves on both only when the test says.
"""

from datetime import datetime, timedelta

from companion.clock import FakeClock
from companion.leds import render
from companion.table import demo_table

from .conftest import api

START = datetime(2030, 1, 1)
DOTS = "els => els.map((el) => el.getAttribute('fill').slice(1))"


def on_page(page) -> tuple[list[str], float | None]:
    """The strip's dots as the page shows them (rrggbb), and the show time the page drew them at."""
    drawn = page.locator("#strip-rows").get_attribute("data-drawn-at")
    return page.eval_on_selector_all("#strip-rows circle", DOTS), None if drawn is None else float(drawn)


def hexes(pixels) -> list[str]:
    return ["%02x%02x%02x" % tuple(rgb) for rgb in pixels]


def settle(page, want, tries: int = 100) -> tuple[list[str], float | None]:
    """The page's strip once `want(dots, at)` holds (the stream's news takes a moment to arrive)."""
    for _ in range(tries):
        dots, at = on_page(page)
        if want(dots, at):
            return dots, at
        page.wait_for_timeout(100)  # real time for the news to arrive; neither clock moves meanwhile
    raise AssertionError(f"the page's strip never came to show it: drawn at {at}, {dots[:4]}...")


def test_the_page_draws_the_strip_as_the_strip_does_after_a_change_and_holds_still_with_it(tmp_path, serve, phone,
                                                                                             expect):
    clock = FakeClock()
    served = serve(demo_table(tmp_path / "t.sqlite3", clock=clock, pin="1234"))
    table, leds = served.table, served.table.rig.leds
    layout = table.rig.layout
    page = phone(served.url)
    page.clock.install(time=START)  # and the page loaded again, on it
    page.clock.pause_at(START + timedelta(seconds=1))  # the page's animation frames run only when the test says
    page.goto(served.url)
    expect(page.locator("#strip-rows .strip-row")).to_have_count(8)
    api(served.url, "/api/show/start", {"event": "training"})
    clock.advance(4.0)
    api(served.url, "/api/show/flip", {"timer": "red"})  # a change: the page is sent a picture

    def the_strips_own(dots, at):  # both clocks still: the page's frame is the strip's last one, LED for LED
        return at == table.desk.show_time() and dots == hexes(table.rig.strip.frames[-1][:layout.total])

    settle(page, the_strips_own)
    sent = leds.picture(0, 0)
    for step in (0.5, 1.25, 3.0):  # the sand runs on the page by itself: frames the table never sent
        page.clock.run_for(int(step * 1000))
        dots, at = on_page(page)
        assert at > 4.0 and dots == hexes(render(sent["state"], at, layout, flash_s=leds.flash_s))
    clock.advance(1.0)
    api(served.url, "/api/show/abort", {})  # a still picture: the strip holds its frame, and so does the page
    settle(page, the_strips_own)
    held = on_page(page)
    page.clock.run_for(5_000)
    assert on_page(page) == held


def test_a_phone_past_the_stream_cap_follows_the_strip_by_reading_its_picture(tmp_path, phone, expect):
    from companion.web import create_app
    from companion.web.server import ServerThread, make_server

    clock = FakeClock()
    table = demo_table(tmp_path / "t.sqlite3", clock=clock, pin="1234").start()
    app = create_app(table, config={"SSE_MAX_STREAMS": 0, "SSE_POLL_MS": 200})  # every stream past the cap
    server = ServerThread(make_server(table, "127.0.0.1", 0, app=app))
    page = phone(server.url)
    try:
        expect(page.locator("#strip-rows .strip-row")).to_have_count(8)  # the layout, from the polled record
        api(server.url, "/api/show/start", {"event": "training"})
        clock.advance(4.0)
        api(server.url, "/api/show/flip", {"timer": "red"})
        settle(page, lambda dots, at: at is not None and at >= 4.0)  # the new picture, read by polling
        expect(page.locator("#connection")).to_be_hidden()  # followed all the same: nothing says otherwise
    finally:
        page.close()  # before the table goes: a page polling a closed port would report it
        server.close()
        table.stop()
