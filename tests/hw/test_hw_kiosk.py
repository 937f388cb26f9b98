"""The kiosk page's server side: the PIN only on the table itself, out of the phones' navigation, its messages complete."""

import html
import json
import re
from pathlib import Path

import pytest

from companion.web import PAGE_BUDGET, create_app
import companion.web.kiosk as kiosk

KIOSK = Path(kiosk.__file__).parent


@pytest.fixture
def app(table):
    return create_app(table, secret_key="test", testing=True)


def get(app, path="/kiosk/", remote="127.0.0.1", lang="en"):
    client = app.test_client()
    return client.get(path, environ_base={"REMOTE_ADDR": remote}, headers={"Accept-Language": lang})


def test_the_table_itself_sees_the_pin_and_a_qr_code_of_its_lan_address(app, table):
    table.door.listening = ("0.0.0.0", 8000)
    app.config.update(LAN_ADDRESSES=["192.168.1.20"], MDNS_NAME="raspberrypi.local")
    response = get(app)
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert f'<span id="kiosk-pin" class="pin">{table.door.pin}</span>' in page
    assert '<svg' in page and 'class="qr-code"' in page
    assert ">192.168.1.20:8000</span>" in page and "127.0.0.1" not in page
    assert app.test_client().get("/kiosk/join").get_json()["url"] == "http://192.168.1.20:8000/"


def test_a_table_without_an_address_for_phones_never_offers_its_loopback(app, table):
    """Listening on 127.0.0.1 only, or before the Wi-Fi is up: no QR code, a sentence instead."""
    table.door.listening = ("0.0.0.0", 8000)
    app.config.update(LAN_ADDRESSES=[], MDNS_NAME="")
    page = get(app).get_data(as_text=True)
    assert 'class="qr-code"' not in page and "127.0.0.1" not in page
    assert "No network address yet" in page
    join = app.test_client().get("/kiosk/join").get_json()
    assert join["url"] is None and join["qr"] is None and join["label"].startswith("No network address yet")
    table.door.listening = ("127.0.0.1", 8000)  # bound to loopback: the way in is another option, not the Wi-Fi
    assert "listens on 127.0.0.1 only" in get(app).get_data(as_text=True)


def test_a_phone_never_sees_the_pin(app, table):
    page = get(app, remote="192.168.1.40").get_data(as_text=True)
    assert table.door.pin not in page and 'id="kiosk-pin"' not in page
    assert "The PIN is on the table&#39;s own screen." in page or "The PIN is on the table's own screen." in page


def test_it_is_not_in_the_phone_navigation(app):
    nav = get(app, path="/").get_data(as_text=True).split("<nav", 1)[1].split("</nav>", 1)[0]
    assert "/kiosk" not in nav


def test_every_asset_is_served_here_and_the_script_reads_the_live_show(app):
    page = get(app).get_data(as_text=True)
    assets = [a for a in re.findall(r'(?:src|href)="([^"]+)"', page) if "/static/" in a]
    assert assets and all(a.startswith("/") and not a.startswith("//") for a in assets), assets
    for asset in assets:
        assert get(app, path=asset.split("?")[0]).status_code == 200, asset
    script = (KIOSK / "static" / "kiosk.js").read_text("utf-8")
    imports = re.findall(r'from "(/[^"]+)"', script)
    assert sorted(imports) == ["/static/js/follow.js", "/static/js/i18n.js", "/static/js/listen.js",
                               "/static/js/looks.js", "/static/js/sand.js",
                               "/table/static/glass.js"]  # shared modules and the glass only
    assert all(get(app, path=i).status_code == 200 for i in imports), imports
    live = get(app, path="/static/js/follow.js").get_data(as_text=True)  # the one live loop of every page
    assert 'fetch("/api/show")' in script
    assert 'follow("/api/show/events", { on: { state: accept }, poll: "/api/show"' in script
    assert "new EventSource(events)" in live


def test_the_tokens_come_from_the_rules_not_a_literal(app):
    from companion.skyrockets.show import CROWD_TOKENS

    assert f'data-tokens="{CROWD_TOKENS}"' in get(app).get_data(as_text=True)
    assert not re.search(r"\b3\b", (KIOSK / "static" / "kiosk.js").read_text("utf-8"))


def test_the_catalogs_match_and_every_message_asked_for_is_there(app):
    english, japanese = (json.loads((KIOSK / "i18n" / f"{lang}.json").read_text("utf-8")) for lang in ("en", "ja"))
    assert set(english) == set(japanese) and all(key.startswith("kiosk.") for key in english)
    for key, text in english.items():
        assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", japanese[key])), key
    from companion.web.i18n import area_catalog

    with app.app_context():
        known = area_catalog("kiosk", "en")  # what the screen's script loads
    asked = set()
    for path in [*KIOSK.glob("templates/**/*.html"), *KIOSK.glob("static/*.js"), *KIOSK.glob("*.py")]:
        asked |= set(re.findall(r"""\b(?:_|t|translate)\(\s*["']([\w.]+)["']""", path.read_text("utf-8")))
    assert asked and sorted(key for key in asked if key not in known and not key.endswith(".")) == []
    assert set(english) <= asked, "no message is left unused"


def test_the_page_speaks_japanese(app):
    page = get(app, lang="ja").get_data(as_text=True)
    assert "スマートフォンでテーブルを開く" in page and "テーブルのPIN" in page


def test_the_page_and_everything_it_loads_stay_under_100_kb(app):
    page = get(app)
    text = page.get_data(as_text=True)
    loads = [a for a in re.findall(r'(?:src|href)="([^"]+)"', text) if "/static/" in a]
    loads += re.findall(r'from "(/[^"]+)"', (KIOSK / "static" / "kiosk.js").read_text("utf-8"))
    loads += [html.unescape(re.search(r'data-catalog="([^"]+)"', text).group(1))]
    total = len(page.data) + sum(len(get(app, path=url).data) for url in set(loads))
    assert total <= PAGE_BUDGET, total
