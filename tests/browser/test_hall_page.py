"""The hall page in a real browser at a phone's size: two tables on a real broker, live, one going offline.

The tables run on a fake clock, and the page on Playwright's: show time passes only when the test moves them."""

import re
from types import SimpleNamespace

import pytest

from companion.clock import FakeClock
from companion.mqtt.bridge import Bridge
from companion.mqtt.hall import Hall, create_hall_app
from companion.mqtt.hall.board import Leaderboard
from companion.mqtt.hall.listener import HallListener
from companion.mqtt.mosquitto import Mosquitto, mosquitto_missing
from companion.mqtt.settings import from_url
from companion.table import demo_table
from companion.web.server import ServerThread, make_server
from conftest import cannot_run

from .accessibility import assert_symbols, no_axe_violations


@pytest.fixture
def hall_world(tmp_path):
    """A broker, two demo tables ("alpha", "beta") bridged to it, and the hall served on 127.0.0.1."""
    cannot_run(mosquitto_missing())
    broker = Mosquitto(tmp_path / "broker").start()
    clock = FakeClock()
    tables = {name: demo_table(tmp_path / f"{name}.sqlite3", clock=clock, pin="1234").start()
              for name in ("alpha", "beta")}
    bridges = {name: Bridge(table, from_url(broker.url, table=name), backoff=(0.05, 0.2)).start()
               for name, table in tables.items()}
    board = Leaderboard(tmp_path / "hall.sqlite3")
    hall = Hall(board.rows())
    listener = HallListener(from_url(broker.url, table="hall"), hall, board, backoff=(0.05, 0.2)).start()
    server = ServerThread(make_server(None, "127.0.0.1", 0, app=create_hall_app(hall)))
    yield SimpleNamespace(tables=tables, clock=clock, bridges=bridges, url=server.url)
    server.close()
    listener.stop()
    board.close()
    for name, table in tables.items():
        bridges[name].stop()
        table.stop()
    broker.stop()


@pytest.fixture
def phone(launch, hall_world):
    context = launch()
    requests, errors = [], []
    context.on("request", lambda request: requests.append(request.url))
    page = context.pages[0] if context.pages else context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()
    assert [url for url in requests if not url.startswith(hall_world.url)] == [], "a request left 127.0.0.1"
    assert errors == []


def test_two_tables_live_on_the_hall_page_and_one_going_offline(hall_world, phone, shot):
    from playwright.sync_api import expect

    phone.clock.install()  # the page counts the sand down on its own clock, which the test moves on below
    phone.goto(hall_world.url)
    alpha = phone.locator('.hall-card[data-table="alpha"]')
    beta = phone.locator('.hall-card[data-table="beta"]')
    expect(alpha.locator(".hall-online")).to_have_text("● Online")
    expect(beta.locator(".hall-online")).to_have_text("● Online")
    expect(beta.locator(".hall-event")).to_have_text("No show is running")

    hall_world.tables["alpha"].desk.start_show("training")
    expect(alpha.locator(".hall-event")).to_have_text("Training")
    expect(alpha.locator(".hall-countdown")).to_have_text("▲ Space 4, Orange")
    expect(alpha.locator(".hall-countdown .symbol")).to_have_attribute("aria-hidden", "true")
    expect(alpha.locator(".hall-tokens")).to_have_text("0 of 3 turned")
    expect(alpha.locator('.hall-glass[data-colour="red"]')).to_contain_text("●")
    first = alpha.locator('.hall-glass[data-colour="red"]').inner_text()
    phone.clock.run_for(2_000)
    expect(alpha.locator('.hall-glass[data-colour="red"]')).not_to_have_text(first)  # the sand runs on the page
    assert alpha.locator('.hall-glass[data-colour="green"]').inner_text().endswith("Lying on its side")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    shot(phone, "hall-phone-show")

    hall_world.bridges["beta"].stop()
    expect(beta.locator(".hall-online")).to_have_text("○ Offline")
    expect(beta).to_have_class("hall-card offline")

    hall_world.tables["alpha"].desk.abort()
    expect(phone.locator("#board")).to_contain_text("Training")
    expect(phone.locator("#board")).to_contain_text("alpha")
    shot(phone, "hall-phone")

    phone.goto(hall_world.url + "lang/ja?next=/")
    expect(phone.locator("h1")).to_have_text("ホールのすべてのテーブル")
    expect(phone.locator('.hall-card[data-table="beta"] .hall-online')).to_have_text("○ オフライン")


# Every text the status line is given, in order (a line set twice to the same words counts twice).
LISTEN = """() => {
  window.heard = [];
  new MutationObserver(() => window.heard.push(document.getElementById("hall-status").textContent))
    .observe(document.getElementById("hall-status"), { childList: true, characterData: true, subtree: true });
}"""


def test_the_hall_says_which_table_changed_and_how_and_only_then(hall_world, phone):
    """A show starting, each run-out with the crowd tokens left, and the loss; nothing for the sand running."""
    from playwright.sync_api import expect

    phone.goto(hall_world.url)
    alpha = phone.locator('.hall-card[data-table="alpha"]')
    expect(alpha.locator(".hall-online")).to_have_text("● Online")
    expect(phone.locator("#hall-count")).to_have_text("2 tables on the broker")
    phone.evaluate(LISTEN)
    assert phone.locator("#hall-status").text_content() == ""  # cards seen for the first time are not news

    table = hall_world.tables["alpha"]
    table.desk.start_show("training")
    in_play = [c for c, timer in table.desk.snapshot()["timers"].items() if timer["state"] != "out_of_play"]
    expect(alpha.locator(".hall-glass")).to_have_count(len(in_play))
    assert_symbols(phone, '.hall-card[data-table="alpha"] .hall-glass', in_play, {c: c.capitalize() for c in in_play})
    assert_symbols(phone, '.hall-card[data-table="alpha"] .hall-countdown', ["orange"], {"orange": "Orange"})
    no_axe_violations(phone, "the hall during a show")
    tokens = alpha.locator(".hall-tokens")
    for seconds, turned in ((30.001, 1), (20.0, 2)):  # red runs out at 30 s, yellow at 50 s
        hall_world.clock.advance(seconds)
        expect(tokens).to_have_text(f"{turned} of 3 turned")
    hall_world.clock.advance(10.0)  # red again at 1:00: the last crowd token
    expect(alpha.locator(".hall-outcome")).to_have_text("Lost")
    heard = phone.evaluate("window.heard")
    runouts = [r["timer"].capitalize() for r in table.desk.snapshot()["runouts"]]
    assert len(runouts) == 3
    said = " ".join(heard)
    assert said.startswith("Table alpha started Training. ")
    told = re.findall(r"Table alpha: ([A-Za-z ]+) ran out, crowd tokens left: (\d)\.", said)
    assert [name for names, _left in told for name in names.split(" and ")] == runouts
    assert told[-1][1] == "0" and said.endswith("Table alpha lost.")
    assert "beta" not in said
    # One line per happening (a run-out, the start, the end), never one per update of the sand.
    assert 2 <= len(heard) <= len(runouts) + 1
    assert len(set(heard)) == len(heard)
