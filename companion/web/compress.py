"""What a page loads (its scripts, styles and catalogue) goes gzipped to a browser that takes it.

A phone at the edge of the table's Wi-Fi waits for every byte, and a page
loads the same files again and again: each is compressed once per version
(its ETag) and kept, so the Pi does the work once, not per phone. Live
streams and API answers are left as they are (small, or never ending).

>>> squeezed = Squeezed()
>>> body = squeezed.get(("app.js", "v1"), lambda: b"let a = 1;\\n" * 400)
>>> len(body) < 400, gzip.decompress(body) == b"let a = 1;\\n" * 400
(True, True)
"""

import gzip
import threading
from collections import OrderedDict

from flask import current_app, request

MIN_BYTES = 1024  # below this the gzip header costs about as much as it saves
KEPT = 64  # compressed files kept: every script, style and catalogue of both languages fits
TEXT_TYPES = ("text/css", "text/javascript", "application/javascript", "application/json", "image/svg+xml")
LEVEL = 6  # gzip's default: near the best size for a fraction of level 9's time on a Pi


class Squeezed:
    """Compressed bodies by (path, version), the most recent `KEPT` of them."""

    def __init__(self, kept: int = KEPT):
        self._kept, self._lock, self._bodies = kept, threading.Lock(), OrderedDict()

    def get(self, key, body) -> bytes:
        with self._lock:
            if key in self._bodies:
                self._bodies.move_to_end(key)
                return self._bodies[key]
        squeezed = gzip.compress(body(), compresslevel=LEVEL, mtime=0)
        with self._lock:
            self._bodies[key] = squeezed
            while len(self._bodies) > self._kept:
                self._bodies.popitem(last=False)
        return squeezed


def _loaded_by_pages() -> bool:
    """A static file or a catalogue: what every page loads, the same for every phone."""
    endpoint = request.endpoint or ""
    return request.method == "GET" and (endpoint == "static" or endpoint.endswith(".static")
                                        or endpoint == "lang.catalog_json")


def compress(response):
    if (response.status_code != 200 or response.is_streamed and not response.direct_passthrough
            or "gzip" not in request.headers.get("Accept-Encoding", "") or response.content_encoding
            or response.mimetype not in TEXT_TYPES or not _loaded_by_pages()):
        return response
    response.vary.add("Accept-Encoding")
    etag, _ = response.get_etag()
    if etag and request.if_none_match.contains(f"{etag}-gzip"):  # the phone has this version already
        response.direct_passthrough = False
        response.status_code = 304
        response.set_data(b"")
        response.set_etag(f"{etag}-gzip")
        return response
    response.direct_passthrough = False  # a static file: read it here, once per version
    plain = response.get_data()
    if len(plain) < MIN_BYTES:
        return response
    key = (request.full_path, etag or plain)
    response.set_data(current_app.extensions["squeezed"].get(key, lambda: plain))
    response.content_encoding = "gzip"
    if etag:
        response.set_etag(f"{etag}-gzip")  # another body, another tag: no cache mixes the two
    return response


def init_app(app) -> None:
    app.extensions["squeezed"] = Squeezed()
    app.after_request(compress)
