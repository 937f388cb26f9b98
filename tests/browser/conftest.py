"""Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright at a phone's viewport, on a demo table.

Without /usr/bin/chromium or the playwright package these tests are skipped,
saying why; with COMPANION_REQUIRE_BROWSER=1 (as in CI) they fail instead.
Every test gets a fresh demo table served on 127.0.0.1, a fresh browser
context (in the one Chromium of its test process), and a check at the end that no request left 127.0.0.1 and no script
failed; `serve` and `phone` do the same for a table the test builds itself (on
tilt pins, or a clock the test moves), with the phone's sound watched.
Show time passes only when a test moves a table's clock (`demo.clock.advance`), never by waiting: a test that
waited for a glass to run out failed on a busy machine.
Screenshots go to tests/artifacts/.
"""

import json
import os
import re
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest

from companion.clock import FakeClock
from companion.table import demo_table
from companion.web.server import ServerThread, make_server

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"

# Wrap Web Audio, vibration and the wake lock so the test sees what the page asks of them.
WATCH = """
window.__tones = []; window.__vibrations = []; window.__locks = [];
const RealContext = window.AudioContext;
window.AudioContext = class extends RealContext {
  createOscillator() {
    const oscillator = super.createOscillator();
    const start = oscillator.start.bind(oscillator);
    oscillator.start = (at) => { window.__tones.push(Math.round(oscillator.frequency.value)); start(at); };
    return oscillator;
  }
};
Object.defineProperty(navigator, "vibrate", { value: (pattern) => { window.__vibrations.push(pattern); return true; } });
Object.defineProperty(navigator, "wakeLock", { value: { request: async (type) => {
  const sentinel = new EventTarget();
  sentinel.released = false;
  sentinel.release = async () => { sentinel.released = true; window.__locks.push("released"); };
  window.__locks.push(type);
  return sentinel;
} } });
"""


# Each POST a page sends, counted by its path as it is sent (a tap's handler calls fetch before it returns). Added
# with context.add_init_script, before the page loads.
COUNT_POSTS = """window.posts = {};
const send = window.fetch;
window.fetch = (url, init) => {
  if (init?.method === "POST") {
    const path = new URL(url, location.href).pathname;
    window.posts[path] = (window.posts[path] ?? 0) + 1;
  }
  return send(url, init);
};"""


class Held(list):
    """The requests a page has had held so far."""

    def __init__(self, page):
        super().__init__()
        self.page = page

    def some(self, what: str, within_ms: int = 15_000) -> None:
        """Wait until one is held (a click returns before the page's script sends what it sends: on a busy machine
        the checks after it can all be done first); fail saying `what` if none is."""
        for _ in range(within_ms // 50):
            if self:
                return
            self.page.wait_for_timeout(50)  # Playwright's loop turns, and hands the route over
        raise AssertionError(f"{what}: nothing was held, so nothing was tried")


@contextmanager
def held_back(page, pattern):
    """The page's requests matching `pattern` wait until the block ends, as on a slow network; yields those held so
    far (`Held`), so a test can check something was held (else it tried nothing)."""
    held = Held(page)
    page.route(pattern, lambda route: held.append(route))
    try:
        yield held
    finally:
        for route in held:
            route.continue_()
        page.unroute(pattern)


@contextmanager
def answers_held_back(page, pattern):
    """The page's requests matching `pattern` reach the table at once, but their answers wait until the block ends,
    as on a slow way back to the phone; yields those held so far (`Held`, of (route, answer) pairs)."""
    held = Held(page)
    page.route(pattern, lambda route: held.append((route, route.fetch())))
    try:
        yield held
    finally:
        for route, answer in held:
            route.fulfill(response=answer)
        page.unroute(pattern)


def unlock(page, url: str, next_path: str, pin: str = "1234") -> None:
    """Enter the table PIN on the PIN page and wait for the page it leads to: a field filled while the
    next page is still on its way can be filled on a page that is then replaced (seen on a busy machine)."""
    page.goto(f"{url.rstrip('/')}/pin?next={next_path}")
    page.fill("#pin", pin)
    page.click(".pin-form button[type=submit]")
    page.wait_for_url(re.compile(re.escape(next_path) + "$"))
    page.wait_for_load_state("load")


def api(url: str, path: str, body: dict) -> dict:
    """POST `body` to the table at `url` as a script does, with the PIN: its JSON answer."""
    request = urllib.request.Request(url + path.lstrip("/"), data=json.dumps(body).encode(), method="POST",
                                     headers={"X-Table-Pin": "1234", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is not installed (Debian package: chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright)"
    return None


@pytest.fixture
def expect(playwright):
    """Playwright's expect, once Playwright is known to run here."""
    from playwright.sync_api import expect

    return expect


@pytest.fixture(scope="session")
def playwright():
    reason = browser_missing()
    if reason:
        if os.environ.get("COMPANION_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required (COMPANION_REQUIRE_BROWSER=1) but {reason}")
        pytest.skip(reason)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=15_000)
    with sync_playwright() as p:
        yield p


@pytest.fixture
def demo(tmp_path):
    """A demo table (six emulated timers, a fake strip) on a fake clock, served on 127.0.0.1."""
    clock = FakeClock()
    table = demo_table(tmp_path / "demo.sqlite3", clock=clock, pin="1234").start()
    server = ServerThread(make_server(table, "127.0.0.1", 0))
    yield SimpleNamespace(table=table, clock=clock, url=server.url, app=server.server.flask_app)
    server.close()
    table.stop()


MISSING_MESSAGE = "Message missing from the page's catalog:"  # what t() in static/js/i18n.js reports


@pytest.fixture(scope="session")
def chromium(playwright):
    """One Chromium for every test of a test process: starting one took a second or two of each browser test,
    and a fresh context (below) is as new a phone as a fresh profile was: its own cookies, storage and cache."""
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
    yield browser
    browser.close()


@pytest.fixture
def launch(chromium):
    """A new phone: launch() -> a fresh browser context at a phone's viewport (keyword options such as
    user_agent or timezone_id are Playwright's).

    Every page of every context it starts is watched for a message its script asked for and its
    catalog lacks (shown as the raw key): the test fails at the end naming them. Every context is
    closed at the end, whether the test closed it or not."""
    missing, started = [], []

    def start(viewport=PHONE, **options):
        context = chromium.new_context(viewport=viewport, **options)
        context.on("console", lambda m: missing.append(f"{m.page and m.page.url}: {m.text}")
                   if MISSING_MESSAGE in m.text else None)
        started.append(context)
        return context

    yield start
    for context in started:
        context.close()  # a no-op for one the test closed itself
    assert missing == [], "a page showed a raw catalog key"


@pytest.fixture
def browser(launch, demo):
    """A phone-sized page on the demo, recording every request and every script error."""
    context = launch()
    requests, errors = [], []
    context.on("request", lambda request: requests.append(request.url))
    page = context.pages[0] if context.pages else context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    # A refused PIN answers 403 by design; the console reports that load, which is not a script error.
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "status of 4" not in m.text else None)
    yield SimpleNamespace(page=page, context=context, requests=requests, errors=errors, url=demo.url)
    context.close()
    assert [url for url in requests if not url.startswith(demo.url)] == [], "a request left 127.0.0.1"
    assert errors == []


@pytest.fixture
def shot():
    """Save a full-page screenshot as tests/artifacts/NAME.png."""

    def save(page, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    return save


@pytest.fixture
def serve():
    """serve(table) -> the table started and served on 127.0.0.1, stopped at the end."""
    running = []

    def start(table):
        table.start()
        server = make_server(table, "127.0.0.1", 0)
        thread = ServerThread(server)
        running.append((thread, table))
        return SimpleNamespace(table=table, server=server, url=thread.url)

    yield start
    for thread, table in running:
        thread.close()
        table.stop()


@pytest.fixture
def phone(launch):
    """open(url, viewport, lang, init, **options) -> a page at that size (options: Playwright's, such as
    reduced_motion), its sound (and `init`, a script run before the page's own) watched, recording requests and
    script errors, checked at the end."""
    opened = []

    def open_page(url, viewport=PHONE, lang=None, init="", **options):
        context = launch(viewport, **options)
        if lang:
            context.add_cookies([{"name": "lang", "value": lang, "url": url}])
        context.add_init_script(WATCH + init)
        page = context.pages[0] if context.pages else context.new_page()
        record = SimpleNamespace(page=page, context=context, url=url, requests=[], errors=[])
        context.on("request", lambda request: record.requests.append(request.url))
        page.on("pageerror", lambda error: record.errors.append(str(error)))
        page.on("console", lambda m: record.errors.append(m.text)
                if m.type == "error" and "status of 4" not in m.text else None)
        opened.append(record)
        page.goto(url)
        return page

    yield open_page
    for record in opened:
        record.context.close()
        assert [u for u in record.requests if not u.startswith(record.url)] == [], "a request left 127.0.0.1"
        assert record.errors == []
