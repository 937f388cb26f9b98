"""A release uploaded on the maintenance page, handed from the daemon to the root side that installs it.

The daemon runs as its own user in a sandbox: it may never run pip nor write
/opt/companion. It checks an uploaded release file whole (companion.release_file),
then renames it into the drop folder `update/` of its state folder as
`release.tar`; `companion-update.path` sees it there and starts
`companion-update.service`, which runs `companion update --from-page` as root.
That takes the file away first, in one rename (so the path unit does not fire
again for it, and a second release handed over meanwhile waits under the
name for the unit's next start),
checks it again (it came from a less trusted user), installs it with the
backup, health check and rollback of every update, and writes what it did to
`update/status.json` for the page to show. The root side opens nothing in
the daemon's folder through a link. A table without the path unit (one run
by hand, not installed by install.sh) has nobody to take a release: it
refuses the upload before a byte is kept, and says how to update it instead.

>>> import tempfile, pathlib
>>> state = pathlib.Path(tempfile.mkdtemp())
>>> (state / DROP).mkdir()
>>> tell(state, "installing", "0.2.0-abc", "installing the release")
>>> told(state)["state"]
'installing'
"""

import json
import os
import stat
import sys
import time
from pathlib import Path

from companion import fields, jsonin, release
from companion.appliance.update import SAID, Said
from companion.appliance.upload import Upload
from companion.clock import iso
from companion.errors import BadInput, Conflict
from companion.release_file import MAX_RELEASE_BYTES, read_release, too_big

DROP = "update"  # in the state folder: the daemon's to write, the root side's to take from
WAITING = "release.tar"  # a checked release waiting for the root side
TAKEN = ".release.taken"  # the one the root side took, for the moment it reads it
# install.sh enables the path unit: this link is there on a table whose update service takes a waiting release.
UPDATE_WATCH = Path("/etc/systemd/system/multi-user.target.wants/companion-update.path")
STATUS = "status.json"  # what the root side did with it, for the page
STATES = ("waiting", "installing", "done", "rolled_back", "refused")
MAX_STATUS_BYTES = 4096  # a state, a release name, a line and its values
MAX_STATUS_LINE = 300  # the status's line: the last thing the update said
UPLOAD_NAME = ".release-upload"  # beside the database, while its pieces come in


class ReleaseUpload:
    """The daemon's side: a release file's pieces kept as they come, the whole checked, then handed over."""

    def __init__(self, state: Path, watch: Path = UPDATE_WATCH):
        self.state, self.watch = Path(state), Path(watch)
        self._upload = Upload(self.state, name=UPLOAD_NAME, limit=MAX_RELEASE_BYTES, too_big=too_big, field="release")

    def receive(self, piece: bytes, part: int, parts: int, size: int, upload: str | None) -> dict:
        """Keep a piece; once the last is in, check the whole release (a refusal names what is wrong, and nothing
        is kept) and hand it to the root side."""
        if part == 1 and not self.watch.exists():
            raise Conflict("release", "this table has no update service (companion-update.path) to install it: on "
                           "the table, run sudo companion update FILE", code="errors.update.no_service")
        upload, whole = self._upload.collect(piece, part, parts, size, upload)
        if whole is None:
            return {"upload": upload, "part": part}
        try:
            checked = read_release(whole)
        except BadInput:
            whole.unlink(missing_ok=True)
            raise
        hand_over(whole, self.state, checked.name)
        return {"update": "waiting", "release": checked.name, "version": checked.version}


def running_release(prefix: str = sys.prefix) -> tuple[str | None, Path | None]:
    """The release this program runs from and the folder of releases' home (None, None: not installed as one).
    Read as the daemon starts: `current` may point elsewhere a moment later, while this one still runs."""
    real = Path(os.path.realpath(prefix))
    return (real.name, real.parents[1]) if real.parent.name == "releases" else (None, None)


def versions(state: Path, running: str | None, home: Path | None, watch: Path = UPDATE_WATCH) -> dict:
    """What the page shows: the release running, the one before it (the way back), the last update's status,
    whether another release waits behind the one being installed, and whether an update service takes one."""
    update = told(state)
    waits = (Path(state) / DROP / WAITING).exists()
    return {"running": running, "previous": release.linked(home, "previous") if home else None, "update": update,
            "queued": waits and update is not None and update["state"] != "waiting", "service": Path(watch).exists()}


def hand_over(whole: Path, state: Path, release: str) -> None:
    """Rename a checked release file into the drop folder (in one step: the root side never sees half of it)."""
    drop = Path(state) / DROP
    drop.mkdir(mode=0o700, exist_ok=True)
    os.replace(whole, drop / WAITING)
    tell(state, "waiting", release, "waiting for the table's update service to install it")


def take(state: Path, into: Path, limit: int) -> Path | None:
    """Root's side: the waiting release copied into `into` (a folder of root's) and taken out of the drop folder;
    None when nothing waits. A link, a device, a pipe or a file over `limit` bytes is taken away unread.
    The file is renamed out of the waiting name before it is opened: one handed over meanwhile is never the one
    removed, and waits there for the next start."""
    try:
        folder = os.open(Path(state) / DROP, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        try:
            os.rename(WAITING, TAKEN, src_dir_fd=folder, dst_dir_fd=folder)  # taken: the path unit waits for the next
        except FileNotFoundError:
            return None
        try:
            fd = os.open(TAKEN, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
        except OSError:  # a link (ELOOP): taken away, never followed
            raise ValueError(f"{DROP}/{WAITING} is not a plain file: taken away unread") from None
        finally:
            try:
                os.unlink(TAKEN, dir_fd=folder)
            except FileNotFoundError:  # the daemon's user took it back: nothing to read
                pass
        with os.fdopen(fd, "rb") as source:
            seen = os.fstat(source.fileno())
            if not stat.S_ISREG(seen.st_mode) or seen.st_size > limit:
                raise ValueError(f"{DROP}/{WAITING} is not a plain file of at most {limit} bytes: taken away unread")
            target = Path(into) / WAITING
            with open(target, "xb") as out:
                out.write(source.read(limit + 1))  # bounded again: another link to the file could still grow it
            if target.stat().st_size > limit:
                raise ValueError(f"{DROP}/{WAITING} grew past {limit} bytes while it was read: refused")
            return target
    finally:
        os.close(folder)


def tell(state: Path, what: str, release: str | None, line: str | Said) -> None:
    """Write the update's status for the page, whole (renamed into place), never through a link in the folder:
    its line in English, and the line's code and values when it has them, for the page to say in its language."""
    try:  # the daemon's folder, made by it: root never makes it (the daemon could not write in it then)
        folder = os.open(Path(state) / DROP, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except (FileNotFoundError, NotADirectoryError):
        return
    record = {"state": what, "release": release, "line": str(line)[:MAX_STATUS_LINE], "at": iso(time.time())}
    if isinstance(line, Said):
        record.update(code=line.code, params={name: value[:MAX_STATUS_LINE] for name, value in line.params})
    scratch = f".{STATUS}.{os.getpid()}"
    try:
        try:
            os.unlink(scratch, dir_fd=folder)
        except FileNotFoundError:
            pass
        fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(record, out)
        os.replace(scratch, STATUS, src_dir_fd=folder, dst_dir_fd=folder)
    finally:
        os.close(folder)


def told(state: Path) -> dict | None:
    """The last status the update wrote (None: none, or one that does not read), for the page."""
    path = Path(state) / DROP / STATUS
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_STATUS_BYTES + 1)
        if len(raw) > MAX_STATUS_BYTES:
            return None
        record = fields.record(jsonin.parse(raw.decode("utf-8"), STATUS), STATUS,
                               ("state", "release", "line", "at", "code", "params"), ("state", "line", "at"))
        fields.choice(record["state"], fields.at(STATUS, "state"), STATES)
        if record.get("release") is not None:
            fields.line(record["release"], fields.at(STATUS, "release"), 80)
        fields.line(record["line"], fields.at(STATUS, "line"), MAX_STATUS_LINE)
        fields.instant(record["at"], fields.at(STATUS, "at"))
        if "code" in record:
            fields.choice(record["code"], fields.at(STATUS, "code"), SAID)
            values = fields.mapping(record.get("params", {}), fields.at(STATUS, "params"))
            for name, value in values.items():
                fields.line(value, fields.at(fields.at(STATUS, "params"), name), MAX_STATUS_LINE)
            if "why" in values:
                fields.choice(values["why"], fields.at(fields.at(STATUS, "params"), "why"), SAID)
    except (OSError, UnicodeDecodeError, BadInput):
        return None
    return record
