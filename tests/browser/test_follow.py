"""Pages that follow live state when the stream is not there: refused past the cap, dropped, or the server gone.

Every page follows through the one loop (static/js/follow.js). Here a bird
game page past the stream cap keeps up by reading its game, a dropped stream
comes back and the banner goes, a refusal's Retry-After is waited out (on the
page's own clock, moved by the test), and the geese tracker comes back after
the server does. The servers run with short retry periods (app settings), so
the tests wait for what the page shows, never for a length of time.
"""

import http.client
import json
import re
import urllib.request
from datetime import datetime, timedelta
from urllib.parse import urlsplit

import pytest

from companion.clock import FakeClock
from companion.table import demo_table
from companion.web import create_app
from companion.web.server import ServerThread, make_server

START = datetime(2030, 1, 1)
FAST = {"SSE_RETRY_MS": 100, "SSE_RETRY_MAX_MS": 400, "SSE_REFUSED_RETRY_MS": 200}  # ms: quick to come back
REFUSED_WORDS = re.compile("too many phones")
LOST_WORDS = re.compile("connection was lost")
# What Chromium reports on the console while the table is away or full: loads that failed, not script errors.
EXPECTED = ("status of 503", "status of 429", "ERR_CONNECTION_REFUSED", "ERR_CONNECTION_RESET",
            "ERR_EMPTY_RESPONSE", "ERR_INCOMPLETE_CHUNKED_ENCODING", "ERR_NETWORK_CHANGED", "EventSource")
# Lists the streams the page opens, so a test can see none was opened too soon.
COUNT_STREAMS = """
window.__streams = [];
const RealEventSource = window.EventSource;
window.EventSource = class extends RealEventSource {
  constructor(url, ...rest) { super(url, ...rest); window.__streams.push(new URL(url, location.href).pathname); }
};
"""


def api(url: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(url + path.lstrip("/"), data=json.dumps(body).encode(), method="POST",
                                     headers={"X-Table-Pin": "1234", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


class Served:
    """A demo table served on 127.0.0.1 that the test can stop and start again on the same port."""

    def __init__(self, table, config: dict):
        self.table, self.config, self.port = table, config, 0
        self.start()

    def start(self) -> None:
        self.app = create_app(self.table, config=self.config)  # a stopped app's streams stay closed: a new one
        self.thread = ServerThread(make_server(self.table, "127.0.0.1", self.port, app=self.app))
        self.url, self.port = self.thread.url, urlsplit(self.thread.url).port

    def stop(self) -> None:
        self.thread.close()

    @property
    def streams(self):
        return self.app.extensions["streams"]


class Holder:
    """Another phone's stream, holding a slot until closed."""

    def __init__(self, port: int, path: str):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        self.connection.request("GET", path)
        self.response = self.connection.getresponse()
        assert self.response.status == 200

    def close(self) -> None:
        self.response.close()  # the socket stays open while its response does
        self.connection.close()


@pytest.fixture
def served(tmp_path):
    """serve(config) -> the demo table served with `config` (and the fast retry periods)."""
    running = []

    def start(**config):
        table = demo_table(tmp_path / f"demo-{len(running)}.sqlite3", clock=FakeClock(), pin="1234").start()
        server = Served(table, {**FAST, **config})
        running.append(server)
        return server

    yield start
    for server in running:
        server.stop()
        server.table.stop()


@pytest.fixture
def phone(launch):
    """open(url, init) -> a phone page (`init` runs before the page's scripts), its script errors checked."""
    opened = []

    def open_page(url, init=""):
        context = launch()
        context.add_init_script(COUNT_STREAMS + init)
        page = context.pages[0] if context.pages else context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        opened.append((context, errors))
        if url:
            page.goto(url)
        return page

    yield open_page
    for context, errors in opened:
        context.close()
        assert [e for e in errors if not any(known in e for known in EXPECTED)] == []


def opened(page, path: str) -> int:
    """How many times the page opened the stream at `path`."""
    return page.evaluate("(path) => window.__streams.filter((p) => p === path).length", path)


def held_again(table, page, path: str, times: int, within_ms: int = 15_000) -> None:
    """Wait until the page has opened its stream at `path` `times` times and the table holds one stream.

    The count matters: a phone that closed its stream still holds its slot until the server next writes to it,
    so "one held" alone may be the other phone's slot, not the page's.
    """
    for _ in range(within_ms // 50):
        if opened(page, path) >= times and table.streams.held() == 1:
            return
        page.wait_for_timeout(50)
    assert opened(page, path) >= times and table.streams.held() == 1, "the page never went back to its stream"


def new_flock_game(url: str) -> dict:
    return api(url, "/api/flock/games", {"players": ["crane", "kite"], "seed": 5})


def test_a_bird_game_page_past_the_stream_cap_keeps_up_by_reading_its_game(served, phone, expect):
    table = served(SSE_MAX_STREAMS=1)
    game = new_flock_game(table.url)
    other = Holder(table.port, "/api/show/events")  # another phone holds the only slot
    try:
        polls = []
        page = phone(None)
        page.on("request", lambda r: polls.append(r.url) if r.url.endswith(f"/api/flock/games/{game['id']}") else None)
        page.goto(f"{table.url}flock/games/{game['id']}")
        banner = page.locator("#connection")
        status = page.locator("#game-status")
        expect(status).not_to_be_empty()
        before = status.text_content()

        api(table.url, f"/api/flock/games/{game['id']}/actions", {"action": {"do": "pass"}, "version": 1})
        expect(status).not_to_have_text(before)  # read by polling: the stream was never let in
        assert table.streams.held() == 1
        assert len(polls) >= 2  # the page's first read, and the polls since
        expect(banner).to_be_hidden()  # told to poll, not refused: nothing to tell the player
    finally:
        other.close()
    held_again(table, page, f"/api/flock/games/{game['id']}/events", 2)  # the stream again after the retry period
    shown = status.text_content()
    api(table.url, f"/api/flock/games/{game['id']}/actions", {"action": {"do": "pass"}, "version": 2})
    expect(status).not_to_have_text(shown)


def test_a_dropped_stream_comes_back_and_the_banner_goes(served, phone, expect):
    table = served()
    game = new_flock_game(table.url)
    page = phone(f"{table.url}flock/games/{game['id']}")
    status = page.locator("#game-status")
    expect(status).not_to_be_empty()
    expect(page.locator("#connection")).to_be_hidden()  # live
    table.stop()  # the stream drops with the server
    banner = page.locator("#connection")
    expect(banner).to_be_visible()
    expect(banner).to_have_text(LOST_WORDS)
    table.start()  # the same port
    expect(banner).to_be_hidden()
    before = status.text_content()
    api(table.url, f"/api/flock/games/{game['id']}/actions", {"action": {"do": "pass"}, "version": 1})
    expect(status).not_to_have_text(before)


def test_a_stream_the_server_ends_comes_back_from_the_last_event_the_page_heard(served, phone, expect):
    table = served()
    game = new_flock_game(table.url)
    asked = []  # the Last-Event-ID of every request for the game's stream
    wsgi = table.app.wsgi_app

    def record(environ, start_response):
        if environ["PATH_INFO"].endswith("/events"):
            asked.append(environ.get("HTTP_LAST_EVENT_ID"))
        return wsgi(environ, start_response)

    table.app.wsgi_app = record
    page = phone(f"{table.url}flock/games/{game['id']}")
    status = page.locator("#game-status")
    expect(status).not_to_be_empty()
    first = status.text_content()
    moved = api(table.url, f"/api/flock/games/{game['id']}/actions", {"action": {"do": "pass"}, "version": 1})
    expect(status).not_to_have_text(first)  # the page heard version 2
    before = status.text_content()
    table.streams.close()  # the server ends every stream, as when it stops
    expect(page.locator("#connection")).to_have_text(LOST_WORDS)
    table.streams.closing.clear()  # and serves them again
    expect(page.locator("#connection")).to_be_hidden()
    assert asked[0] is None and str(moved["version"]) in asked[1:]  # the browser said what the page had heard
    api(table.url, f"/api/flock/games/{game['id']}/actions", {"action": {"do": "pass"}, "version": moved["version"]})
    expect(status).not_to_have_text(before)


def test_a_refused_stream_waits_out_the_servers_retry_after(served, phone, expect):
    table = served(SSE_REFUSED_RETRY_MS=60_000)  # the page reads the show once a minute while refused
    refusing = {"on": True}

    def refuse(route):
        if refusing["on"]:
            route.fulfill(status=503, headers={"Retry-After": "120"}, content_type="application/json",
                          body='{"error": "too many live streams are open", "code": "errors.streams_full"}')
        else:
            route.continue_()

    page = phone(None)
    page.clock.install(time=START)
    page.clock.pause_at(START + timedelta(seconds=1))  # the page's timers run only when the test moves its clock
    page.route(re.compile(r".*/api/show/events$"), refuse)
    held = []  # the strip's stream waits for the test: it opens once the show has been refused
    page.route(re.compile(r".*/api/strip/events$"), lambda route: held.append(route))
    page.goto(table.url)
    banner = page.locator("#connection")
    expect(banner).to_have_text(REFUSED_WORDS)  # refused, and the server's answer read
    expect(page.locator("#show-status")).to_have_text("No show is running.")  # read all the same
    held[0].continue_()
    expect(page.locator("#strip-rows .strip-row").first).to_be_visible()  # the strip's own stream is live
    expect(banner).to_be_visible()  # and the page still says the show is not
    page.clock.run_for(119_000)
    assert opened(page, "/api/show/events") == 1  # not asked again before the server's two minutes
    refusing["on"] = False
    page.clock.run_for(1_000 + FAST["SSE_RETRY_MS"])  # past the Retry-After and its jitter
    expect(banner).to_be_hidden()
    assert opened(page, "/api/show/events") == 2


def test_the_geese_tracker_comes_back_after_the_server_does(served, phone, expect):
    table = served()
    game = api(table.url, "/api/geese/games", {"players": ["ann", "ben", "cho", "dan"]})
    page = phone(f"{table.url}geese/games/{game['id']}")
    tracker = page.locator("#tracker")
    banner = page.locator("#connection")
    expect(tracker).to_have_attribute("data-version", str(game["version"]))
    expect(banner).to_be_hidden()

    table.stop()
    expect(banner).to_be_visible()
    expect(banner).to_have_text(LOST_WORDS)
    table.config["SSE_MAX_STREAMS"] = 0  # back, but other phones were quicker to every slot
    table.start()
    changed = api(table.url, f"/api/geese/games/{game['id']}/setup", {"card": {"n": 6, "suit": "gull"}})
    expect(tracker).to_have_attribute("data-version", str(changed["version"]))  # read by polling
    expect(banner).to_be_hidden()  # told to poll, not refused
    table.streams.limit = 1  # a slot comes free
    held_again(table, page, f"/api/geese/games/{game['id']}/events", 2)  # then live again
    again = api(table.url, f"/api/geese/games/{game['id']}/setup", {"card": {"n": 3, "suit": "gull"}})
    expect(tracker).to_have_attribute("data-version", str(again["version"]))
    assert table.streams.held() == 1


def test_the_hall_page_past_the_stream_cap_keeps_up_and_lets_a_card_that_went_go(phone, expect):
    from companion.clock import FakeClock
    from companion.mqtt.hall import Hall, create_hall_app

    clock = FakeClock()
    hall = Hall(clock=clock.monotonic, frame_s=0.0)
    hall.set_online("alpha", True)
    hall.set_show("stray", None)  # a table never seen online: its card expires
    app = create_hall_app(hall, config={**FAST, "SSE_MAX_STREAMS": 1})
    server = ServerThread(make_server(None, "127.0.0.1", 0, app=app))
    other = Holder(urlsplit(server.url).port, "/api/hall/events")  # another phone holds the only slot
    page = None
    try:
        page = phone(server.url)
        expect(page.locator("#connection")).to_have_text(REFUSED_WORDS)
        stray = page.locator('.hall-card[data-table="stray"]')
        expect(stray).to_have_count(1)
        clock.advance(3600)  # long past its time
        hall.set_online("beta", True)  # the hall's next change lets the stray go
        expect(page.locator('.hall-card[data-table="beta"]')).to_have_count(1)  # read by polling
        expect(stray).to_have_count(0)  # absent from the whole view read: gone from the page too
        expect(page.locator('.hall-card[data-table="alpha"]')).to_have_count(1)
    finally:
        if page is not None:  # closed before its server: a page cut off mid-poll says so in its console
            page.context.close()
        other.close()
        server.close()


WAITS = """async () => {
  const { backoffMs, retryAfterMs } = await import("/static/js/waits.js");
  const waits = [];
  for (let failures = 1; failures <= 12; failures++) {
    waits.push([0, 0.5, 1].map((random) => backoffMs(failures, 100, 400, random)));
  }
  const now = Date.parse("Tue, 01 Jan 2030 00:00:00 GMT");
  const after = (header) => retryAfterMs(header, now, 5000);
  return { waits, seconds: after("120"), spaced: after(" 7 "), date: after("Tue, 01 Jan 2030 00:00:30 GMT"),
           past: after("Mon, 31 Dec 2029 00:00:00 GMT"), none: after(null), junk: after("soon") };
}"""


def test_the_waits_double_up_to_the_cap_jittered_and_a_retry_after_is_read_as_seconds_or_a_date(served, phone):
    table = served()
    answer = phone(table.url).evaluate(WAITS)
    assert answer["waits"][:4] == [[50, 75, 100], [100, 150, 200], [200, 300, 400], [200, 300, 400]]
    assert all(wait == [200, 300, 400] for wait in answer["waits"][3:])  # never past the cap, however long
    assert (answer["seconds"], answer["spaced"], answer["date"]) == (120_000, 7_000, 30_000)
    assert (answer["past"], answer["none"], answer["junk"]) == (0, 5000, 5000)
