"""Live streams over a real waitress server on 127.0.0.1, read by several raw HTTP clients at once.

The table runs its runtime thread on a fake clock: show time moves only when a
test says so; the streams' keep-alive interval is shortened to 0.2 s.
"""

import http.client
import json
import re
import socket
import threading
import time
from types import SimpleNamespace
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import companion
from companion.clock import FakeClock
from companion.leds import LOOK, strip_inputs
from companion.table import demo_table
from companion.web import create_app
from companion.skyrockets.snapshot import carried as at
from companion.web.server import PushingTask, ServerThread, make_server, shut_down

KEEPALIVE_S = 0.2
# The longest what happens at once may take on a busy machine: a stream that waits for its next look (a minute,
# in `asleep`) or a thread that never ends takes longer. Nothing is timed: each wait ends as soon as it holds.
WAIT_S = 20.0
PIN = {"X-Table-Pin": "1234", "Content-Type": "application/json"}


class EventStream:
    """One client of an event stream: reads blocks (events or comments) as they arrive."""

    def __init__(self, port: int, path: str, headers: dict | None = None, source: str | None = None,
                 receive_buffer: int | None = None):
        address = (source, 0) if source else None  # another loopback address stands for another phone
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=address)
        if receive_buffer:  # a phone on a bad link: its buffer is set before it connects, or it has no effect
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
            sock.settimeout(5)
            sock.connect(("127.0.0.1", port))
            self.connection.sock = sock
        self.connection.request("GET", path, headers=headers or {})
        self.port = self.connection.sock.getsockname()[1]  # the server knows this phone by it
        self.response = self.connection.getresponse()

    def next(self) -> dict:
        """The next block: {"comment": ...} or {"id", "event", "data", "retry"}; raises on a 5 s silence."""
        block: dict = {}
        while True:
            line = self.response.readline().decode()
            if line in ("\n", ""):
                if block or not line:
                    return block
                continue
            key, _, value = line.rstrip("\n").partition(":")
            block["comment" if key == "" else key] = value.strip()

    def next_state(self) -> dict:
        """The next `state` event (skipping keep-alives), its data parsed."""
        while True:
            block = self.next()
            if not block:
                raise EOFError("the server ended the stream")
            if block.get("event") == "state":
                return {"event_id": int(block["id"]), **json.loads(block["data"])}

    def close(self):
        self.connection.close()


@pytest.fixture
def served(tmp_path):
    clock = FakeClock()
    table = demo_table(tmp_path / "table.sqlite3", clock=clock).start()
    app = create_app(table, config={"SSE_KEEPALIVE_S": KEEPALIVE_S})
    server = ServerThread(make_server(table, "127.0.0.1", 0, threads=24, app=app))
    port = urlsplit(server.url).port
    yield SimpleNamespace(table=table, clock=clock, port=port, server=server)
    server.close()
    table.stop()


def post(port: int, path: str, body: dict) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("POST", path, body=json.dumps(body), headers=PIN)
    response = connection.getresponse()
    answer = response.status, json.loads(response.read())
    connection.close()
    return answer


def get(port: int, path: str) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("GET", path)
    response = connection.getresponse()
    answer = response.status, response.read()
    connection.close()
    return answer


def test_every_client_gets_every_change_with_increasing_ids(served):
    clients = [EventStream(served.port, "/api/show/events") for _ in range(4)]
    try:
        for client in clients:
            assert client.response.getheader("Content-Type").startswith("text/event-stream")
            assert client.response.getheader("Cache-Control") == "no-cache"
            assert client.next() == {"retry": "3000"}
        first = [client.next_state() for client in clients]
        assert {state["outcome"] for state in first} == {"idle"}
        assert post(served.port, "/api/show/start", {"event": "training"})[0] == 201
        second = [client.next_state() for client in clients]
        assert post(served.port, "/api/show/flip", {"timer": "green"})[0] == 200
        third = [client.next_state() for client in clients]
        for a, b, c in zip(first, second, third):
            assert a["event_id"] < b["event_id"] < c["event_id"]
            assert b["outcome"] == "running" and c["timers"]["green"]["state"] == "running"
            assert c["event_id"] == c["seq"]
    finally:
        for client in clients:
            client.close()


@pytest.fixture
def pushes(monkeypatch, served):
    """Every write another thread made to a stream: ("table" if that thread held the table as it published, else
    its name; whether it was written). A command runs in its caller's thread holding the table (runtime.py)."""
    seen = []
    real = PushingTask.push

    def push(self, data, chunk=None):
        written = real(self, data, chunk)
        seen.append(("table" if served.table.runtime.holding() else threading.current_thread().name, written))
        return written

    monkeypatch.setattr(PushingTask, "push", push)
    return seen


def test_a_new_state_is_written_to_every_phone_by_the_tables_own_thread_and_sent_once(served, pushes):
    clients = [EventStream(served.port, "/api/show/events") for _ in range(3)]
    try:
        for client in clients:
            client.next()
            client.next_state()
        assert post(served.port, "/api/show/start", {"event": "training"})[0] == 201
        started = [client.next_state() for client in clients]
        assert post(served.port, "/api/show/flip", {"timer": "green"})[0] == 200
        flipped = [client.next_state() for client in clients]
        for a, b in zip(started, flipped):
            assert a["outcome"] == "running" and b["event_id"] > a["event_id"]  # each state once, in order
        assert ("table", True) in pushes  # (a phone whose own thread was still writing is left to it)
    finally:
        for client in clients:
            client.close()


def test_a_new_state_is_framed_once_for_every_phone_the_tables_thread_writes_to(served, pushes, monkeypatch):
    from companion.web import live, server

    framed = []  # (the module that framed it, the framed bytes)
    for module in (live, server):
        monkeypatch.setattr(module, "chunked", lambda data, real=live.chunked, name=module.__name__:
                            framed.append((name, data)) or real(data))
    clients = [EventStream(served.port, "/api/show/events") for _ in range(3)]
    try:
        for client in clients:
            client.next_state()
        assert post(served.port, "/api/show/start", {"event": "training"})[0] == 201
        [client.next_state() for client in clients]
        framed.clear()
        assert post(served.port, "/api/show/flip", {"timer": "green"})[0] == 200
        seq = [client.next_state() for client in clients][0]["event_id"]
        by_table = [name for name, data in framed if data.startswith(f"id: {seq}\n".encode())]
        assert by_table == ["companion.web.live"]  # once for all three phones, never once per phone
        assert pushes.count(("table", True)) >= 1
    finally:
        for client in clients:
            client.close()


def test_a_phone_that_reads_nothing_never_holds_up_the_tables_thread(served, pushes):
    # A phone on a bad link: tiny buffers both ends, so bytes soon wait in the server for it.
    served.server.server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.connect(("127.0.0.1", served.port))
    slow.sendall(f"GET /api/show/events HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n\r\n".encode())
    try:
        head = slow.recv(64)
        assert head.startswith(b"HTTP/1.1 200"), head
        served.table.desk.start_show("training")
        for _ in range(200):
            served.table.desk.flip("green")  # each answered by the table's thread within its 10 s, or this fails
        assert ("table", False) in pushes  # the table's thread left the waiting bytes to the stream's own
        assert served.table.alive()
        assert get(served.port, "/api/show")[0] == 200
    finally:
        slow.close()


def test_a_phone_that_reads_late_gets_whole_states_in_order_up_to_the_last(served, pushes):
    # Tiny buffers both ends: a state the table's thread writes is soon taken only in part by the
    # socket, and its rest must follow it whole, before any later state.
    served.server.server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    # It reads nothing while the 200 flips are made, which on a busy machine may take longer than a phone may
    # stall: not what this test is about, so its phone is never taken for stalled.
    served.server.server.flask_app.extensions["streams"]._stall_s = 3600.0
    slow = EventStream(served.port, "/api/show/events", receive_buffer=4096)
    try:
        slow.next_state()
        served.table.desk.start_show("training")
        for _ in range(200):
            served.table.desk.flip("green")
        last = served.table.desk.snapshot()["seq"]
        ids = []
        while not ids or ids[-1] < last:
            state = slow.next_state()  # a state cut or interleaved would not parse
            assert state["event_id"] == state["seq"]
            ids.append(state["event_id"])
        assert ids == sorted(set(ids)) and ids[-1] == last
        assert ("table", True) in pushes
    finally:
        slow.close()


def test_an_http_1_0_phone_gets_new_states_unframed(served, pushes):
    # HTTP/1.0 knows no chunks: the stream is the events themselves, until the server closes it.
    phone = socket.create_connection(("127.0.0.1", served.port), timeout=5)
    try:
        phone.sendall(f"GET /api/show/events HTTP/1.0\r\nHost: 127.0.0.1:{served.port}\r\n\r\n".encode())
        reader = phone.makefile("rb")
        assert reader.readline().startswith(b"HTTP/1.0 200")
        while reader.readline() != b"\r\n":  # the head
            pass

        def next_state() -> dict:
            while not (line := reader.readline()).startswith(b"data: "):
                assert line == b"\n" or line.startswith((b"id: ", b"event: ", b"retry: ", b":")), line
            return json.loads(line[len(b"data: "):])

        next_state()
        started = served.table.desk.start_show("training")
        assert next_state()["seq"] == started["seq"]
        flipped = served.table.desk.flip("green")
        assert next_state()["seq"] == flipped["seq"]
    finally:
        phone.close()


def test_a_phone_sent_only_by_the_tables_thread_is_not_taken_for_idle(served, pushes):
    # waitress closes a connection it has not sent to or heard from for its channel timeout.
    client = EventStream(served.port, "/api/show/events")
    try:
        client.next_state()
        channel = next(c for c in list(served.server.server.active_channels.values()) if c.addr[1] == client.port)
        served.table.desk.start_show("training")
        client.next_state()
        for _ in range(20):  # until the table's thread, not the stream's, has written a state
            pushes.clear()
            channel.last_activity = 0.0  # long ago
            before = time.time()
            served.table.desk.flip("green")
            client.next_state()
            if ("table", True) in pushes:
                break
        assert ("table", True) in pushes
        assert channel.last_activity >= before
    finally:
        client.close()


def test_a_client_that_has_the_current_state_waits_for_the_next(served):
    current = served.table.desk.snapshot()["seq"]
    client = EventStream(served.port, "/api/show/events", {"Last-Event-ID": str(current)})
    try:
        assert client.next() == {"retry": "3000"}
        assert client.next() == {"comment": "keep-alive"}  # nothing new: no state resent
        assert post(served.port, "/api/show/start", {"event": "training"})[0] == 201
        state = client.next_state()
        assert state["event_id"] > current and state["outcome"] == "running"
    finally:
        client.close()


@pytest.mark.parametrize("last_id", ["1", "not-a-number", "-5", str(10**15)])
def test_a_client_missing_changes_gets_the_current_state_at_once(served, last_id):
    post(served.port, "/api/show/start", {"event": "training"})
    client = EventStream(served.port, "/api/show/events", {"Last-Event-ID": last_id})
    try:
        client.next()
        state = client.next_state()
        assert state["event_id"] == served.table.desk.snapshot()["seq"] and state["outcome"] == "running"
    finally:
        client.close()


def test_a_quiet_stream_sends_keep_alive_comments(served):
    client = EventStream(served.port, "/api/show/events")
    try:
        client.next_state()
        # Each within the read's 5 s (at the default 15 s apart the read gives up): never long silent. That they
        # come keepalive_s apart is tested on the stream's own clock (test_strip_stream), not timed here.
        comments = [client.next() for _ in range(3)]
        assert comments == [{"comment": "keep-alive"}] * 3
    finally:
        client.close()


def test_states_on_the_stream_are_carried_to_the_moment_they_are_sent(served):
    post(served.port, "/api/show/start", {"event": "training"})
    served.clock.advance(4.0)  # nothing happens at 4 s: no new snapshot is published
    client = EventStream(served.port, "/api/show/events")
    try:
        state = client.next_state()
        assert state["t"] == pytest.approx(4.0, abs=0.01)
        assert state["timers"]["red"]["top_s"] == pytest.approx(26.0, abs=0.01)
    finally:
        client.close()


def next_picture(client: EventStream) -> tuple[int, dict]:
    """The next `picture` event (skipping a few keep-alives): its id and its data parsed."""
    blocks = []
    for _ in range(20):
        blocks.append(client.next())
        if blocks[-1].get("event") == "picture":
            return int(blocks[-1]["id"]), json.loads(blocks[-1]["data"])
    raise AssertionError(f"no picture, but {blocks[:3]}...")


def test_the_strip_stream_sends_its_layout_then_what_the_strip_shows_at_each_change_and_nothing_between(served):
    post(served.port, "/api/show/start", {"event": "training"})  # a running show keeps the LEDs drawing
    served.clock.advance(2.0)
    client = EventStream(served.port, "/api/strip/events")
    try:
        assert client.next() == {"retry": "3000"}
        layout = client.next()
        assert layout["event"] == "layout" and json.loads(layout["data"])["look"] == json.loads(json.dumps(LOOK))
        first, picture = next_picture(client)
        if picture["state"] == {"outcome": "idle"}:
            # The LED show draws the new show on its own thread: the stream may begin on the picture before it.
            first, picture = next_picture(client)
        leds = served.table.rig.leds
        assert picture["state"] == strip_inputs(served.table.desk.snapshot()) and picture["hold"] is None
        assert picture["now"] == pytest.approx(2.0)  # the show time it was sent at: the page's clock runs on from it
        sent = 0
        for _ in range(8):  # 4 s of a running show: the strip draws its frames, nothing it shows changes
            served.clock.advance(0.5)
            block = client.next()  # the stream's next words, within a keep-alive interval
            assert block == {"comment": "keep-alive"}
            sent += len(": keep-alive\n\n")
        assert sent == 8 * 14 and len(leds.strip.frames) > 1  # keep-alives only, while the LEDs moved on
        post(served.port, "/api/show/flip", {"timer": "red"})
        n, picture = next_picture(client)
        assert n > first and picture["state"] == strip_inputs(served.table.desk.snapshot())
        assert picture["state"]["timers"]["red"]["top_s"] == pytest.approx(6.0)  # turned at 6 s: the 6 s below on top
    finally:
        client.close()


def test_plain_requests_are_answered_while_many_streams_are_open(served):
    clients = [EventStream(served.port, "/api/show/events", source=f"127.0.0.{2 + i}") for i in range(12)]
    try:
        for client in clients:
            client.next_state()
        # Answered at all: a request left without a thread by the streams would wait past the read's 5 s.
        status, body = get(served.port, "/api/show")
        assert status == 200 and json.loads(body)["outcome"] == "idle"
        assert get(served.port, "/")[0] == 200
    finally:
        for client in clients:
            client.close()


def test_the_server_stops_with_streams_still_open(tmp_path):
    table = demo_table(tmp_path / "table.sqlite3", clock=FakeClock()).start()
    app = create_app(table, config={"SSE_KEEPALIVE_S": KEEPALIVE_S})
    server = ServerThread(make_server(table, "127.0.0.1", 0, threads=8, app=app))
    clients = [EventStream(urlsplit(server.url).port, "/api/show/events") for _ in range(3)]
    for client in clients:
        client.next_state()
    shut_down(server.server, timeout=WAIT_S)
    assert server.server.task_dispatcher.threads == set(), "a stream's thread did not end"
    server.close()
    table.stop()
    assert not server._thread.is_alive()


@pytest.fixture
def asleep(tmp_path, monkeypatch):
    """A table served with streams that never look up by themselves: only a change, the phone's leaving or the
    server's closing can wake them (a stream that looked would do so only after a minute)."""
    import companion.web.live

    monkeypatch.setattr(companion.web.live, "WAKE_S", 60.0)
    table = demo_table(tmp_path / "table.sqlite3", clock=FakeClock()).start()
    app = create_app(table, config={"SSE_KEEPALIVE_S": 60.0})
    server = ServerThread(make_server(table, "127.0.0.1", 0, threads=8, app=app))
    yield SimpleNamespace(table=table, server=server, port=urlsplit(server.url).port,
                          streams=app.extensions["streams"])
    server.close()
    table.stop()


def held_within(streams, count: int, seconds: float = WAIT_S) -> bool:
    deadline = time.monotonic() + seconds
    while streams.held() != count and time.monotonic() < deadline:
        time.sleep(0.01)
    return streams.held() == count


def test_a_sleeping_stream_wakes_for_a_change_and_ends_the_moment_its_phone_leaves(asleep):
    # Before, every waiting stream looked up 4 times a second: 20 phones on the table page woke the daemon
    # 160 times a second to find nothing had happened.
    show = EventStream(asleep.port, "/api/show/events")
    strip = EventStream(asleep.port, "/api/strip/events")
    try:
        show.next_state()
        assert strip.next() == {"retry": "3000"} and strip.next()["event"] == "layout"
        first, _ = next_picture(strip)
        assert asleep.streams.held() == 2
        post(asleep.port, "/api/show/start", {"event": "training"})
        assert show.next_state()["outcome"] == "running"  # woken by the change ...
        assert next_picture(strip)[0] > first  # ... and the strip's stream by what the strip then shows
    finally:
        for phone in (show, strip):
            phone.response.close()  # the socket stays open while its response does
            phone.close()
    assert held_within(asleep.streams, 0)  # both slots free at once, not at the next look


def next_game(phone: EventStream) -> dict:
    while (block := phone.next()).get("event") != "game":
        assert block, "the server ended the stream"
    return json.loads(block["data"])


def test_a_sleeping_game_stream_wakes_for_its_game_and_ends_the_moment_its_phone_leaves(asleep):
    # A game's stream read its game from the records at every look, 4 times a second for each phone.
    status, game = post(asleep.port, "/api/geese/games", {"players": ["ann", "ben", "cho"]})
    assert status == 201
    other = post(asleep.port, "/api/geese/games", {"players": ["dan", "eve", "fay"]})[1]
    phone = EventStream(asleep.port, f"/api/geese/games/{game['id']}/events")
    try:
        assert next_game(phone)["version"] == 1
        card = {"card": {"n": 3, "suit": "gull"}, "version": 1}
        assert post(asleep.port, f"/api/geese/games/{other['id']}/setup", card)[0] == 200  # another game: no event
        assert post(asleep.port, f"/api/geese/games/{game['id']}/setup", card)[0] == 200
        assert next_game(phone)["version"] == 2  # woken by the change, within the read's 5 s, not after a minute
        assert asleep.streams.held() == 1
    finally:
        phone.response.close()
        phone.close()
    assert held_within(asleep.streams, 0)


def test_the_server_stops_at_once_with_sleeping_streams_open(asleep):
    status, game = post(asleep.port, "/api/geese/games", {"players": ["ann", "ben", "cho"]})
    paths = ("/api/show/events", "/api/strip/events", f"/api/geese/games/{game['id']}/events")
    clients = [EventStream(asleep.port, path) for path in paths]
    clients[0].next_state()
    assert held_within(asleep.streams, 3)
    shut_down(asleep.server.server, timeout=WAIT_S)
    assert asleep.server.server.task_dispatcher.threads == set() and asleep.streams.held() == 0
    for client in clients:
        client.close()


def head(port: int, path: str) -> http.client.HTTPResponse:
    """A HEAD request, as a page asks whether a stream would be let in (follow.js)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("HEAD", path)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def test_a_page_asks_whether_a_stream_would_be_let_in_without_keeping_a_slot(tmp_path):
    table = demo_table(tmp_path / "table.sqlite3", clock=FakeClock()).start()
    app = create_app(table, config={"SSE_MAX_STREAMS": 1, "SSE_REFUSED_RETRY_MS": 7000})
    server = ServerThread(make_server(table, "127.0.0.1", 0, threads=4, app=app))
    streams, port = app.extensions["streams"], urlsplit(server.url).port
    try:
        answer = head(port, "/api/show/events")
        assert answer.status == 200 and answer.getheader("Content-Type").startswith("text/event-stream")
        ends = time.monotonic() + WAIT_S
        while streams.held():  # given back as soon as waitress closes the answer
            assert time.monotonic() < ends, "a HEAD kept its stream's slot"
            streams.closing.wait(0.01)
        client = EventStream(port, "/api/show/events")  # takes the only slot
        try:
            past = head(port, "/api/show/events")  # past the cap: told to poll the show instead, not refused
            assert past.status == 200 and past.getheader("Retry-After") == "7"
            assert past.getheader("Content-Type").startswith("text/event-stream") and streams.held() == 1
        finally:
            client.close()
    finally:
        server.close()
        table.stop()


def test_the_pages_are_handed_the_live_periods_on_the_body(tmp_path):
    from companion.mqtt.hall import Hall, create_hall_app

    periods = {"SSE_RETRY_MS": 1234, "SSE_RETRY_MAX_MS": 23456, "SSE_REFUSED_RETRY_MS": 7000}
    table = demo_table(tmp_path / "table.sqlite3", clock=FakeClock())
    try:
        for app in (create_app(table, testing=True, config=periods), create_hall_app(Hall(), testing=True,
                                                                                     config=periods)):
            page = app.test_client().get("/").get_data(as_text=True)
            assert ('data-live-retry-ms="1234" data-live-retry-max-ms="23456" data-live-refused-ms="7000"'
                    in page)
    finally:
        table.stop()


def test_the_stream_cap_is_named_once_and_the_server_keeps_a_reserve_beyond_it(tmp_path):
    from companion.web import DEFAULTS
    from companion.web.server import DEFAULT_THREADS, RESERVE

    table = demo_table(tmp_path / "table.sqlite3", clock=FakeClock())
    server = make_server(table, "127.0.0.1", 0)
    try:
        assert server.flask_app.config["SSE_MAX_STREAMS"] == DEFAULTS["SSE_MAX_STREAMS"]
        assert DEFAULT_THREADS == DEFAULTS["SSE_MAX_STREAMS"] + RESERVE == server.adj.threads
    finally:
        server.close()
        table.stop()


PAGE_SCRIPTS = [p for p in Path(companion.__file__).parent.rglob("*.js") if "static" in p.parts]
FOLLOW_JS = Path(companion.__file__).parent / "web" / "static" / "js" / "follow.js"


def test_every_page_follows_live_state_through_the_one_loop():
    assert FOLLOW_JS in PAGE_SCRIPTS and "new EventSource" in FOLLOW_JS.read_text("utf-8")
    assert [str(p) for p in PAGE_SCRIPTS if p != FOLLOW_JS and "EventSource" in p.read_text("utf-8")] == []
    for loop in (FOLLOW_JS, FOLLOW_JS.with_name("waits.js")):
        periods = set(re.findall(r"\b\d{4,}\b", loop.read_text("utf-8")))
        assert periods <= {"1000"}  # ms in a second, no more: every period it waits is the server's, from the body


# ---- the pure parts of the streams ----------------------------------------------

def test_a_snapshot_is_carried_forward_only_while_its_glasses_run():
    snapshot = {"outcome": "running", "t": 10.0, "timers": {
        "red": {"state": "running", "top_s": 5.0}, "green": {"state": "lying", "top_s": 60.0},
        "blue": {"state": "out_of_play", "top_s": None}}}
    later = at(snapshot, 12.5)
    assert later["t"] == 12.5 and later["timers"]["red"]["top_s"] == 2.5
    assert later["timers"]["green"]["top_s"] == 60.0 and later["timers"]["blue"]["top_s"] is None
    assert at(snapshot, 30.0)["timers"]["red"]["top_s"] == 0.0
    assert snapshot["timers"]["red"]["top_s"] == 5.0  # the published snapshot is never changed
    won = dict(snapshot, outcome="win")
    assert at(won, 30.0) is won
    assert at({"outcome": "idle", "seq": 3}, 9.0) == {"outcome": "idle", "seq": 3}
