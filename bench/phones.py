"""Phones for the benches: many clients of one server, in a process of their own, each from its own address.

A bench that plays the phones in its own process makes them compete with the
server for one interpreter, and a server that limits what one address may
hold sees them all as one client. So `Phones` starts a separate process
(multiprocessing, spawn) in which one thread reads every phone's socket
(selectors), and binds each phone's socket to an address of its own in
127.0.0.0/8 (127.0.0.2, 127.0.0.3, ...), as phones on the Wi-Fi have.

A phone does what a page does (static/js/follow.js): it opens the event
stream and notes when each event id arrives. If the server answers the
stream with a `poll` event instead (every slot is taken), the phone reads
the record's JSON at the period the event names, conditionally (an ETag
`"<number>"` and If-None-Match), and asks for the stream again after the
event's `retry_ms` once a read says a slot is free (`X-Live-Free`). A stream
refused outright (429, 503 or any other answer) is counted as a refusal.

    with Phones(port, "/api/show/events", 20) as phones:
        phones.ready(10.0)              # {'stream': 20, 'polling': 0, 'refused': 0, 'connecting': 0}
        seq = flip()
        phones.receipt(seq, 5.0)        # monotonic arrival times (s) of `seq` at each streaming phone
        phones.final(seq, 15.0)         # how many phones hold `seq`, by the path it came by

Times are `time.monotonic()`, one clock for every process of the machine.
In Pi-sized mode a bench pins this process to the cores the daemon does not
use (`pin(phones.pid, budget.other_cores())`).

    >>> address(0), address(1), address(254)
    ('127.0.0.2', '127.0.0.3', '127.0.1.0')
"""

import ipaddress
import json
import multiprocessing
import os
import selectors
import socket
import time

FIRST_ADDRESS = ipaddress.IPv4Address("127.0.0.2")  # 127.0.0.1 is the server's; each phone has the next one
RECONNECT_S = 0.5  # a stream that ended without telling the phone to poll is opened again this soon
STEP_S = 0.02  # the phones' loop looks at its timers (polls, retries, deadlines) at least this often


def address(n: int) -> str:
    """The source address of phone `n` (0, 1, ...)."""
    return str(FIRST_ADDRESS + n)


class Phones:
    """`count` phones following `path` on 127.0.0.1:`port`, in a process of their own (on `cores`, if given)."""

    def __init__(self, port: int, path: str, count: int, *, host: str = "127.0.0.1", cores: set[int] | None = None):
        context = multiprocessing.get_context("spawn")
        self._pipe, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, host, port, path, count, cores), daemon=True)
        self.process.start()
        theirs.close()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _ask(self, *command):
        self._pipe.send(command)
        return self._pipe.recv()

    def ready(self, timeout: float) -> dict:
        """Once every phone has its first state (or `timeout` s): how many stream, poll, were refused, still wait."""
        return self._ask("ready", timeout)

    def receipt(self, number: int, timeout: float) -> list[float]:
        """When each streaming phone first had state `number` or a newer one (a phone sent only the newest
        skips some), waiting up to `timeout` s for all of them; phones it never reached are left out."""
        return self._ask("receipt", number, timeout)

    def final(self, number: int, timeout: float) -> dict:
        """Once every phone holds `number` (or `timeout` s): how many got it by stream, by polling, not at all,
        and how many were refused."""
        return self._ask("final", number, timeout)

    def close(self) -> None:
        try:
            self._ask("close")
        except (EOFError, OSError):
            pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()

    def __enter__(self) -> "Phones":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---- the phones' process -------------------------------------------------------------------------------------

class _Phone:
    """One phone: its stream (or its poll read) on a non-blocking socket, and what it has heard."""

    def __init__(self, n: int, host: str, port: int, path: str):
        self.n, self.host, self.port, self.path = n, host, port, path
        self.mode = "connecting"  # stream, polling, refused (and connecting, between)
        self.latest = -1  # the newest state number heard
        self.via = None  # the path the newest came by: "stream" or "polling"
        self.arrived: dict[int, float] = {}  # state number -> when it arrived (streaming)
        self.sock = None
        self.buffer = b""
        self.head = None  # the answer's status, once its head is in
        self.event = self.poll = None  # the event being read; the poll instruction, once given
        self.etag = None
        self.free = True  # whether the last poll read said a stream slot is free
        self.due = 0.0  # when the next poll read or stream open is due (polling, or reconnecting)
        self.stream_due = None  # when to ask for the stream again (polling)
        self.reading = None  # "stream" or "poll": what the open socket carries

    def connect(self, selector, what: str, request: bytes) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((address(self.n), 0))
        sock.connect((self.host, self.port))  # loopback: at once
        sock.sendall(request)
        sock.setblocking(False)
        self.sock, self.buffer, self.head, self.reading, self.event = sock, b"", None, what, None
        selector.register(sock, selectors.EVENT_READ, self)

    def open_stream(self, selector) -> None:
        last = f"Last-Event-ID: {self.latest}\r\n" if self.latest >= 0 else ""
        self.connect(selector, "stream", (f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\n"
                                          f"Accept: text/event-stream\r\n{last}\r\n").encode())

    def read_poll(self, selector) -> None:
        etag = f"If-None-Match: {self.etag}\r\n" if self.etag else ""
        self.connect(selector, "poll", (f"GET {self.poll['url']} HTTP/1.1\r\nHost: {self.host}\r\n"
                                        f"Accept: application/json\r\nConnection: close\r\n{etag}\r\n").encode())

    def drop(self, selector) -> None:
        if self.sock is not None:
            selector.unregister(self.sock)
            self.sock.close()
            self.sock = None

    def readable(self, selector, now: float) -> None:
        try:
            data = self.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.ended(selector, now)
            return
        self.buffer += data
        if self.head is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head, self.buffer = self.buffer[:end].decode("latin-1"), self.buffer[end + 4:]
            lines = head.split("\r\n")
            self.head = {"status": int(lines[0].split()[1])}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                self.head[name.strip().lower()] = value.strip()
            if self.reading == "stream":
                if self.head["status"] != 200:
                    self.mode = "refused"
                    self.drop(selector)
                    return
                self.mode = "stream"
        if self.reading == "stream":
            self.lines(now)

    def lines(self, now: float) -> None:
        """The stream's complete lines so far (each event is one chunk, so chunk sizes are lines of their own)."""
        *complete, self.buffer = self.buffer.split(b"\n")
        for line in complete:
            if line.startswith(b"id: "):
                number = int(line[4:])
                if number > self.latest:
                    self.latest, self.via = number, "stream"
                    self.arrived.setdefault(number, now)
            elif line.startswith(b"event: "):
                self.event = line[7:].strip()
            elif line.startswith(b"data: ") and self.event == b"poll":
                self.poll = json.loads(line[6:])

    def ended(self, selector, now: float) -> None:
        reading = self.reading
        self.drop(selector)
        if reading == "poll":
            self.polled(now)
            return
        if self.poll is not None:  # told to poll: read the record at once, ask for the stream again later
            self.mode, self.due = "polling", now
            self.stream_due = now + self.poll["retry_ms"] / 1000
        elif self.mode != "refused":
            self.mode, self.due = "connecting", now + RECONNECT_S

    def polled(self, now: float) -> None:
        head = self.head or {"status": 0}
        if head["status"] == 200:
            self.etag = head.get("etag")
            number = json.loads(self.buffer)[self.poll.get("number", "seq")]
            if number > self.latest:
                self.latest, self.via = number, "polling"
        self.free = head.get("x-live-free", "1") != "0"
        self.due = now + self.poll["every_ms"] / 1000

    def tick(self, selector, now: float) -> None:
        """Whatever is due now: a poll read, the stream asked for again, a reconnection."""
        if self.sock is not None or now < self.due:
            return
        if self.mode == "polling":
            if self.free and now >= self.stream_due:
                self.poll, self.mode = None, "connecting"
                self.open_stream(selector)
            else:
                self.read_poll(selector)
        elif self.mode == "connecting":
            self.open_stream(selector)


def _serve(pipe, host: str, port: int, path: str, count: int, cores: set[int] | None) -> None:
    if cores:
        os.sched_setaffinity(0, cores)
    selector = selectors.DefaultSelector()
    phones = [_Phone(n, host, port, path) for n in range(count)]
    for phone in phones:
        phone.open_stream(selector)
    selector.register(pipe, selectors.EVENT_READ, None)
    asked, deadline = None, 0.0
    while True:
        now = time.monotonic()
        for key, _ in selector.select(STEP_S):
            if key.data is None:
                asked = pipe.recv()
                deadline = time.monotonic() + (asked[-1] if len(asked) > 1 else 0)
                if asked[0] == "close":
                    for phone in phones:
                        phone.drop(selector)
                    pipe.send(None)
                    return
            else:
                key.data.readable(selector, time.monotonic())
        now = time.monotonic()
        for phone in phones:
            phone.tick(selector, now)
        if asked is not None:
            answer = _answer(asked, phones, now >= deadline)
            if answer is not None:
                pipe.send(answer)
                asked = None


def _counts(phones) -> dict:
    counts = {"stream": 0, "polling": 0, "refused": 0, "connecting": 0}
    for phone in phones:
        counts[phone.mode] += 1
    return counts


def _answer(asked, phones, late: bool):
    """The answer to the bench's question, once it can be given (or `late`: as it stands)."""
    what = asked[0]
    if what == "ready":
        if late or all(p.latest >= 0 or p.mode == "refused" for p in phones):
            return _counts(phones)
    elif what == "receipt":
        number = asked[1]
        streaming = [p for p in phones if p.mode == "stream"]
        if late or all(p.latest >= number for p in streaming):
            times = [min(t for n, t in p.arrived.items() if n >= number) for p in streaming if p.latest >= number]
            for p in streaming:
                p.arrived = {n: t for n, t in p.arrived.items() if n >= number}
            return times
    elif what == "final":
        number = asked[1]
        if late or all(p.latest >= number or p.mode == "refused" for p in phones):
            got = [p for p in phones if p.latest >= number]
            return {"stream": sum(p.via == "stream" for p in got), "polling": sum(p.via == "polling" for p in got),
                    "missing": len(phones) - len(got), "refused": sum(p.mode == "refused" for p in phones)}
    return None
