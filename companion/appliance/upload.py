"""A file sent from a phone in pieces (a backup, a release), kept in a file beside the database until its last
piece is in.

No request body may be larger than the web's API needs, and a backup is,
so the page sends it in pieces of raw bytes, each numbered `part`
of `parts`, the first one saying the whole file's size: a size over the
limit is refused before a byte is kept. The first piece starts an upload
(any earlier one is given up) and its answer gives its id, which every later
piece carries; a piece of another upload, out of turn, or beyond the size
announced ends the upload. One upload at a time of each kind: the owner's.
"""

import os
import secrets
import threading
from pathlib import Path

from companion.appliance.backup import MAX_BACKUP_BYTES, database_alone, read_backup, stage_pending, too_big
from companion.errors import BadInput, Conflict

UPLOAD_NAME = ".restore-upload"  # beside the database: the one folder the daemon may write besides its config


class Upload:
    """The upload in progress (at most one): its id, its size, the pieces kept so far in its file."""

    def __init__(self, folder: Path, *, name: str = UPLOAD_NAME, limit: int = MAX_BACKUP_BYTES, too_big=too_big,
                 field: str = "backup", new_id=lambda: secrets.token_urlsafe(12)):
        self.folder = Path(folder)
        self.path = self.folder / name
        self._limit, self._too_big, self._field = limit, too_big, field  # what it takes: a backup, or a release
        self._lock, self._new_id = threading.Lock(), new_id
        self._id: str | None = None
        self._size = self._kept = self._part = self._parts = 0

    def receive(self, piece: bytes, part: int, parts: int, size: int, upload: str | None, *,
                with_config: bool = False) -> dict:
        """Keep a piece; once the last is in, check the whole backup (a refusal names what is wrong, and nothing
        is kept) and keep it for the next start to put in place: its config too only `with_config` (the owner's
        key), else its database alone."""
        upload, whole = self.add(piece, part, parts, size, upload)
        if whole is None:
            return {"upload": upload, "part": part}
        backup = read_backup(whole)
        stage_pending(whole if with_config else database_alone(backup), self.folder / "database")
        return {"restore": "pending", "made": backup.made,
                "config": "restored" if with_config and backup.config is not None else "kept"}

    def add(self, piece: bytes, part: int, parts: int, size: int, upload: str | None) -> tuple[str, bytes | None]:
        """Keep `piece` (part `part` of `parts` of a file of `size` bytes); the upload's id, and the whole file
        once its last piece is in."""
        upload, whole = self.collect(piece, part, parts, size, upload)
        if whole is None:
            return upload, None
        try:
            return upload, whole.read_bytes()
        finally:
            whole.unlink(missing_ok=True)

    def collect(self, piece: bytes, part: int, parts: int, size: int, upload: str | None) -> tuple[str, Path | None]:
        """As `add`, the whole file left on disk once its last piece is in (a release is never held in memory):
        its path, the caller's to take away."""
        with self._lock:
            if part == 1:
                if size > self._limit:
                    raise self._too_big(size)
                self._give_up()
                self._id, self._size, self._parts = self._new_id(), size, parts
                self.path.write_bytes(b"")
            elif upload is None or upload != self._id or (part, parts) != (self._part + 1, self._parts):
                self._give_up()
                raise Conflict("part", f"this piece is not the next one of the upload: send the {self._field} again",
                               code="errors.backup.part")
            if self._kept + len(piece) > self._size:
                self._give_up()
                raise BadInput(self._field, f"more bytes than the {self._size} announced: send the {self._field} "
                               "again", code="errors.backup.size", params={"size": self._size})
            with self.path.open("ab") as f:
                f.write(piece)
            self._kept += len(piece)
            self._part = part
            upload = self._id
            if part < parts:
                return upload, None
            whole = self.path.with_name(f"{self.path.name}.whole")
            os.replace(self.path, whole)
            self._give_up()
            return upload, whole

    def _give_up(self) -> None:
        self.path.unlink(missing_ok=True)
        self._id, self._size, self._kept, self._part, self._parts = None, 0, 0, 0, 0
