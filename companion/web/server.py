"""Serving the pages with waitress: a thread for every phone's live streams, plus a reserve for plain requests.

Each open event stream holds one server thread for as long as the page is
open, so the pool is sized for the phones of a full table (the live show and,
in the demo, the strip view each) and the app refuses streams past that, which
keeps RESERVE threads free for plain requests. Waitress itself bounds what a
client may send and hold: a body larger than the API needs is refused from
its Content-Length before any of it is read; a connection must deliver a
whole request (head and body) within REQUEST_TIMEOUT_S of being accepted, or
of its last answer (a slow sender, a slowloris, or a connection that sends
nothing at all holds its socket no longer than that); one address holds at
most CONNECTIONS_PER_CLIENT connections, and at most MAX_WAITING connections
wait for a request in all: past that, each new connection closes the one
that has waited longest, so idle sockets from many addresses never stop the
server accepting a phone's plain request. Waitress's buffers are sized for
phones: an answer queues at most OUTBUF_HIGH_BYTES before its thread waits,
and nothing spills to a file (a stream sends a phone that is behind nothing
more: live.py). On SIGTERM or Ctrl-C the streams are ended first and the
connections that still hold unsent bytes are closed, so the threads are free
and the server stops within a second however the phones read. Waitress's own
refusals (a bad request line, a body or head too large) carry the same strict
headers as the app's answers.
The Flask development server is for development only.

>>> import tempfile; from companion.table import demo_table
>>> table = demo_table(f"{tempfile.mkdtemp()}/demo.sqlite3")
>>> with ServerThread(make_server(table, "127.0.0.1", 0)) as running: print(running.url)  # doctest: +ELLIPSIS
http://127.0.0.1:.../
>>> table.stop()
"""

import contextlib
import fcntl
import logging
import os
import signal
import socket
import sys
import termios
import threading
import time
from collections.abc import Callable

from waitress import wasyncore
from waitress.channel import ClientDisconnected, HTTPChannel
from waitress.server import create_server
from waitress.task import ErrorTask, WSGITask

from companion.web import DEFAULTS, create_app
from companion.web.live import PHONE, PUSH, chunked
from companion.web.security import HEADERS

log = logging.getLogger(__name__)

RESERVE = 8  # threads kept for plain requests while every stream is open
DEFAULT_THREADS = DEFAULTS["SSE_MAX_STREAMS"] + RESERVE  # a thread for every stream the app allows, and the reserve
CONNECTIONS_PER_THREAD = 4  # phones keep several keep-alive connections each
CONNECTIONS_PER_CLIENT = 16  # a browser opens 6 to a site; a page and a script beside it stay far inside this
CHANNEL_TIMEOUT_S = 60  # waitress's own sweep, a backstop: streams speak every SSE_KEEPALIVE_S (15 s)
REQUEST_TIMEOUT_S = 10.0  # a whole request (head and body) must arrive within this of accept or the last answer
MAX_WAITING = 64  # connections waiting for a request, in all: a table's phones keep far fewer between taps
MAX_CONNECTIONS = 512  # waitress stops accepting at this; idle ones are closed long before it is reached
CLEANUP_INTERVAL_S = 2  # how often waitress closes idle connections
MAX_HEADER_BYTES = 16 * 1024  # a phone's request head, cookies and all, is a few hundred bytes
MAX_BODY_BYTES = DEFAULTS["MAX_CONTENT_LENGTH"]  # the API's largest body; waitress refuses more unread
STOP_TIMEOUT_S = 3.0  # at most this long for the worker threads to finish once the streams have ended
# An answer's thread waits once this much is queued for its phone (waitress's default is 16 MiB): a page's largest
# file is well under it, and a stream never queues more than one state (live.py).
OUTBUF_HIGH_BYTES = 256 * 1024
# Bytes the kernel holds for a socket and has not sent yet (Linux's SIOCOUTQNSD); elsewhere only waitress's are seen.
UNSENT_IOCTL = 0x894B if sys.platform.startswith("linux") else None
UNSENT_LOWAT = getattr(socket, "TCP_NOTSENT_LOWAT", None)  # a socket option: refuse writes past this many unsent bytes


def unsent(sock) -> int:
    """Bytes queued in the kernel for `sock` that it has not sent yet (the phone's window is full); 0 if unknown."""
    if UNSENT_IOCTL is None or sock is None:  # None: waitress closed the connection meanwhile (another thread)
        return 0
    try:
        return int.from_bytes(fcntl.ioctl(sock.fileno(), UNSENT_IOCTL, b"\0\0\0\0"), sys.byteorder, signed=True)
    except (OSError, ValueError):
        return 0


class PushingTask(WSGITask):
    """A response another thread may add to (live.PUSH), as long as that never makes it wait."""

    def get_environment(self):
        environ = super().get_environment()
        environ[PUSH] = self.push
        environ[PHONE] = self
        return environ

    refuses_when_behind = False  # the socket refuses a write while it holds unsent bytes (`push`)

    def _refuse_when_behind(self) -> bool:
        """Have the kernel refuse this socket's writes while any byte is unsent: False where it cannot."""
        if UNSENT_LOWAT is None:
            return False
        try:
            self.channel.socket.setsockopt(socket.IPPROTO_TCP, UNSENT_LOWAT, 1)
        except (OSError, AttributeError):
            return False
        self.refuses_when_behind = True
        return True

    def backlog(self) -> int:
        """Bytes of the response not yet on their way to the phone: in waitress's buffer or the kernel's queue."""
        channel = self.channel
        return channel.total_outbufs_len + (unsent(channel.socket) if channel.connected else 0)

    def ring_on_close(self, bell: threading.Event) -> Callable[[], None]:
        """Set `bell` when the connection closes (at once if it has): a waiting stream then ends without having
        to look. Returns the call that stops it."""
        channel = self.channel
        channel.bells.add(bell)
        if not channel.connected:
            bell.set()
        return lambda: channel.bells.discard(bell)

    def hang_up(self) -> None:
        """Close the connection on the loop's next turn, whatever is still queued for it (a stalled phone)."""
        self.channel.will_close = True
        if self.refuses_when_behind:  # the loop closes a connection it may write to: the kernel must let it
            with contextlib.suppress(OSError, AttributeError):
                self.channel.socket.setsockopt(socket.IPPROTO_TCP, UNSENT_LOWAT, 0)  # 0: the system's default
        self.channel.server.pull_trigger()

    def push(self, data: bytes, chunk: bytes | None = None) -> bool:
        """Write `data` as the response's next piece now, if that needs no waiting: False if it would.

        Nothing is queued before it, so it goes straight to the socket, framed
        as a chunk of the response (`chunk`, if the caller framed it once for
        every phone), without a pass through waitress's buffers; whatever the
        socket does not take at once is queued as waitress would
        (`write_soon`), and its loop sends the rest.

        A phone whose kernel queue still holds unsent bytes is behind. Where
        the kernel can tell (TCP_NOTSENT_LOWAT of one byte, set at the first
        push), the socket itself refuses the write; asking for the queue's
        length instead (an ioctl for every phone at every change) took a third
        of the table's time per phone.
        """
        channel = self.channel
        if not channel.outbuf_lock.acquire(False):  # not blocking (positional, as in Feed.offer: once per phone)
            return False  # the connection's loop or the response's own thread is writing
        try:
            if not (self.wrote_header and channel.connected) or channel.total_outbufs_len:
                return False  # the head is not out yet, or bytes wait for a slow phone: its own thread goes on
            if not (self.refuses_when_behind or self._refuse_when_behind()) and unsent(channel.socket):
                return False  # no kernel refuses for us here: its queue is looked at
            if not self.chunked_response:  # an HTTP/1.0 phone: the response is sent as waitress frames it
                self.write(data)
                return True
            chunk = chunk or chunked(data)
            sent = channel.socket.send(chunk)  # the socket's own, not waitress's wrapper: once per phone per change
            channel.last_activity = time.time()  # what waitress's sweep of idle connections reads
            if sent < len(chunk):
                channel.write_soon(chunk[sent:])
            return True
        except (ClientDisconnected, OSError):
            return False  # the kernel holds unsent bytes (the phone is behind: BlockingIOError), or the connection went
        finally:
            channel.outbuf_lock.release()


class StrictErrorTask(ErrorTask):
    """Waitress's own refusal (400, 413, 431 ...) with the strict headers every answer of the app carries."""

    def execute(self):
        self.response_headers.extend(HEADERS.items())
        super().execute()


class GuardedChannel(HTTPChannel):
    """A waitress connection that may not dawdle over a request or crowd out other clients.

    Its clock starts at accept (and again after each answer), not at its
    first byte: a connection that sends nothing is as slow as one that sends
    a byte a minute.
    """

    request_started: float | None = None  # when the request now arriving sent its first byte
    task_class = PushingTask
    error_task_class = StrictErrorTask

    def __init__(self, server, sock, addr, adj, map=None):
        self.bells: set[threading.Event] = set()  # set when the connection closes (PushingTask.ring_on_close)
        super().__init__(server, sock, addr, adj, map=map)
        self.waiting_since = time.monotonic()  # accepted, or answered: the next request must arrive from here
        self._serving = False
        channels = [c for c in list(self.server.active_channels.values()) if c is not self]
        others = sum(1 for c in channels if _host(c) == addr[0])
        if others >= CONNECTIONS_PER_CLIENT:
            log.warning("refused a connection from %s: it already holds %d", addr[0], others)
            self.will_close = True  # closed on the loop's next turn, before anything is read
            return
        waiting = sorted((c for c in channels if _waiting(c)), key=lambda c: c.waiting_since)
        for stale in waiting[:max(0, len(waiting) + 1 - MAX_WAITING)]:
            stale.will_close = True  # the longest-idle make room: a new connection is more likely a phone's tap

    def del_channel(self, map=None):
        """Every way a connection closes ends here: the streams waiting on it are woken (`ring_on_close`)."""
        super().del_channel(map)
        for bell in list(self.bells):
            bell.set()

    def received(self, data):
        if self.request is None and data:
            self.request_started = time.monotonic()
        return super().received(data)

    def readable(self):
        # Asked of every connection at every turn of the loop, each open stream's too: the clock is read only
        # for a connection between requests.
        if self.requests or self.total_outbufs_len:
            self._serving = True
        elif self._serving:  # its answer is out: the keep-alive wait for the next request starts now
            self._serving, self.waiting_since, self.request_started = False, time.monotonic(), None
        elif not self.will_close and time.monotonic() - self.waiting_since > REQUEST_TIMEOUT_S:
            log.info("closed a connection from %s that sent no whole request within %g s",
                     _host(self), REQUEST_TIMEOUT_S)
            self.will_close = True
        return super().readable()


def _waiting(channel) -> bool:
    """True for a connection with nothing to do: no request being served, nothing left to send."""
    return (not channel.will_close and not channel.requests and not channel.total_outbufs_len
            and hasattr(channel, "waiting_since"))


def _host(channel) -> str | None:
    addr = getattr(channel, "addr", None)
    return addr[0] if isinstance(addr, tuple) and addr else None


def body_limit(app) -> int:
    """The largest body the app takes (waitress is told the same, so it never reads more)."""
    return min(MAX_BODY_BYTES, app.config.get("MAX_CONTENT_LENGTH") or MAX_BODY_BYTES)


def make_server(table, host: str = "127.0.0.1", port: int = 0, *, threads: int | None = None, app=None):
    """The waitress server for `table` (or for a given `app`), bound and ready to `run()`; port 0 picks a free one."""
    threads = threads or DEFAULT_THREADS
    if app is None:
        app = create_app(table, config={"SSE_MAX_STREAMS": max(1, threads - RESERVE)})
    sockets: dict = {}
    server = create_server(
        app, map=sockets, host=host, port=port, threads=threads,
        connection_limit=max(MAX_CONNECTIONS, threads * CONNECTIONS_PER_THREAD), channel_timeout=CHANNEL_TIMEOUT_S,
        cleanup_interval=CLEANUP_INTERVAL_S, max_request_header_size=MAX_HEADER_BYTES,
        max_request_body_size=body_limit(app) + 1,  # waitress refuses a body of this size or more
        channel_request_lookahead=1,  # reads on while a stream runs, so a closed connection is seen at once
        asyncore_use_poll=True, ident="companion",
        outbuf_high_watermark=OUTBUF_HIGH_BYTES, outbuf_overflow=OUTBUF_HIGH_BYTES * 2,  # never reached: no spill file
        inbuf_overflow=MAX_HEADER_BYTES + body_limit(app) + 1,  # a whole request fits: it never spills to a file
        clear_untrusted_proxy_headers=False)  # never trusted (remote_addr is the socket's); seen: a proxy's mark
    server.channel_class = GuardedChannel
    server.flask_app, server.sockets = app, sockets  # what shut_down needs
    server.stopping = False  # set by a signal (stop_on_signals): the loop ends at its next turn
    server.signals_wake = False  # whether a signal writes to the loop's wake-up pipe (stop_on_signals)
    server.run = lambda: _run(server)
    return server


def bound_port(server) -> int:
    """The port the server listens on: waitress gives it as getnameinfo's text, every user of it wants a number."""
    return int(server.effective_port)


def _run(server) -> None:
    """waitress's loop, a turn at a time, until the server is closed (shut_down from another thread) or told to
    stop (`stop_on_signals`, or Ctrl-C where no handler is set): then the streams end before the threads are
    waited for."""
    try:
        while server._map and not server.stopping:
            server.asyncore.loop(timeout=server.adj.asyncore_loop_timeout, map=server._map,
                                 use_poll=server.adj.asyncore_use_poll, count=1)
    except (SystemExit, KeyboardInterrupt):
        server.stopping = True
    if server.signals_wake:  # before shut_down closes the pipe: a second signal must never write to its reused fd
        signal.set_wakeup_fd(-1)
        server.signals_wake = False
    if server.stopping:
        shut_down(server)


def stop_on_signals(server, signums=(signal.SIGTERM, signal.SIGINT)) -> None:
    """Have these signals (systemctl stop, Ctrl-C) stop `server`'s loop at its next turn, and the signal wake the
    loop at once, so that shut_down runs in order (call from the main thread).

    Raising KeyboardInterrupt from the handler would land wherever the main thread happens to be: in the
    loop, say, ringing a leaving phone's stream awake, between taking an event's lock and the block that
    lets it go; the lock then stays taken, and the daemon never exits.
    """
    wake = server.trigger.trigger  # the write end of waitress's own wake-up pipe (a socket on Windows)
    if isinstance(wake, int):
        os.set_blocking(wake, False)
        signal.set_wakeup_fd(wake, warn_on_full_buffer=False)  # written by C: the loop's poll returns at once
        server.signals_wake = True

    def stop(signum, frame) -> None:
        server.stopping = True

    for signum in signums:
        signal.signal(signum, stop)


def serve(table, host: str, port: int, *, threads: int | None = None) -> None:
    """Serve `table` until interrupted."""
    server = make_server(table, host, port, threads=threads)
    log.info("serving the table on http://%s:%s/", server.effective_host, bound_port(server))
    try:
        server.run()
    finally:
        shut_down(server)


def shut_down(server, timeout: float = STOP_TIMEOUT_S) -> None:
    """End the streams, let the worker threads finish, then close every connection (twice is harmless).

    A connection with bytes still queued (a phone that reads slowly or not
    at all) is closed first: its thread may be waiting for room to write.
    """
    streams = server.flask_app.extensions.get("streams")
    if streams is not None:
        streams.close()  # each stream ends at once (one that cannot be woken: within live.WAKE_S)
    for channel in list(server.active_channels.values()):
        if channel.total_outbufs_len or unsent(channel.socket):
            channel.handle_close()  # wakes a thread waiting for room (waitress's high-water mark) at once
    server.task_dispatcher.shutdown(timeout=timeout)
    wasyncore.close_all(server.sockets)


class ServerThread:
    """A server running in a background thread (tests, benchmarks); `close()` or a with-block stops it."""

    def __init__(self, server):
        self.server = server
        self.url = f"http://{server.effective_host}:{bound_port(server)}/"
        self._thread = threading.Thread(target=server.run, name="web", daemon=True)
        self._thread.start()

    def close(self) -> None:
        shut_down(self.server)
        self._thread.join(timeout=5)

    def __enter__(self) -> "ServerThread":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
