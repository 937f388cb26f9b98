"""Live feeds as server-sent events: the show state after every change, and the LED strip's frames.

A stream is a generator: it waits on the table for the next change (looking
up once a second, to end soon when the server closes), sends each new state
once with its seq as the event id, and a `: keep-alive` comment after a quiet
`keepalive_s`, so no proxy, router or server timeout drops the line.
A browser that reconnects sends Last-Event-ID and gets only what it lacks.

>>> message("state", '{"seq": 7}', event_id=7)
'id: 7\\nevent: state\\ndata: {"seq": 7}\\n\\n'
"""

import json
import threading
import time
from collections.abc import Callable, Iterator

from flask import Response

from companion.skyrockets.snapshot import carried
from werkzeug.exceptions import ServiceUnavailable

KEEP_ALIVE = ": keep-alive\n\n"
WAKE_S = 1.0  # a waiting stream looks up this often, so it ends soon after the server closes


def message(event: str, data: str, *, event_id: int | None = None) -> str:
    """One server-sent event; `data` must be a single line (compact JSON is)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n"


def compact(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def last_event_id(header: str | None) -> int | None:
    try:
        value = int(header or "")
    except ValueError:
        return None
    return value if value >= 0 else None


def show_stream(table, last_seq: int | None, *, keepalive_s: float, retry_ms: int, closing: threading.Event,
                clock: Callable[[], float] = time.monotonic) -> Iterator[str]:
    """Every new show state from the one after `last_seq` on (the current one for a new client)."""
    yield f"retry: {retry_ms}\n\n"
    seq = -1
    if last_seq is not None and last_seq <= table.snapshot()["seq"]:
        seq = last_seq  # the client has it: wait for the next (a larger id is from another database)
    said = clock()
    while not closing.is_set():
        snapshot = table.wait_for_change(seq, min(keepalive_s, WAKE_S))
        if snapshot["seq"] > seq:
            seq = snapshot["seq"]
            yield message("state", compact(carried(snapshot, table.show_time())), event_id=seq)
            said = clock()
        elif clock() - said >= keepalive_s:
            yield KEEP_ALIVE
            said = clock()


def strip_stream(table, first: dict, *, keepalive_s: float, retry_ms: int, max_fps: float,
                 closing: threading.Event, clock: Callable[[], float] = time.monotonic) -> Iterator[str]:
    """The strip's layout once, then its newest frame at most `max_fps` times a second (frames between are skipped)."""
    yield f"retry: {retry_ms}\n\n"
    yield message("layout", compact(first["layout"]))
    frame, n, said, period = first, 0, clock(), 1.0 / max_fps
    while frame is not None and not closing.is_set():
        if frame["n"] > n:
            n, said = frame["n"], clock()
            yield message("frame", compact({"n": n, "pixels": "".join(p[1:] for p in frame["pixels"])}), event_id=n)
            closing.wait(max(0.0, said + period - clock()))  # the pacing: the next frame no sooner
        elif clock() - said >= keepalive_s:
            yield KEEP_ALIVE
            said = clock()
        frame = table.strip_frame(n, min(keepalive_s, WAKE_S))


class Streams:
    """The app's open streams: counted, so they never take every server thread, and ended on shutdown."""

    def __init__(self, limit: int, *, keepalive_s: float, retry_ms: int):
        self.closing = threading.Event()
        self.settings = {"keepalive_s": keepalive_s, "retry_ms": retry_ms, "closing": self.closing}
        self._slots = threading.BoundedSemaphore(limit)

    def open(self, stream: Iterator[str]) -> Response:
        """A text/event-stream response for `stream`; 503 when every slot is taken."""
        if not self._slots.acquire(blocking=False):
            stream.close()
            raise ServiceUnavailable("too many live streams are open; try again shortly", retry_after=5)
        response = Response(stream, mimetype="text/event-stream")
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Accel-Buffering"] = "no"
        response.call_on_close(self._slots.release)
        return response

    def close(self) -> None:
        self.closing.set()


def init_app(app) -> None:
    config = app.config
    app.extensions["streams"] = Streams(config["SSE_MAX_STREAMS"], keepalive_s=config["SSE_KEEPALIVE_S"],
                                        retry_ms=config["SSE_RETRY_MS"])
