"""Updating the program from a phone, as the owner does it: the setup code entered on the setup page, the release
file chosen on the maintenance page, sent in pieces, checked and handed over; the page then follows the update
service's status until it says the new release runs (the service's side played by the test, as root's unit
would write it)."""

from pathlib import Path

from companion.appliance.handover import DROP, WAITING, take, tell
from companion.appliance.keeping import Backups
from companion.clock import FakeClock
from companion.config import load_or_fresh
from companion.hardware.mock import mock_pin_factory
from companion.records import Store
from companion.table import Table
from tests.appliance.test_release_file import built, wheelhouse  # noqa: F401  (a fixture)

ROOT = Path(__file__).resolve().parents[2]
POLL_WAIT_MS = 10_000  # the page looks every 3 s: room for two looks on a busy machine


def test_the_owner_updates_the_table_from_the_phone(serve, phone, expect, tmp_path, wheelhouse):  # noqa: F811
    home = tmp_path / "opt"
    for name in ("0.1.0-aaa", "0.0.9-bbb"):
        (home / "releases" / name).mkdir(parents=True)
    (home / "current").symlink_to("releases/0.1.0-aaa")
    (home / "previous").symlink_to("releases/0.0.9-bbb")
    (home / "companion-update.path").write_text("[Path]\n")  # its update service enabled, as install.sh does
    text = (ROOT / "docs" / "config.example.toml").read_text(encoding="utf-8").replace("mock_pins = false",
                                                                                      "mock_pins = true")
    text = text.replace("/var/lib/companion/companion.sqlite3", str(tmp_path / "state" / "companion.sqlite3"))
    (tmp_path / "state").mkdir()
    (tmp_path / "config.toml").write_text(text, encoding="utf-8")
    config = load_or_fresh(tmp_path / "config.toml")
    table = Table(config, Store(config.database), mock_pin_factory(), clock=FakeClock(),
                  keeping=Backups(prefix=str(home / "current"), watch=home / "companion-update.path"))
    served = serve(table)
    release = built(wheelhouse)

    base = served.url.rstrip("/")
    page = phone(served.url)
    page.goto(f"{base}/setup/")
    page.fill("#setup-code", table.first_run.code)
    with page.expect_navigation():  # the setup page reloads once the code is taken
        page.click("#code-form button[type=submit]")
    page.goto(f"{base}/maintenance/")
    expect(page.locator("#version-running")).to_have_text("0.1.0-aaa")
    expect(page.locator("#version-previous")).to_have_text("0.0.9-bbb")
    page.set_input_files("#update-file", str(release))
    page.click("#update-form button[type=submit]")
    expect(page.locator("#update-status")).to_contain_text("checked and handed to the table's update service")
    state = tmp_path / "state"
    assert (state / DROP / WAITING).read_bytes() == release.read_bytes()

    # The update service's side: it took the release, installed it, and the table restarted on it.
    (tmp_path / "root").mkdir()
    assert take(state, tmp_path / "root", release.stat().st_size).read_bytes() == release.read_bytes()
    name = page.evaluate("() => document.getElementById('update-status').textContent.split(':')[0]")
    (home / "releases" / name).mkdir()
    (home / "previous").unlink()
    (home / "previous").symlink_to("releases/0.1.0-aaa")
    tell(state, "done", name, f"{name} runs; 0.1.0-aaa is the way back")
    expect(page.locator("#update-status")).to_have_text(f"{name} is running now: the update is done.",
                                                        timeout=POLL_WAIT_MS)
    expect(page.locator("#version-previous")).to_have_text("0.1.0-aaa")
