"""A history file sent from a phone in pieces, and read in whole once the last is in.

No request body may be larger than the API needs (MAX_CONTENT_LENGTH), and a
history of many shows is, so the score pad sends its file in pieces, each
numbered `part` of `parts`. They are held in memory until the last arrives;
then the file is read in as if it had come in one body: all of it, or
nothing. One file is sent at a time: its first piece starts it afresh. Only
a request that passed the PIN gets here, so nobody else can fill the memory.
"""

import threading

from companion.errors import BadInput, Conflict

MAX_UPLOAD_BYTES = 16 * 2**20  # a history sent in pieces, held until its last one: thousands of shows
MAX_PIECES = MAX_UPLOAD_BYTES // 1024  # the page's pieces are some 5 KiB: a file at the limit takes far fewer
BODY_ROOM = 256  # bytes of a piece's body besides the piece itself: the field names and numbers


def piece_length(max_body: int) -> int:
    """The most UTF-16 code units of a file one piece may carry within a body of `max_body` bytes.

    JSON writes a unit in 6 bytes at most (a control character as \\u00XX;
    other text takes 1 to 3 bytes a unit).
    """
    return (max_body - BODY_ROOM) // 6


class Pieces:
    """The pieces of the file being sent, in order."""

    def __init__(self):
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._pieces: list[str] = []
        self._parts = 0
        self._bytes = 0

    def add(self, piece: str, part: int, parts: int) -> str | None:
        """Keep `piece`, part `part` of `parts` (part 1 starts a file afresh); the whole file once its last part is in.

        A part out of turn is refused and the file being sent is kept: it may be another phone's.
        """
        with self._lock:
            if part == 1:
                self._reset()
                self._parts = parts
            elif (part, parts) != (len(self._pieces) + 1, self._parts):
                raise Conflict("part", f"expected part {len(self._pieces) + 1} of {self._parts or '?'}, got {part} of "
                                       f"{parts}: send the file again from its first part",
                               code="history.refused.part", params={"part": part})
            self._bytes += len(piece.encode("utf-8"))  # the body's reader let no lone surrogate through
            if self._bytes > MAX_UPLOAD_BYTES:
                self._reset()
                raise BadInput("history", f"larger than {MAX_UPLOAD_BYTES // 2**20} MiB: read it in on the table "
                                          "with `companion history import`",
                               code="history.refused.too_large", params={"mib": MAX_UPLOAD_BYTES // 2**20})
            self._pieces.append(piece)
            if part < parts:
                return None
            text = "".join(self._pieces)
            self._reset()
            return text
