"""Phones that read slowly or not at all, over real sockets on 127.0.0.1: what they may hold of the table.

A phone on a bad link is stood for by a socket with a tiny receive buffer
(and the server's send buffer made tiny too), so the bytes it has not read
wait on the table's side, as they would behind a slow radio link. Nothing
sleeps to let time pass: each test waits for a condition, with a timeout.
"""

import json
import socket
import threading
import time
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest

from companion.clock import FakeClock
from companion.table import demo_table
from companion.web import create_app
from companion.web.security import HEADERS
from companion.web.server import MAX_BODY_BYTES, MAX_HEADER_BYTES, ServerThread, make_server, shut_down, unsent

TINY = 4096  # a socket buffer: the kernel doubles it, and holds little more than one state
STOP_WAIT_S = 20.0  # for the server's threads to end: far longer than they take, far shorter than a stalled phone
BOUND = 32 * 1024  # what a phone that is behind may hold of the table: a state (some 2 KB) and the kernel's buffers


def until(condition, timeout: float = 10.0) -> bool:
    """Wait for `condition()` to hold, looking every 10 ms; False if it still does not after `timeout`."""
    deadline, pause = time.monotonic() + timeout, threading.Event()
    while not condition():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.01)
    return True


@pytest.fixture
def served(tmp_path):
    def serve(**config):
        table = demo_table(tmp_path / "table.sqlite3", clock=FakeClock()).start()
        app = create_app(table, config={"SSE_KEEPALIVE_S": 0.2, **config})
        server = ServerThread(make_server(table, "127.0.0.1", 0, threads=12, app=app))
        server.server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, TINY)  # inherited by each connection
        made.append((server, table))
        return SimpleNamespace(table=table, server=server, port=urlsplit(server.url).port,
                               streams=app.extensions["streams"])
    made: list = []
    yield serve
    for server, table in made:
        server.close()
        table.stop()


def phone(port: int, path: str = "/api/show/events") -> socket.socket:
    """A phone on a bad link that has opened a stream and read its head (and nothing more)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, TINY)  # before connecting, or it has no effect
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)  # the head alone: the body is left to the test
    assert head.startswith(b"HTTP/1.1 200"), head
    return sock


def held(server) -> int:
    """Bytes the server holds for its connections: waitress's buffers and the kernel's unsent queues."""
    channels = list(server.server.active_channels.values())
    return sum(c.total_outbufs_len + (unsent(c.socket) if c.connected else 0) for c in channels)


def fast_show(table, flips: int) -> int:
    table.desk.start_show("training")
    for _ in range(flips):
        table.desk.flip("green")
    return table.desk.snapshot()["seq"]


def test_a_phone_that_reads_nothing_holds_a_bounded_backlog_and_loses_its_slot(served):
    table = served(SSE_MAX_STREAMS=1, SSE_STALL_S=0.5)
    stalled = phone(table.port)
    try:
        fast_show(table.table, 200)  # some 450 KB of states: every one used to be queued for it
        assert held(table.server) < BOUND
        assert until(lambda: table.streams.held() == 0), "a stalled phone kept its slot"
        honest = phone(table.port)  # the one slot is free again for a phone that reads
        honest.close()
        assert until(lambda: held(table.server) == 0), "the stalled phone's connection is closed, its bytes let go"
    finally:
        stalled.close()


def unchunked(data: bytes) -> bytes:
    """The body so far of a chunked response whose head is read (a chunk cut short is left out)."""
    body, at = b"", data.find(b"\r\n\r\n") + 4 if b"\r\n\r\n" in data else 0
    while True:
        end = data.find(b"\r\n", at)
        if end < 0:
            return body
        size = int(data[at:end], 16)
        if len(data) < end + 2 + size + 2:
            return body
        body, at = body + data[end + 2:end + 2 + size], end + 2 + size + 2


def read_states(sock, until_seq: int) -> tuple[list[int], int]:
    """The state numbers a phone reads up to `until_seq`, and the bytes it read to get there."""
    data, seqs = b"", []
    while not seqs or seqs[-1] < until_seq:
        chunk = sock.recv(512)  # a slow reader: a little at a time
        assert chunk, "the stream ended"
        data += chunk
        seqs = [json.loads(line[6:])["seq"] for line in unchunked(data).split(b"\n") if line.startswith(b"data: ")]
    return seqs, len(data)


def test_a_phone_that_reads_late_gets_the_newest_state_without_the_ones_it_missed(served):
    table = served(SSE_STALL_S=60.0)
    slow = phone(table.port)
    try:
        last = fast_show(table.table, 200)
        seqs, read = read_states(slow, last)
        assert seqs[-1] == last  # the last state it gets is the newest
        assert len(seqs) < 20, "it was sent every state it missed"
        assert read < BOUND
    finally:
        slow.close()


def test_the_server_stops_however_its_phones_read(served):
    table = served(SSE_STALL_S=60.0)
    stalled = [phone(table.port) for _ in range(3)]
    try:
        fast_show(table.table, 100)
        assert until(lambda: held(table.server) > 0)  # bytes wait for the stalled phones
        # Every worker thread ends, none left behind writing to a phone that will not read for a minute. Its own
        # ending is waited for, not timed: a busy machine takes longer, and a stuck thread outlasts any wait.
        shut_down(table.server.server, timeout=STOP_WAIT_S)
        assert table.server.server.task_dispatcher.threads == set(), "a thread still writes to a stalled phone"
    finally:
        for sock in stalled:
            sock.close()


def raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer


@pytest.mark.parametrize("request_bytes, status", [
    (b"NOT A REQUEST LINE\r\n\r\n", b"400"),
    (b"POST /api/show HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (MAX_BODY_BYTES * 4), b"413"),
    (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (MAX_HEADER_BYTES * 2) + b"\r\n\r\n", b"431"),
])
def test_the_servers_own_refusals_carry_the_strict_headers(served, request_bytes, status):
    table = served()
    answer = raw(table.port, request_bytes)
    head = answer.split(b"\r\n\r\n")[0].decode("latin-1")
    assert head.split(" ")[1].encode() == status, head
    lines = {line.partition(":")[0].strip().lower(): line.partition(":")[2].strip() for line in head.split("\r\n")[1:]}
    for name, value in HEADERS.items():
        assert lines.get(name.lower()) == value, (name, head)


def test_a_connection_closed_meanwhile_has_nothing_unsent():
    # waitress sets a channel's socket to None when it closes it; the shutdown may look at it just after.
    from companion.web.server import unsent

    assert unsent(None) == 0
