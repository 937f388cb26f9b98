"""The Wi-Fi page on the table's own web stack: the setup code read as shown and guarded per address, the
session's CSRF token, the owner's language, the table's server's strict reading of a body's length, and a page
that listens only while the access point is up."""

import re
import socket

import pytest

from companion.appliance.page import CardDesk
from companion.guessing import CLIENT_FREE_TRIES
from companion.web.security import CONTENT_SECURITY_POLICY
from companion.web.server import ServerThread, make_server
from companion.web.wifi import FORM_LIMIT, create_wifi_app
from conftest import free_port

CODE = "ABCDEFGHJK"
OWNER, GUEST = {"REMOTE_ADDR": "10.42.0.7"}, {"REMOTE_ADDR": "10.42.0.66"}


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def card(tmp_path):
    code_file = tmp_path / "companion-setup-code.txt"
    code_file.write_text(CODE + "\n")  # as the table writes it on the card
    saved = []
    return code_file, saved, CardDesk(code_file, saved.append)


@pytest.fixture
def page(card):
    _, saved, desk = card
    clock = Clock()
    client = create_wifi_app(desk, clock=clock, testing=True).test_client()
    client.saved, client.clock = saved, clock
    return client


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html)[1]


def send(client, environ=OWNER, lang="en", **form):
    csrf = csrf_of(client.get("/", headers={"Accept-Language": lang}, environ_base=environ).get_data(as_text=True))
    fields = {"csrf": csrf, "ssid": "Home", "password": "correct horse", "country": "JP", "code": "abcde-fghjk"}
    fields.update(form)
    return client.post("/", data=fields, headers={"Accept-Language": lang}, environ_base=environ)


def test_the_owners_code_as_shown_joins_the_network(page):
    answer = send(page, code=" abcde-FGHJK ")
    assert answer.status_code == 200 and "joining Home" in answer.get_data(as_text=True)
    assert [w.ssid for w in page.saved] == ["Home"]


def test_a_closed_setup_a_wrong_code_and_a_wrong_network_are_refused_saying_why(page, card):
    wrong = send(page, code="AAAAA-AAAAA")
    assert wrong.status_code == 403 and "That setup code is wrong." in wrong.get_data(as_text=True)
    bad = send(page, country="XX")
    assert bad.status_code == 400 and "wifi.country: Expected a two-letter country code" in bad.get_data(as_text=True)
    card[0].unlink()  # setup finished: the table took the card's copy away
    closed = send(page)
    assert closed.status_code == 409 and "Setup is closed" in closed.get_data(as_text=True)
    assert page.saved == []


def test_a_form_without_the_sessions_token_changes_nothing(page, card):
    assert page.post("/", data={"ssid": "Evil", "country": "JP", "code": CODE}).status_code == 403
    other = create_wifi_app(card[2], testing=True).test_client()  # a token of another page's session
    token = csrf_of(other.get("/").get_data(as_text=True))
    page.get("/")
    assert page.post("/", data={"csrf": token, "ssid": "Evil", "country": "JP", "code": CODE}).status_code == 403
    assert page.saved == []


def test_the_page_speaks_the_phones_language_and_refuses_in_it(page):
    form = page.get("/", headers={"Accept-Language": "ja,en;q=0.5"}).get_data(as_text=True)
    assert '<html lang="ja"' in form and "テーブルを Wi-Fi につなぐ" in form and 'href="/lang/en' in form
    refused = send(page, lang="ja", code="AAAAA-AAAAA")
    assert refused.status_code == 403 and "セットアップコードが違います。" in refused.get_data(as_text=True)
    joined = send(page, lang="ja")
    assert "テーブルはHomeに接続しています" in joined.get_data(as_text=True)
    page.get("/lang/en?next=/")  # the switch: the phone's choice outweighs its browser's
    assert '<html lang="en"' in page.get("/", headers={"Accept-Language": "ja"}).get_data(as_text=True)


def test_a_guests_wrong_codes_make_only_the_guest_wait(page):
    for _ in range(CLIENT_FREE_TRIES):
        assert send(page, GUEST, code="AAAAA-AAAAA").status_code == 403
    assert send(page, GUEST).status_code == 429  # the right code, but this address waits now
    assert send(page, OWNER).status_code == 200  # another address does not
    page.clock.now += 61
    assert send(page, GUEST).status_code == 200


def test_the_code_field_takes_letters_and_its_limits_are_the_readers(page):
    from companion.appliance.bootfiles import SSID_BYTES

    form = page.get("/").get_data(as_text=True)
    code = re.search(r'<input id="wifi-code"[^>]*>', form)[0]
    assert 'inputmode="numeric"' not in code and 'autocapitalize="characters"' in code
    assert f'maxlength="{SSID_BYTES}"' in form


# ---- on the table's own server, over a socket --------------------------------------------------------------

@pytest.fixture
def served(card):
    running = ServerThread(make_server(None, "127.0.0.1", 0, threads=2, app=create_wifi_app(card[2])))
    yield running
    running.close()


def raw(running, head: str, body: bytes = b"") -> bytes:
    """Send a request as bytes; the whole answer (the server closes after a refusal)."""
    host, port = running.url.split("//")[1].rstrip("/").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(head.encode() + b"Connection: close\r\n\r\n" + body)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize("length, status", [("-1", 400), ("x", 400), ("+5", 400), (str(FORM_LIMIT + 1), 413)])
def test_a_bodys_length_is_read_strictly_before_any_of_it(served, card, length, status):
    answer = raw(served, f"POST / HTTP/1.1\r\nHost: 10.42.0.1\r\nContent-Type: application/x-www-form-urlencoded"
                         f"\r\nContent-Length: {length}\r\n", b"x" * (FORM_LIMIT + 10))
    assert answer.startswith(f"HTTP/1.1 {status} ".encode()), answer[:80]
    assert card[1] == []


def test_the_served_page_carries_the_tables_strict_headers(served):
    answer = raw(served, "GET / HTTP/1.1\r\nHost: 10.42.0.1\r\nAccept-Language: ja\r\n")
    assert answer.startswith(b"HTTP/1.1 200 ")
    assert f"Content-Security-Policy: {CONTENT_SECURITY_POLICY}".encode() in answer
    assert b"X-Frame-Options: DENY" in answer and "Wi-Fi の名前".encode() in answer


def test_the_wifi_page_listens_only_while_the_access_point_is_up(card):
    """The watcher's shell: its page serves on the network's page address while the AP is up, then is closed."""
    from companion.appliance.__main__ import _page_while

    app, port = create_wifi_app(card[2]), free_port()
    server = _page_while(True, None, app, "127.0.0.1", port)
    try:
        assert server.url == f"http://127.0.0.1:{port}/"
        assert _page_while(True, server, app, "127.0.0.1", port) is server
    finally:
        assert _page_while(False, server, app, "127.0.0.1", port) is None
    with socket.socket() as again:
        again.bind(("127.0.0.1", port))  # the port is free: nothing listens there any more
