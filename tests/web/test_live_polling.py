"""Phones past the stream cap are told to poll, and follow every change: over a real waitress server.

The table is served with two stream slots; five phones, each from a loopback
address of its own, follow the show as the page does (static/js/follow.js):
the stream, or, when its answer is a `poll` event, conditional reads of the
JSON it names.
"""

import contextlib
import http.client
import json
import socket
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from werkzeug.exceptions import ServiceUnavailable

from companion.clock import FakeClock
from companion.table import demo_table
from companion.web import create_app
from companion.web.live import FREE_HEADER
from companion.web.server import ServerThread, make_server
from tests.web.test_web_live import EventStream, post

CAP = 2
PHONES = 5
REFUSED_RETRY_MS = 7000


@pytest.fixture
def capped(tmp_path):
    table = demo_table(tmp_path / "table.sqlite3", clock=FakeClock()).start()
    app = create_app(table, config={"SSE_MAX_STREAMS": CAP, "SSE_REFUSED_RETRY_MS": REFUSED_RETRY_MS,
                                    "SSE_POLL_MS": 1500})
    server = ServerThread(make_server(table, "127.0.0.1", 0, app=app))
    yield SimpleNamespace(table=table, port=urlsplit(server.url).port, streams=app.extensions["streams"])
    server.close()
    table.stop()


def read(port: int, path: str, source: str, etag: str | None = None) -> http.client.HTTPResponse:
    """A polled read from `source`, conditional on `etag`; the answer with its body read."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(source, 0))
    connection.request("GET", path, headers={"If-None-Match": etag} if etag else {})
    answer = connection.getresponse()
    answer.body = answer.read()
    connection.close()
    return answer


class Phone:
    """A page following the show: by its stream, or by polling where the stream's answer says so."""

    def __init__(self, port: int, source: str):
        self.port, self.source = port, source
        self.stream = EventStream(port, "/api/show/events", source=source)
        assert self.stream.response.status == 200  # never refused
        assert self.stream.next()["retry"]
        block = self.stream.next()
        self.told = json.loads(block["data"]) if block.get("event") == "poll" else None
        self.seq = int(block["id"]) if self.told is None else -1
        self.etag = None
        if self.told is not None:
            assert self.stream.response.getheader("Retry-After") == "7"
            assert self.stream.next() == {}  # the answer ends: the slot was never taken
            self.stream.close()
            self.poll()

    def hang_up(self) -> None:
        """Leave, as a closed tab does: the server sees the connection end."""
        with contextlib.suppress(OSError, AttributeError):  # the response's reader keeps it open past close()
            self.stream.response.fp.raw._sock.shutdown(socket.SHUT_RDWR)
        self.stream.close()

    def poll(self) -> http.client.HTTPResponse:
        answer = read(self.port, self.told["url"], self.source, self.etag)
        if answer.status == 200:
            self.etag = answer.getheader("ETag")
            self.seq = json.loads(answer.body)[self.told["number"]]
        return answer

    def heard(self, seq: int) -> int:
        """The newest state this phone has once it has `seq`: read from its stream, or by one more poll."""
        if self.told is None:
            while self.seq < seq:
                self.seq = self.stream.next_state()["event_id"]
        else:
            assert self.poll().status == 200
        return self.seq


def test_phones_past_the_cap_are_told_to_poll_and_get_every_final_state(capped):
    phones = [Phone(capped.port, f"127.0.0.{n + 2}") for n in range(PHONES)]
    try:
        polling = [phone for phone in phones if phone.told is not None]
        assert len(polling) == PHONES - CAP and capped.streams.held() == CAP
        assert polling[0].told == {"url": "/api/show", "every_ms": 1500, "retry_ms": REFUSED_RETRY_MS,
                                   "number": "seq"}
        changes = [("/api/show/start", {"event": "training"})] + [("/api/show/flip", {"timer": "green"})] * 2
        for path, body in changes:  # each change reaches every phone, by whichever path it follows
            seq = post(capped.port, path, body)[1]["seq"]
            assert [phone.heard(seq) for phone in phones] == [seq] * PHONES
        again = polling[0].poll()  # the state it holds is not sent again
        assert again.status == 304 and again.body == b"" and again.getheader("ETag") == f'"{seq}"'
        assert again.getheader(FREE_HEADER) == "0"  # every slot taken: it goes on polling
    finally:
        for phone in phones:
            phone.hang_up()


def test_a_polling_phone_is_told_when_a_slot_frees_and_gets_its_stream_back(capped):
    phones = [Phone(capped.port, f"127.0.0.{n + 2}") for n in range(CAP + 1)]
    waiting = phones[-1]
    try:
        assert waiting.told is not None and waiting.poll().getheader(FREE_HEADER) == "0"
        phones[0].hang_up()
        answer = waiting.poll()
        for _ in range(200):  # the slot is given back once waitress sees the connection end (a turn of its loop)
            if answer.getheader(FREE_HEADER) == "1":
                break
            capped.streams.closing.wait(0.01)
            answer = waiting.poll()
        assert answer.getheader(FREE_HEADER) == "1"
        back = Phone(capped.port, waiting.source)
        assert back.told is None and back.seq == capped.table.desk.snapshot()["seq"]
        back.hang_up()
    finally:
        for phone in phones:
            phone.hang_up()


def test_a_stream_past_the_cap_without_a_record_to_poll_is_still_refused(capped):
    app = create_app(capped.table, testing=True, config={"SSE_MAX_STREAMS": 0})
    with app.test_request_context("/api/strip/events"):
        streams = app.extensions["streams"]
        with pytest.raises(ServiceUnavailable) as refused:
            streams.open(line for line in ())
        assert refused.value.code == 503


def test_strip_views_past_the_cap_are_told_to_poll_the_strips_picture_and_follow_every_change(capped):
    views = [EventStream(capped.port, "/api/strip/events", source=f"127.0.0.{n + 2}") for n in range(PHONES)]
    try:
        assert [view.response.status for view in views] == [200] * PHONES  # none refused
        assert [view.next()["retry"] for view in views]
        firsts = [view.next() for view in views]
        polling = [first for first in firsts if first.get("event") == "poll"]
        assert len(polling) == PHONES - CAP and capped.streams.held() == CAP
        told = json.loads(polling[0]["data"])
        assert told == {"url": "/api/strip", "every_ms": 1500, "retry_ms": REFUSED_RETRY_MS, "number": "n"}
        answer = read(capped.port, told["url"], "127.0.0.9")
        whole = json.loads(answer.body)
        assert answer.status == 200 and set(whole) == {"layout", "state", "hold", "now", "n"}
        assert whole["layout"]["colours"] and answer.getheader("ETag") == f'"{whole["n"]}"'
        assert read(capped.port, told["url"], "127.0.0.9", answer.getheader("ETag")).status == 304
        post(capped.port, "/api/show/start", {"event": "training"})
        for _ in range(200):  # the LED show draws the new show on its own thread: its picture follows
            after = read(capped.port, told["url"], "127.0.0.9", answer.getheader("ETag"))
            if after.status == 200:
                break
            capped.streams.closing.wait(0.01)
        changed = json.loads(after.body)
        assert changed["n"] > whole["n"] and changed["state"]["outcome"] == "running"
    finally:
        for view in views:
            view.close()
