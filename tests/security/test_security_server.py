"""The server stays reachable: slow senders, greedy clients, big bodies, and a prompt stop."""

import http.client
import socket
import time
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest

from companion.clock import FakeClock
from companion.table import demo_table
from companion.web import create_app
from companion.web import server as web_server
from companion.web.live import STREAMS_PER_CLIENT
from companion.web.server import CONNECTIONS_PER_CLIENT, ServerThread, make_server

WAIT_S = 10.0  # the longest any condition below may take to come true before the test fails


@pytest.fixture
def served(tmp_path):
    table = demo_table(tmp_path / "table.sqlite3", clock=FakeClock()).start()
    server = ServerThread(make_server(table, "127.0.0.1", 0))
    yield SimpleNamespace(table=table, port=urlsplit(server.url).port, server=server,
                          streams=server.server.flask_app.extensions["streams"])
    server.close()
    table.stop()


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=WAIT_S, source_address=(source, 0))


def get(port: int, path: str, source: str = "127.0.0.1") -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S, source_address=(source, 0))
    connection.request("GET", path)
    status = connection.getresponse().status
    connection.close()
    return status


class Phone:
    """One live stream from `source`; it stays open while this object lives (its response holds the socket)."""

    def __init__(self, port: int, source: str):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S, source_address=(source, 0))
        self.connection.request("GET", "/api/show/events")
        self.response = self.connection.getresponse()
        if self.response.status == 200:
            self.response.readline()  # the retry line: the stream is running

    def close(self) -> None:
        self.response.close()
        self.connection.close()


def open_stream(port: int, source: str) -> tuple[Phone, int]:
    phone = Phone(port, source)
    return phone, phone.response.status


def until(condition, what: str) -> None:
    """Wait for `condition` to come true (the server acts on its own thread), failing after WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def test_200_half_sent_requests_leave_plain_requests_answered(served):
    slow = []
    for _ in range(200):
        try:
            sock = connect(served.port)
            sock.sendall(b"GET /api/show HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
            slow.append(sock)
        except OSError:
            pass  # refused outright: as good
    try:
        assert get(served.port, "/api/show", source="127.0.0.2") == 200
        held = sum(1 for c in list(served.server.server.active_channels.values()) if c.addr[0] == "127.0.0.1")
        assert held <= CONNECTIONS_PER_CLIENT
    finally:
        for sock in slow:
            sock.close()


def test_a_request_head_that_dawdles_is_dropped(served, monkeypatch):
    class Later:
        """time for the server module, moved past the request deadline once the head has begun."""
        offset = 0.0

        @staticmethod
        def monotonic():
            return time.monotonic() + Later.offset

    monkeypatch.setattr(web_server, "time", Later)
    sock = connect(served.port)
    sock.sendall(b"GET /api/show HTTP/1.1\r\nHost: x\r\n")
    until(lambda: any(c.request_started for c in list(served.server.server.active_channels.values())),
          "the server never saw the head begin")
    Later.offset = web_server.REQUEST_TIMEOUT_S + 1
    assert closed_by_server(sock)
    sock.close()


def test_one_address_may_hold_only_its_share_of_streams_and_polls_beyond_it(served):
    mine = [open_stream(served.port, "127.0.0.3") for _ in range(STREAMS_PER_CLIENT)]
    try:
        assert all(status == 200 for _, status in mine)
        extra, status = open_stream(served.port, "127.0.0.3")  # one more: told to poll, not given a slot
        assert status == 200 and extra.response.getheader("Retry-After") is not None
        assert served.streams.held("127.0.0.3") == STREAMS_PER_CLIENT
        extra.close()
        other, status = open_stream(served.port, "127.0.0.4")
        assert status == 200
        other.close()
    finally:
        for connection, _ in mine:
            connection.close()


def test_a_closed_stream_frees_its_slot_at_once(served):
    connection, status = open_stream(served.port, "127.0.0.5")
    assert status == 200 and served.streams.held("127.0.0.5") == 1
    connection.close()
    # No keep-alive (15 s) is due: the slot is freed because the server sees the connection close.
    until(lambda: served.streams.held("127.0.0.5") == 0, "the closed stream kept its slot")


def test_a_body_over_the_limit_is_refused_before_it_is_read(served):
    sock = connect(served.port)
    sock.sendall(b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 1073741824\r\n\r\n")  # a gibibyte announced, none of it sent
    sock.settimeout(WAIT_S)
    answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:80]
    sock.close()


def test_ctrl_c_or_sigterm_ends_the_streams_before_waiting_for_the_threads(tmp_path, monkeypatch):
    table = demo_table(tmp_path / "table.sqlite3", clock=FakeClock())
    server = make_server(table, "127.0.0.1", 0)
    streams = server.flask_app.extensions["streams"]
    seen = []

    def interrupted(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(server.asyncore, "loop", interrupted)
    monkeypatch.setattr(server.task_dispatcher, "shutdown", lambda **kw: seen.append(streams.closing.is_set()))
    server.run()
    assert seen and seen[0] is True
    table.stop()


def test_the_app_refuses_a_body_over_the_limit_too(tmp_path):
    table = demo_table(tmp_path / "table.sqlite3", clock=FakeClock())
    app = create_app(table, testing=True)
    big = b'{"players": ["' + b"x" * app.config["MAX_CONTENT_LENGTH"] + b'"]}'
    answer = app.test_client().post("/api/players", data=big, headers={"X-Table-Pin": "1234",
                                                                          "Content-Type": "application/json"})
    assert answer.status_code == 413 and answer.json["code"] == "errors.too_large"
    table.stop()


IDLE_SOURCES = [f"127.0.0.{n}" for n in range(2, 18)]  # 16 addresses: all of 127/8 is loopback on Linux


def test_250_idle_connections_from_16_addresses_leave_a_plain_request_answered(served):
    # Issue 22 #2 / issue 24: connections that send nothing used to hold their socket for the 60 s channel
    # timeout and, past ~192, stop waitress accepting: a plain GET took 59 s. Answered at all within the
    # client's WAIT_S, it was accepted; how soon (the target is 1 s) is a figure, printed below.
    idle = []
    for i in range(250):
        try:
            idle.append(connect(served.port, IDLE_SOURCES[i % len(IDLE_SOURCES)]))
        except OSError:
            pass  # refused outright: as good
    try:
        started = time.monotonic()
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=WAIT_S,
                                                source_address=("127.0.0.18", 0))
        connection.request("GET", "/api/show", headers={"Host": "127.0.0.1"})
        status = connection.getresponse().status
        took = time.monotonic() - started
        connection.close()
        assert status == 200, f"{status} after {took:.2f} s"
        print(f"\nplain request with {len(idle)} idle connections open: {took * 1000:.1f} ms")
        waiting = [c for c in list(served.server.server.active_channels.values()) if web_server._waiting(c)]
        assert len(waiting) <= web_server.MAX_WAITING
    finally:
        for sock in idle:
            sock.close()


def test_a_connection_that_sends_nothing_is_closed_on_a_deadline_from_accept(served, monkeypatch):
    class Later:
        offset = 0.0

        @staticmethod
        def monotonic():
            return time.monotonic() + Later.offset

    monkeypatch.setattr(web_server, "time", Later)
    sock = connect(served.port, "127.0.0.6")
    until(lambda: any(_host_is(c, "127.0.0.6") for c in list(served.server.server.active_channels.values())),
          "the server never accepted the connection")
    Later.offset = web_server.REQUEST_TIMEOUT_S + 1  # not a byte sent: the deadline runs from accept
    assert closed_by_server(sock)
    sock.close()


def _host_is(channel, address: str) -> bool:
    return getattr(channel, "addr", (None,))[0] == address
