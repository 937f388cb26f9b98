"""Serving the pages with waitress: a thread for every phone's live streams, plus headroom.

Each open event stream holds one server thread for as long as the page is
open, so the pool is sized for the phones of a full table (the live show and,
in the demo, the strip view each) and the app refuses streams past that, which
keeps threads free for plain requests. The Flask development server is for
development only.

>>> server = make_server(table, "127.0.0.1", 0)            # doctest: +SKIP
>>> with ServerThread(server) as running: print(running.url)  # doctest: +SKIP
http://127.0.0.1:40143/
"""

import logging
import threading

from waitress import wasyncore
from waitress.server import create_server

from companion.web import create_app

log = logging.getLogger(__name__)

PHONES = 20  # phones a table is sized for
STREAMS_PER_PHONE = 2  # the live show, and the strip view
HEADROOM = 8  # threads kept for plain requests while every stream is open
DEFAULT_THREADS = PHONES * STREAMS_PER_PHONE + HEADROOM
CHANNEL_TIMEOUT_S = 120  # idle connections close; streams speak every SSE_KEEPALIVE_S (15 s), far inside this


def make_server(table, host: str = "127.0.0.1", port: int = 0, *, threads: int | None = None, app=None):
    """The waitress server for `table` (or for a given `app`), bound and ready to `run()`; port 0 picks a free one."""
    threads = threads or DEFAULT_THREADS
    if app is None:
        app = create_app(table, config={"SSE_MAX_STREAMS": max(1, threads - HEADROOM)})
    sockets: dict = {}
    server = create_server(
        app, map=sockets, host=host, port=port, threads=threads,
        connection_limit=threads * 4,  # phones keep several keep-alive connections each
        channel_timeout=CHANNEL_TIMEOUT_S, asyncore_use_poll=True, ident="companion",
        clear_untrusted_proxy_headers=True)
    server.flask_app, server.sockets = app, sockets  # what shut_down needs
    return server


def serve(table, host: str, port: int, *, threads: int | None = None) -> None:
    """Serve `table` until interrupted."""
    server = make_server(table, host, port, threads=threads)
    log.info("serving the table on http://%s:%s/", server.effective_host, server.effective_port)
    try:
        server.run()
    finally:
        shut_down(server)


def shut_down(server, timeout: float = 5.0) -> None:
    """End the streams, let the worker threads finish, then close every connection."""
    streams = server.flask_app.extensions.get("streams")
    if streams is not None:
        streams.close()  # each stream ends within a second (live.WAKE_S)
    server.task_dispatcher.shutdown(timeout=timeout)
    wasyncore.close_all(server.sockets)


class ServerThread:
    """A server running in a background thread (tests, benchmarks); `close()` or a with-block stops it."""

    def __init__(self, server):
        self.server = server
        self.url = f"http://{server.effective_host}:{server.effective_port}/"
        self._thread = threading.Thread(target=server.run, name="web", daemon=True)
        self._thread.start()

    def close(self) -> None:
        shut_down(self.server)
        self._thread.join(timeout=5)

    def __enter__(self) -> "ServerThread":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
