"""A phone past the live-stream cap still follows the show: its page reads the show by polling.

The table is served with a single stream slot and a short polling period
(both app settings). One page takes the slot; the second's stream is
answered with a `poll` event, and it reads /api/show every period instead,
conditionally (a state it has costs a 304), with no refusal shown and none
on the console. A glass turned in its cradle through the mock pins must then
show on the polling page too.
"""

from types import SimpleNamespace

import pytest

from companion.clock import FakeClock
from companion.config import Config, TiltConfig, default_timers
from companion.hardware.mock import Hands, mock_pin_factory
from companion.records import Store
from companion.table import Table
from companion.web import create_app
from companion.web.server import ServerThread, make_server

ONLY_RED = {"id": "only-red", "name": "Only red", "hand_size": 4, "countdown": "purple", "countdown_start": 4,
            "running": ["red"], "lying": ["purple"], "rules": ""}
POLL_MS = 200  # the polling page's period: short, so the test is quick


@pytest.fixture
def capped(tmp_path):
    """A table with tilt glasses on mock pins, served with one stream slot."""
    config = Config(database=tmp_path / "tilt.sqlite3", timers=default_timers("tilt"),
                    tilt=TiltConfig(start_window_s=0.0))
    table = Table(config, Store(config.database), mock_pin_factory(), clock=FakeClock(), pin="1234").start()
    app = create_app(table, config={"SSE_MAX_STREAMS": 1, "SSE_POLL_MS": POLL_MS})
    server = ServerThread(make_server(table, "127.0.0.1", 0, app=app))
    yield SimpleNamespace(table=table, url=server.url, streams=app.extensions["streams"])
    server.close()
    table.stop()


@pytest.fixture
def pages(launch, capped):
    """open() -> a phone page on the capped table, its requests and script errors recorded and checked."""
    opened = []

    def open_page():
        context = launch()
        page = context.pages[0] if context.pages else context.new_page()
        record = SimpleNamespace(page=page, context=context, requests=[], errors=[], answers=[])
        context.on("request", lambda request: record.requests.append(request.url))
        context.on("response", lambda answer: record.answers.append((answer.url, answer.status)))
        page.on("pageerror", lambda error: record.errors.append(str(error)))
        page.on("console", lambda m: record.errors.append(m.text) if m.type == "error" else None)
        opened.append(record)
        page.goto(capped.url)
        return record

    yield open_page
    for record in opened:
        record.context.close()
        assert [u for u in record.requests if not u.startswith(capped.url)] == [], "a request left 127.0.0.1"
        assert record.errors == []  # nothing refused, nothing reported


def turn(table: Table, colour: str, pose: str) -> None:
    """Set a glass in its cradle as hands would, and let its switches settle on the table's clock."""
    Hands(table).set(colour, pose)
    assert table.desk.snapshot()["sensors"][colour]["pose"] == pose, f"the sensors never read {colour} as {pose}"


def test_a_page_past_the_stream_cap_follows_the_show_by_polling(capped, pages, expect):
    turn(capped.table, "red", "a_up")
    first = pages()
    expect(first.page.locator("#show-status")).to_have_text("No show is running.")
    assert capped.streams.held() == 1  # the first page's stream holds the only slot

    second = pages()
    expect(second.page.locator("#show-status")).to_have_text("No show is running.")  # read by polling

    capped.table.desk.start_show(ONLY_RED)
    expect(second.page.locator("#show-status")).to_have_text("Only red: the show is running")
    expect(second.page.locator("#timer-red")).to_have_attribute("data-state", "running")
    turn(capped.table, "red", "side")  # laid down in its cradle: the sensors, debounced, stop its sand
    expect(second.page.locator("#timer-red")).to_have_attribute("data-state", "lying")
    expect(first.page.locator("#timer-red")).to_have_attribute("data-state", "lying")

    assert capped.streams.held() == 1  # never a second stream: the second page followed by polling alone
    assert not any(u.endswith("/api/show") for u in first.requests)
    # A state the page already has is not sent again: the next read of it is answered 304.
    second.page.wait_for_event("response", lambda r: r.url.endswith("/api/show") and r.status == 304)
    assert 200 in [status for url, status in second.answers if url.endswith("/api/show")]
    assert all(status in (200, 304) for url, status in second.answers)  # nothing refused
    expect(second.page.locator("#connection")).to_be_hidden()  # no refusal shown: the page follows
    expect(first.page.locator("#connection")).to_be_hidden()
