"""The setup code is the owner's key on both pages that take it, the setup page and the Wi-Fi page (the table's
own web stack, served by the network watcher), read and guarded by one module, companion.web.owner: a guest's wrong codes, from one address or spread over many, on either page, never make
the owner's right code wait on either; the code is read as the screen shows it (groups, any case)."""

import re

import pytest

from companion.appliance.page import CardDesk
from companion.table.firstrun import grouped
from companion.web import create_app
from companion.web.wifi import create_wifi_app
from conftest import csrf_in, installed_table

OWNER = "192.168.4.7"


@pytest.fixture
def table(tmp_path):
    table = installed_table(tmp_path)
    yield table
    table.stop()


class Pages:
    """The setup page (the daemon's) and the Wi-Fi page (the watcher's), each typed into from any address."""

    def __init__(self, table, tmp_path):
        self.client = create_app(table, testing=True).test_client()
        page = self.client.get("/setup/", environ_base={"REMOTE_ADDR": OWNER}).get_data(as_text=True)
        self.csrf = csrf_in(page)
        code_file = tmp_path / "companion-setup-code.txt"
        code_file.write_text(table.first_run.code + "\n")  # as the table writes it on the card
        self.saved = []
        self.wifi = create_wifi_app(CardDesk(code_file, self.saved.append), clock=lambda: 0.0, testing=True).test_client()
        self.wifi_csrf = re.search(r'name="csrf" value="([^"]+)"', self.wifi.get("/").get_data(as_text=True))[1]

    def setup_page(self, code: str, address: str) -> int:
        return self.client.post("/api/setup/code", json={"code": code}, headers={"X-CSRF-Token": self.csrf},
                                environ_base={"REMOTE_ADDR": address}).status_code

    def wifi_page(self, code: str, address: str) -> int:
        form = {"csrf": self.wifi_csrf, "ssid": "Home", "password": "correct horse", "country": "JP", "code": code}
        return self.wifi.post("/", data=form, environ_base={"REMOTE_ADDR": address}).status_code


@pytest.mark.parametrize("spread", [False, True], ids=["one address", "a new address each time"])
def test_a_guests_wrong_codes_on_either_page_never_keep_the_owners_code_out_of_either(table, tmp_path, spread):
    pages = Pages(table, tmp_path)
    for n in range(40):
        guest = f"192.168.4.{100 + n}" if spread else "192.168.4.66"
        assert pages.setup_page("AAAAAAAAAA", guest) in (403, 429)
        assert pages.wifi_page("AAAAAAAAAA", guest) in (403, 429)
    if not spread:
        assert pages.wifi_page("AAAAAAAAAA", "192.168.4.66") == 429  # the guesser itself waits
    shown = grouped(table.first_run.code).lower()  # as the screen shows it, typed in lower case
    assert pages.wifi_page(shown, OWNER) == 200 and [w.ssid for w in pages.saved] == ["Home"]
    assert pages.setup_page(f" {shown} ", OWNER) == 200


@pytest.mark.parametrize("rest_after_s", [None, 1, 16, 64, 128, 256], ids=lambda s: f"rest after {s} s")
def test_one_address_is_heard_at_most_850_times_a_day_as_docs_security_says(rest_after_s):
    """The figure the arithmetic in docs/security.md stands on, played against the real guard for a day: a
    guesser who tries at every wait's end, or who rests a quarter hour (its count forgotten) once the waits
    reach `rest_after_s`."""
    from companion.guessing import FORGET_AFTER_S, setup_code_guard

    guard, now, heard = setup_code_guard(clock=lambda: now), 0.0, 0
    while now < 24 * 3600:
        wait = guard.wait_s("10.42.0.66", now)
        if wait > 0:
            resting = rest_after_s is not None and wait >= rest_after_s
            now += FORGET_AFTER_S + 1 if resting else wait
            continue
        guard.failed("10.42.0.66", now)
        heard += 1
    assert 280 <= heard <= 850
