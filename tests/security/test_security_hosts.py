"""The Host check reads the authority as HTTP defines it: no userinfo, numeric ports, absolute-form targets."""

import socket
from urllib.parse import urlsplit

import pytest

from companion.clock import FakeClock
from companion.table import demo_table
from companion.web import create_app
from companion.web.hosts import HostCheck
from companion.web.server import ServerThread, make_server

PIN = "1234"


@pytest.fixture
def client(tmp_path):
    table = demo_table(tmp_path / "t.sqlite3", clock=FakeClock(), pin=PIN)
    yield create_app(table, testing=True, config={"LAN_ADDRESSES": ["192.168.1.20"], "HOSTNAME": "pi"}).test_client()
    table.stop()


@pytest.mark.parametrize("host", ["localhost:1@evil.example", "evil.example@localhost", "localhost:abc",
                                  "localhost:80:80", "localhost:", "localhost:-1", "localhost:+80",
                                  "localhost:1234567", "[::1]x", "[::1]:8o", "::1", "[evil.example]",
                                  "localhost/evil.example", "localhost\\evil.example", "local host",
                                  "localhost?x", "localhost#x", "[::1", "127.0.0.1:80@evil.example", ""])
def test_a_host_that_is_not_a_plain_authority_is_refused(client, host):
    answer = client.get("/api/show", headers={"Host": host})
    assert answer.status_code in (400, 421), host


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST:8000", "127.0.0.1:8000", "[::1]:8000", "[::1]",
                                  "192.168.1.20", "pi.local:80", "pi.local."])
def test_the_tables_own_names_still_pass(client, host):
    assert client.get("/api/show", headers={"Host": host}).status_code == 200, host


@pytest.mark.parametrize("target, status", [("http://evil.example/api/show", 421),
                                            ("http://localhost:1@evil.example/api/show", 400),
                                            ("https://evil.example:443/api/show", 421),
                                            ("ftp://localhost/api/show", 400),
                                            ("evil.example/api/show", 400),
                                            ("http://localhost:8000/api/show", 200),
                                            ("/api/show", 200)])
def test_an_absolute_form_target_is_checked_like_a_host(client, target, status):
    answer = client.get("/api/show", headers={"Host": "localhost"}, environ_overrides={"REQUEST_URI": target})
    assert answer.status_code == status, target


def test_the_real_server_refuses_a_foreign_absolute_form_target(tmp_path):
    table = demo_table(tmp_path / "t.sqlite3", clock=FakeClock()).start()
    server = ServerThread(make_server(table, "127.0.0.1", 0))
    try:
        with socket.create_connection(("127.0.0.1", urlsplit(server.url).port), timeout=10.0) as sock:
            sock.sendall(b"GET http://evil.example/api/show HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            head = sock.recv(64)
        assert head.startswith(b"HTTP/1.1 421"), head
    finally:
        server.close()
        table.stop()


def test_the_check_reads_the_host_before_the_port():
    check = HostCheck([], addresses=["192.168.1.20"], hostname="pi")
    assert not check.allows("localhost:1@evil.example") and not check.allows("pi:x")
    assert check.allows("pi:8000") and check.allows("[::1]:80")
