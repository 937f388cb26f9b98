"""Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright at a phone's viewport, on a demo table.

Without /usr/bin/chromium or the playwright package these tests are skipped,
saying why; with COMPANION_REQUIRE_BROWSER=1 (as in CI) they fail instead.
Every test gets a fresh demo table served on 127.0.0.1, a fresh browser
profile, and a check at the end that no request left 127.0.0.1 and no script
failed. Screenshots go to tests/artifacts/.
"""

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from companion.table import demo_table
from companion.web.server import ServerThread, make_server

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
SPEED = 10.0  # show seconds per wall second: a 30 s glass runs out in 3 s
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is not installed (Debian package: chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright)"
    return None


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
    """A demo table (six emulated timers, a fake strip) at 10x speed, served on 127.0.0.1."""
    table = demo_table(tmp_path / "demo.sqlite3", speed=SPEED, pin="1234").start()
    server = ServerThread(make_server(table, "127.0.0.1", 0))
    yield SimpleNamespace(table=table, url=server.url, app=server.server.flask_app)
    server.close()
    table.stop()


MISSING_MESSAGE = "Message missing from the page's catalog:"  # what t() in static/js/i18n.js reports


@pytest.fixture
def launch(playwright, tmp_path):
    """Start Chromium with a fresh profile: launch() -> a browser context at a phone's viewport.

    Every page of every context it starts is watched for a message its script asked for and its
    catalog lacks (shown as the raw key): the test fails at the end naming them."""
    missing = []

    def start(viewport=PHONE):
        profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), headless=True, args=ARGS, viewport=viewport)
        context.on("console", lambda m: missing.append(f"{m.page and m.page.url}: {m.text}")
                   if MISSING_MESSAGE in m.text else None)
        return context

    yield start
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
