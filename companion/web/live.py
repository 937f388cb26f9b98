"""Live feeds as server-sent events: one loop for every record that changes (the show, a game, the hall).

A stream is a generator (`follow`): it waits for the record's next change
(asleep until the record, the server's closing or the phone's leaving wakes
it, where all three can: else looking up every WAKE_S), sends each new state
once with its number (seq or version) as the event id, and a `: keep-alive` comment after a quiet `keepalive_s`, so no
proxy, router or server timeout drops the line. A browser that reconnects
sends Last-Event-ID and gets only what it lacks; an id ahead of the record
(from another database, or an earlier run of the hall) is treated as
unknown: the phone is sent the current state. The LED strip's picture is
sent only when what it shows changes (`show/api.py`).

A new show state need not wait for its stream's thread to wake: where the
server lets another thread add to a response (PUSH in the request's
environ, server.py), the table's own thread writes it to every phone as it
publishes it, framed once for all (`Fanout`), one hand-off fewer on the way
from a turned glass to the phones. A stream's thread and the table's never
write to one phone at once (`Feed.lock`), and the table's thread never
waits: a phone with bytes still queued, or whose thread is writing, is
left to its own thread, which is woken only then (`Feed.behind`).

A phone past the stream cap is not refused but told to poll: where the
stream names the record's plain JSON (`Streams.open(..., poll=url)`), its
answer is a short stream of one `poll` event carrying that address, the
period POLL_MS and when to ask for the stream again (also its Retry-After).
The page reads the record every POLL_MS with If-None-Match, so a state it
already has costs a 304 (`conditional`), and each read says whether a
stream slot is free (FREE_HEADER), so the page goes back to the stream
once one is.

A phone that reads slowly, or not at all, holds only the newest state: a
stream writes nothing while the phone has bytes still on their way (the
server's buffer and the kernel's unsent queue, `PHONE` in the environ), and
sends the state as it is once they are out, never each state it missed. One
that takes not a byte of its backlog for `stall_s` (or whose backlog passes
MAX_BACKLOG_BYTES) is hung up on and its slot freed; its browser reconnects
with Last-Event-ID when it reads again.

>>> message("state", '{"seq": 7}', event_id=7)
'id: 7\\nevent: state\\ndata: {"seq": 7}\\n\\n'
>>> etag(7)
'"7"'
"""

import json
import math
import threading
import time
from collections.abc import Callable, Iterator

from flask import Response, jsonify, request
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

from companion.bells import Bells
from companion.web.errors import coded

KEEP_ALIVE = ": keep-alive\n\n"
WAKE_S = 0.25  # a waiting stream looks up this often: it ends this soon after its phone leaves or the server stops
# A browser opens at most 6 connections to one site, so more streams than that from one address are
# not one phone's; the limit keeps one client from taking every slot.
STREAMS_PER_CLIENT = 6
# environ key: write(bytes, chunk=None) -> bool, the response's next piece from any thread, never waiting (`chunk`: the
# same bytes framed as a piece of a chunked answer, made once for every phone)
PUSH = "companion.push"
PHONE = "companion.phone"  # environ key: the connection's backlog() in bytes not yet sent, and hang_up()
CATCH_UP_S = 0.05  # a phone that is behind is looked at this often: its newest state goes out this soon once it reads
# A phone that takes not one byte of its backlog in this long is asleep or off the network: hung up on, its slot
# freed (an honest phone waits no longer than this for a slot); the browser reconnects when it wakes.
STALL_S = 5.0
# Past this a stream's backlog is more than a phone ever needs queued (a state is a few KB, and a phone that is behind
# is sent nothing more): the phone is hung up on at once, so no reader holds more of the table's memory than this.
MAX_BACKLOG_BYTES = 256 * 1024
# A phone past the stream cap reads its record this often: a change shows within this, and 160 phones polling
# cost the table 80 small answers a second (mostly 304s).
POLL_MS = 2000
FREE_HEADER = "X-Live-Free"  # on a polled read: "1" while a stream slot is free (the page asks for it again), else "0"


def message(event: str, data: str, *, event_id: int | None = None) -> str:
    """One server-sent event; `data` must be a single line (compact JSON is)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n"


class Compact(str):
    """JSON text serialised once and sent as it is to every reader (the hall's frames)."""


def compact(value) -> str:
    if isinstance(value, Compact):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def chunked(data: bytes) -> bytes:
    """`data` framed as one piece of a chunked HTTP/1.1 answer.

    >>> chunked(b"id: 7\\n\\n")
    b'7\\r\\nid: 7\\n\\n\\r\\n'
    """
    return b"%X\r\n%b\r\n" % (len(data), data)


def etag(number: int) -> str:
    """The entity tag of a record's state `number` (a seq or a version): a polling page sends it back."""
    return f'"{number}"'


def last_event_id(header: str | None) -> int | None:
    try:
        value = int(header or "")
    except ValueError:
        return None
    return value if value >= 0 else None


class Feed:
    """What one phone's stream has sent (`sent`, a state's number), and the lock held by whoever writes to it."""

    def __init__(self, push: Callable[[bytes], bool] | None = None):
        self.push = push
        self.lock = threading.Lock()
        self.sent = -1
        self.open = True
        self.behind = threading.Event()  # set when a state was not written for it: its own thread sends it
        self.behind.set()  # the state it starts from

    def offer(self, number: int, data: bytes, chunk: bytes | None = None) -> None:
        """Write state `number` (its whole event, `data`; `chunk`: the same framed as a piece of a chunked answer)
        now, unless this phone's own thread is writing (or the phone is behind: `push` refuses then)."""
        if self.lock.acquire(False):  # not blocking (positional: a keyword costs a lock a third of a µs)
            try:
                if self.open and number > self.sent and self.push(data, chunk):
                    self.sent = number
            finally:
                self.lock.release()
        if self.sent < number:
            self.behind.set()

    def wait(self, current: Callable[[], dict], timeout: float) -> dict:
        """The record as it is once this phone is behind (or after `timeout`): its thread is woken only then."""
        self.behind.wait(timeout)
        self.behind.clear()
        return current()


class Fanout:
    """The feeds a table's thread writes each new show state to, framed once for all of them."""

    def __init__(self):
        self._feeds: set[Feed] = set()
        self._lock = threading.Lock()
        self._following = False  # whether the table calls _write yet (it is asked once)

    def join(self, desk, feed: Feed) -> Callable[[], None]:
        """Write `desk`'s new states to `feed` from now on; returns the call that stops it."""
        with self._lock:
            if not self._following:
                self._following = True
                desk.write_to(self._write)
            self._feeds.add(feed)
        return lambda: self._leave(feed)

    def _leave(self, feed: Feed) -> None:
        with self._lock:
            self._feeds.discard(feed)

    def _write(self, seq: int, text: str) -> None:
        with self._lock:
            feeds = list(self._feeds)
        if feeds:  # framed once for every phone, as an event and as a piece of a chunked answer
            data = message("state", text, event_id=seq).encode()
            framed = chunked(data)
            for feed in feeds:
                try:
                    feed.offer(seq, data, framed)
                except Exception:  # never let one phone's connection stop the table's thread: its own goes on
                    feed.open = False
                    feed.behind.set()


def follow(event: str, current: Callable[[], int | None], wait: Callable[[int, float], dict | None],
           render: Callable[[dict], object], after: int | None, *, number: str, keepalive_s: float, retry_ms: int,
           closing: threading.Event, clock: Callable[[], float] = time.monotonic, feed: Feed | None = None,
           join: Callable[[Feed], Callable[[], None]] | None = None, phone=None,
           stall_s: float = STALL_S, bell: threading.Event | None = None) -> Iterator[str]:
    """The one live-stream loop: every new state of a record from the one after `after` on.

    `current()` is the record's number now (None: it is gone), `wait(seen,
    timeout)` the record as soon as its `number` is past `seen` (or as it is
    after `timeout`; None: gone), and `render` what each event carries (a
    value to serialise, or text already serialised, shared by every phone). A
    phone that has the current number waits for the next; any other phone,
    a new one or one holding a number the record never reached, gets the
    current state first. `join(feed)`, called once the response's head is
    out, joins what tells the stream of changes (another thread that may write
    new states to the phone too, `feed`, or the bells it sleeps on); it returns
    the call that leaves. With `phone`
    (the connection), nothing is written while the phone is behind (`Backlog`).

    With `bell` (what `wait` waits on, set at every change of the record),
    a stream whose end rings it too (`Ending.ring`) sleeps until something
    happens, waking only for the keep-alive; any other looks up every WAKE_S.
    """
    feed = feed or Feed()
    backlog = Backlog(phone, clock, stall_s)
    yield f"retry: {retry_ms}\n\n"
    now = current()
    feed.sent = after if after is not None and now is not None and after <= now else -1
    leave = join(feed) if join is not None else (lambda: None)
    unring, rung = closing.ring(bell) if bell is not None and hasattr(closing, "ring") else (lambda: None, False)
    patience = keepalive_s if rung else min(keepalive_s, WAKE_S)
    said, heard = clock(), feed.sent
    try:
        while not closing.is_set():
            if backlog.behind():  # only the newest state is sent, once the phone has taken what it was sent
                if backlog.stalled():
                    return
                closing.wait(CATCH_UP_S)
                continue
            record = wait(feed.sent, patience)
            if record is None:
                return
            with feed.lock:  # held until the event is written: no other thread writes to this phone meanwhile
                if feed.sent > heard:  # written by another thread meanwhile: the line was not quiet
                    said = clock()
                if record[number] > feed.sent:
                    feed.sent = record[number]
                    data = render(record)
                    yield message(event, data if isinstance(data, str) else compact(data), event_id=feed.sent)
                    said = clock()
                elif clock() - said >= keepalive_s:
                    yield KEEP_ALIVE
                    said = clock()
                heard = feed.sent
    finally:
        with feed.lock:
            feed.open = False
        leave()
        unring()


def show_stream(desk, last_seq: int | None, *, fanout: Fanout | None = None,
                push: Callable[[bytes], bool] | None = None, **settings) -> Iterator[str]:
    """Every new show state from the one after `last_seq` on (the current one for a new client); with a
    `fanout` and a server's `push`, the table's thread writes each new one to the phone as it publishes it."""
    def current() -> int:
        return desk.snapshot()["seq"]

    if fanout is None or push is None:
        return follow("state", current, desk.wait_for_change, desk.snapshot_text, last_seq, number="seq",
                      **settings)
    feed = Feed(push)
    return follow("state", current, lambda seen, timeout: feed.wait(desk.snapshot, timeout), desk.snapshot_text,
                  last_seq, number="seq", feed=feed, join=lambda joining: fanout.join(desk, joining),
                  bell=feed.behind, **settings)


def game_stream(games, kind: str, game_id: int, render: Callable[[dict], object], after: int | None,
                **settings) -> Iterator[str]:
    """A saved game after every change (its version the event id); ends if the game is gone.

    The stream sleeps on its feed's bell, rung when any game changes: it
    reads its game then, not at every look (the game is a row in the records)."""
    def current() -> int | None:
        game = games.game(kind, game_id)
        return None if game is None else game["version"]

    feed = Feed()
    return follow("game", current, lambda seen, timeout: feed.wait(lambda: games.game(kind, game_id), timeout),
                  render, after, number="version", feed=feed,
                  join=lambda joining: games.ring_on_game_change(joining.behind), bell=feed.behind, **settings)


class Backlog:
    """Whether a phone is behind (bytes it was sent are still queued for it), and whether it has stalled.

    A stalled phone has taken nothing of its backlog for `stall_s`, or holds
    more than MAX_BACKLOG_BYTES; the stream then hangs up, which frees its slot.

    >>> class Phone:
    ...     queued, hung_up = 0, False
    ...     def backlog(self): return self.queued
    ...     def hang_up(self): self.hung_up = True
    >>> phone, now = Phone(), [0.0]
    >>> backlog = Backlog(phone, lambda: now[0], stall_s=5.0)
    >>> phone.queued = 900; backlog.behind(), backlog.stalled()
    (True, False)
    >>> now[0] = 5.0; backlog.behind(), backlog.stalled(), phone.hung_up
    (True, True, True)
    """

    def __init__(self, phone, clock: Callable[[], float], stall_s: float):
        self.phone, self.clock, self.stall_s = phone, clock, stall_s
        self.queued, self.since = 0, clock()  # the backlog last seen, and when it last shrank (or began)

    def behind(self) -> bool:
        queued = self.phone.backlog() if self.phone is not None else 0
        if queued == 0 or queued < self.queued or self.queued == 0:
            self.since = self.clock()  # it reads (or has just fallen behind): its stall counts from now
        self.queued = queued
        return queued > 0

    def stalled(self) -> bool:
        """True once the phone has been hung up on for taking nothing (or holding too much)."""
        if self.queued > MAX_BACKLOG_BYTES or self.clock() - self.since >= self.stall_s:
            self.phone.hang_up()
            return True
        return False


class Ending:
    """When one stream should end: the server is closing, or its phone has gone (the connection closed).

    It stands where a threading.Event would (`is_set`, `wait`), so the streams above need not know the server.

    >>> closing = threading.Event(); ending = Ending(closing, lambda: True)
    >>> ending.is_set(), closing.is_set()
    (True, False)
    """

    def __init__(self, closing: threading.Event, gone: Callable[[], bool] | None = None, *,
                 bells: Bells | None = None, phone=None):
        self.closing, self.gone = closing, gone or (lambda: False)
        self._bells, self._phone = bells, phone
        self._unseen = gone is None  # no phone to watch: only the server's closing ends the stream

    def is_set(self) -> bool:
        return self.closing.is_set() or bool(self.gone())

    def ring(self, bell: threading.Event) -> tuple[Callable[[], None], bool]:
        """Have `bell` set when the stream should end; the call that stops it, and whether every end rings it
        (the server's closing, and the phone's leaving where the connection tells: else it must be looked at)."""
        undo = []
        if self._bells is not None:
            undo.append(self._bells.add(bell))
        told = getattr(self._phone, "ring_on_close", None)
        if told is not None:
            undo.append(told(bell))
        if self.is_set():
            bell.set()
        rung = self._bells is not None and (told is not None or self._unseen)
        return (lambda: [u() for u in undo]), rung

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds, looking at the phone every WAKE_S; True if the stream should end."""
        deadline = time.monotonic() + timeout
        while not self.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.closing.wait(min(left, WAKE_S))
        return True


class Streams:
    """The app's open streams: counted in all and per client, so none takes every slot, and ended on shutdown.

    A slot is freed as soon as its stream ends: when the server closes, or
    when its phone closes the connection (the connection wakes the stream,
    `server.PushingTask.ring_on_close`; a stream that cannot be woken sees
    it within WAKE_S through `waitress.client_disconnected`). A stream
    refused is told to come back after `refused_retry_ms`: told to poll the record meanwhile
    every `poll_ms` where the stream names it, else refused (429 or 503; the
    page then reads its record every `refused_retry_ms`, static/js/follow.js).
    """

    def __init__(self, limit: int, *, keepalive_s: float, retry_ms: int, refused_retry_ms: int,
                 per_client: int = STREAMS_PER_CLIENT, stall_s: float = STALL_S, poll_ms: int = POLL_MS):
        self.closing = threading.Event()
        self.limit, self.per_client = limit, per_client
        self._keepalive_s, self._retry_ms, self._stall_s = keepalive_s, retry_ms, stall_s
        self._retry_after_s = math.ceil(refused_retry_ms / 1000)  # Retry-After counts whole seconds
        self._refused_retry_ms, self._poll_ms = refused_retry_ms, poll_ms
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}  # client address -> streams it holds
        self.fanout = Fanout()
        self._bells = Bells()  # of the streams asleep until something happens: rung when the server closes

    @property
    def settings(self) -> dict:
        """The keyword arguments of a stream for the current request (its `closing` sees the phone leave)."""
        gone, phone = request.environ.get("waitress.client_disconnected"), request.environ.get(PHONE)
        return {"keepalive_s": self._keepalive_s, "retry_ms": self._retry_ms, "stall_s": self._stall_s,
                "closing": Ending(self.closing, gone, bells=self._bells, phone=phone), "phone": phone}

    @property
    def push(self) -> Callable[[bytes], bool] | None:
        """How another thread adds to the current request's response, if the server allows it."""
        return request.environ.get(PUSH)

    def held(self, client: str | None = None) -> int:
        """Streams open in all, or held by `client`."""
        with self._lock:
            return sum(self._open.values()) if client is None else self._open.get(client, 0)

    def free(self) -> bool:
        """Whether a stream would be let in now (for the current request's client)."""
        client = request.remote_addr or "?"
        with self._lock:
            return sum(self._open.values()) < self.limit and self._open.get(client, 0) < self.per_client

    def open(self, stream: Iterator[str], *, poll: str | None = None, number: str = "seq") -> Response:
        """A text/event-stream response for `stream`. Past the cap (every slot taken, or the client's share):
        with `poll` (the record's JSON, whose `number` field the page compares), the page is told to poll it;
        without, 429 past the client's share, 503 when every slot is taken."""
        client = request.remote_addr or "?"
        with self._lock:
            full = sum(self._open.values()) >= self.limit
            greedy = self._open.get(client, 0) >= self.per_client
            if not (full or greedy):
                self._open[client] = self._open.get(client, 0) + 1
        if full or greedy:
            stream.close()
            if poll is not None:
                return self._poll_instead(poll, number)
            if greedy:
                raise coded(TooManyRequests(f"this address already has {self.per_client} live streams open; "
                                            "close one first", retry_after=self._retry_after_s), "errors.streams_full")
            raise coded(ServiceUnavailable("too many live streams are open; try again shortly",
                                           retry_after=self._retry_after_s), "errors.streams_full")
        response = Response(stream, mimetype="text/event-stream")
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Accel-Buffering"] = "no"
        response.call_on_close(lambda: self._release(client))
        return response

    def _poll_instead(self, url: str, number: str) -> Response:
        """The answer to a stream past the cap: one `poll` event (where, how often, when to ask again), then the end.
        An answer, not a refusal: the browser reports nothing, and the page follows all the same."""
        told = {"url": url, "every_ms": self._poll_ms, "retry_ms": self._refused_retry_ms, "number": number}
        response = Response(f"retry: {self._refused_retry_ms}\n\n" + message("poll", compact(told)),
                            mimetype="text/event-stream")
        response.headers["Cache-Control"] = "no-cache"
        response.headers["Retry-After"] = str(self._retry_after_s)
        return response

    def conditional(self, number: int, body: Callable[[], object]) -> Response:
        """A record read by a polling page: 304 if the page already holds state `number` (its If-None-Match), else
        `body()` as JSON; tagged with the number, and with whether a stream slot is free (FREE_HEADER)."""
        tag = etag(number)
        if request.if_none_match.contains(tag.strip('"')):
            response = Response(status=304)
        else:
            response = jsonify(body())
        response.headers["ETag"] = tag  # (kept in no cache: the page sends it back itself)
        response.headers[FREE_HEADER] = "1" if self.free() else "0"
        return response

    def _release(self, client: str) -> None:
        with self._lock:
            left = self._open.get(client, 0) - 1
            if left > 0:
                self._open[client] = left
            else:
                self._open.pop(client, None)

    def close(self) -> None:
        """End every stream: each sees `closing` at its next look, and a sleeping one is woken for it (one that
        opens after looks before it ever sleeps)."""
        self.closing.set()
        self._bells.ring()


def init_app(app) -> None:
    config = app.config
    app.extensions["streams"] = Streams(config["SSE_MAX_STREAMS"], keepalive_s=config["SSE_KEEPALIVE_S"],
                                        retry_ms=config["SSE_RETRY_MS"],
                                        refused_retry_ms=config["SSE_REFUSED_RETRY_MS"],
                                        per_client=config.get("SSE_STREAMS_PER_CLIENT", STREAMS_PER_CLIENT),
                                        stall_s=config.get("SSE_STALL_S", STALL_S),
                                        poll_ms=config.get("SSE_POLL_MS", POLL_MS))
