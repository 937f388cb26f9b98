"""A file first boot could not use is said on the table's own screen, in the owner's language: the boot
partition is root's alone, so first boot keeps the reason in the table's folder too, and the kiosk reads it there."""

import pytest

from companion.appliance import bootfiles, cardnotes, firstboot
from companion.appliance.keeping import Backups
from companion.table import demo_table
from companion.web import create_app

PHONE = {"REMOTE_ADDR": "192.168.1.20"}


def boot_with(root, boot, files: dict) -> list[str]:
    for name, raw in files.items():
        (boot / name).write_bytes(raw)
    return firstboot.apply(boot, root, run=lambda c, **kw: None, set_hostname=lambda n: None)


@pytest.fixture
def card(tmp_path):
    boot, root = tmp_path / "boot", tmp_path / "root"
    boot.mkdir()
    (root / "etc").mkdir(parents=True)
    (root / "etc/hostname").write_text("companion\n")
    (root / cardnotes.STATE).mkdir(parents=True)
    return boot, root


@pytest.fixture
def kiosk(card):
    _, root = card
    table = demo_table(root / cardnotes.STATE / "companion.sqlite3", keeping=Backups())
    client = create_app(table, testing=True).test_client()
    yield client
    table.stop()


def screen(client, lang: str, **environ) -> str:
    client.get(f"/lang/{lang}?next=/kiosk/")
    return client.get("/kiosk/", environ_base=environ).get_data(as_text=True)


def test_a_wifi_file_that_is_not_utf8_is_said_on_the_screen_in_the_owners_language(card, kiosk):
    boot, root = card
    boot_with(root, boot, {bootfiles.WIFI_FILE: "ssid=Café\npassword=correct horse\ncountry=FR\n".encode("cp1252")})
    english = screen(kiosk, "en")
    assert ("⚠ companion-wifi.txt on the card was not used: This file is not UTF-8 text (byte 9): save it as "
            "UTF-8 and put it back on the card.") in english
    japanese = screen(kiosk, "ja")
    assert "カードの companion-wifi.txt は使われませんでした" in japanese and "9" in japanese
    assert "not UTF-8" not in japanese
    assert "kiosk-card-note" not in screen(kiosk, "en", **PHONE)  # the owner's business: the table's screen only
    assert "correct horse" not in english


def test_a_name_file_refused_then_mended_leaves_the_screen_clear(card, kiosk):
    boot, root = card
    boot_with(root, boot, {bootfiles.NAME_FILE: b"-red-\n"})
    assert "companion-name.txt on the card was not used" in screen(kiosk, "en")
    boot_with(root, boot, {bootfiles.NAME_FILE: b"red-table\n"})  # mended, and the next boot takes it
    assert "kiosk-card-note" not in screen(kiosk, "en")
    assert not (root / cardnotes.STATE / cardnotes.NOTES).exists()


@pytest.mark.parametrize("text", [b"{", b"[1]", b'[{"file": "/etc/shadow", "code": "x", "params": {}, "error": "x"}]',
                                  b'[{"file": "companion-wifi.txt", "code": "x\\u0007", "params": {}, "error": "x"}]',
                                  b"\xff" * 10, b"[" + b" " * cardnotes.MAX_NOTES_BYTES + b"]"])
def test_notes_that_do_not_read_are_let_be_and_the_screen_still_shows(card, kiosk, text):
    _, root = card
    (root / cardnotes.STATE / cardnotes.NOTES).write_bytes(text)
    page = kiosk.get("/kiosk/")
    assert page.status_code == 200 and "kiosk-card-note" not in page.get_data(as_text=True)
