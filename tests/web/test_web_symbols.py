"""Every page that names a timer shows its symbol beside the name, hidden from screen readers, which read the name.

A whole show is played on a demo table (a fake clock, the table turning its
LED glasses) and lost, so the past-show page and its shared result have
run-outs to show.
"""

import re

import pytest

from companion.clock import FakeClock
from companion.hardware.mock import Hands
from companion.skyrockets import COLOURS
from companion.table import demo_table
from companion.web import create_app
from companion.web.looks import LOOKS
from conftest import as_owner

NAMES = {"en": {c: c.capitalize() for c in COLOURS},
         "ja": {"red": "赤", "orange": "橙", "yellow": "黄", "green": "緑", "blue": "青", "purple": "紫"}}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A demo table whose first show (training) was lost to three run-outs."""
    table = demo_table(tmp_path_factory.mktemp("symbols") / "table.sqlite3", clock=FakeClock(), pin="1234")
    table.desk.start_show("training")
    Hands(table).wait(70)
    assert table.desk.snapshot()["outcome"] == "loss"
    yield table, [r["timer"] for r in table.desk.snapshot()["runouts"]]
    table.stop()


@pytest.fixture
def client(played):
    return create_app(played[0], testing=True).test_client()


def named(colour: str, lang: str = "en") -> str:
    """A timer's name as the templates write it: the symbol in a span screen readers skip, then the name."""
    return f'<span class="symbol" aria-hidden="true">{LOOKS[colour]["symbol"]}</span> {NAMES[lang][colour]}'


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_shared_result_names_each_glass_that_ran_out_by_symbol_and_name(played, client, lang):
    _table, runouts = played
    client.get(f"/lang/{lang}?next=/")
    text = client.get("/api/shows/1/result").json["text"]
    timers = {"en": ", ", "ja": "、"}[lang].join(f"{LOOKS[c]['symbol']} {NAMES[lang][c]}" for c in runouts)
    assert len(runouts) == 3
    assert ({"en": "Ran out: ", "ja": "砂切れ："}[lang] + timers) in text.splitlines()
    assert timers in client.get("/shows/1").get_data(as_text=True)  # the result card on the page says the same


def test_the_kiosk_names_every_glass_with_its_symbol(client):
    page = client.get("/kiosk/").get_data(as_text=True)
    for colour in COLOURS:
        tile = re.search(rf'id="kiosk-{colour}".*?</article>', page, re.S)[0]
        assert f"<h2>{named(colour)}</h2>" in tile


def test_the_setup_page_names_every_glass_with_its_symbol(client, played):
    as_owner(client, played[0])
    page = client.get("/setup/").get_data(as_text=True)
    for colour in COLOURS:
        row = re.search(rf'id="wire-{colour}".*?</tr>', page, re.S)[0]
        assert named(colour) in row
        assert f'<option value="{colour}">{LOOKS[colour]["symbol"]} {NAMES["en"][colour]}</option>' in page


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_past_show_draws_each_glass_with_its_symbol(client, lang):
    client.get(f"/lang/{lang}?next=/")
    page = client.get("/shows/1").get_data(as_text=True)
    groups = dict(re.findall(r'<g class="glass" data-timer="(\w+)">(.*?)</g>(?=<g class="glass"|<g fill)', page, re.S))
    assert groups and set(groups) <= set(COLOURS)
    for colour, group in groups.items():
        assert re.findall(r">([^<>]+)</text>", group) and set(re.findall(r">([^<>]+)</text>", group)) <= {
            LOOKS[colour]["symbol"], "✕"}
    summary = re.search(r'<desc id="timeline-summary">(.*?)</desc>', page)[1]
    assert NAMES[lang]["red"] in summary and NAMES[lang]["yellow"] in summary
