"""A history file sent from a phone in pieces, under an upload id, and read in whole once the last is in.

No request body may be larger than the API needs (MAX_CONTENT_LENGTH), and a
history of many shows is, so the score pad sends its file in pieces, each
numbered `part` of `parts`. The first piece starts an upload and its answer
gives the upload's id, which every later piece carries: two phones sending
at once can never splice their files. One upload is held at a time: while
it goes on, another phone's first piece is refused (409, it may try again
once that upload is done or given up — IDLE_S without a piece), and a piece
of any other upload is refused and changes nothing. A piece out of turn
ends its own upload (its phone starts again from the first piece). The
pieces are held in memory until the last arrives; then the file is read in
as if it had come in one body: all of it, or nothing. Only a request that
passed the PIN gets here, so nobody else can fill the memory.

>>> pieces = Pieces(new_id=lambda: "a1")
>>> pieces.add("ab", 1, 2, None), pieces.add("c", 2, 2, "a1")
(('a1', None), ('a1', 'abc'))
"""

import secrets
import threading
import time

from companion.errors import BadInput, Conflict

MAX_UPLOAD_BYTES = 16 * 2**20  # a history sent in pieces, held until its last one: thousands of shows
MAX_PIECES = MAX_UPLOAD_BYTES // 1024  # the page's pieces are some 5 KiB: a file at the limit takes far fewer
BODY_ROOM = 256  # bytes of a piece's body besides the piece itself: the field names, numbers and upload id
IDLE_S = 60.0  # a phone sends its next piece within a second or two: a minute without one is an upload given up
MAX_UPLOAD_ID = 64  # characters of an upload id (ours are 16)


def piece_length(max_body: int) -> int:
    """The most UTF-16 code units of a file one piece may carry within a body of `max_body` bytes.

    JSON writes a unit in 6 bytes at most (a control character as \\u00XX;
    other text takes 1 to 3 bytes a unit).
    """
    return (max_body - BODY_ROOM) // 6


class Pieces:
    """The upload in progress (at most one): its id, its pieces in order, when its last piece came."""

    def __init__(self, *, clock=time.monotonic, new_id=lambda: secrets.token_urlsafe(12)):
        self._lock = threading.Lock()
        self._clock, self._new_id = clock, new_id
        self._forget()

    def _forget(self) -> None:
        self._upload: str | None = None
        self._pieces: list[str] = []
        self._parts = 0
        self._bytes = 0
        self._heard = float("-inf")

    def add(self, piece: str, part: int, parts: int, upload: str | None) -> tuple[str, str | None]:
        """Keep `piece`, part `part` of `parts` of `upload` (None: a first part starts one); the upload's id,
        and the whole file once its last part is in."""
        with self._lock:
            now = self._clock()
            busy = self._upload is not None and now - self._heard <= IDLE_S
            if part == 1:
                if busy and upload != self._upload:
                    raise self._other_upload()
                self._forget()
                self._upload, self._parts = self._new_id(), parts
            elif upload is None or upload != self._upload or not busy:
                raise self._other_upload()
            elif (part, parts) != (len(self._pieces) + 1, self._parts):
                expected = len(self._pieces) + 1
                self._forget()
                raise Conflict("part", f"expected part {expected} of {parts}, got {part}: send the file again "
                                       "from its first part", code="history.refused.part", params={"part": part})
            self._bytes += len(piece.encode("utf-8"))  # the body's reader let no lone surrogate through
            if self._bytes > MAX_UPLOAD_BYTES:
                self._forget()
                raise BadInput("history", f"larger than {MAX_UPLOAD_BYTES // 2**20} MiB: read it in on the table "
                                          "with `companion history import`",
                               code="history.refused.too_large", params={"mib": MAX_UPLOAD_BYTES // 2**20})
            self._pieces.append(piece)
            self._heard = now
            upload = self._upload
            if part < parts:
                return upload, None
            text = "".join(self._pieces)
            self._forget()
            return upload, text

    @staticmethod
    def _other_upload() -> Conflict:
        return Conflict("upload", "another phone is sending a history file (or this upload is over): "
                                  "send the file again from its first part once it is done",
                        code="history.refused.upload")
