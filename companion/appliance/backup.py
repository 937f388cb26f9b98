"""The table's data as one archive: its config (the glasses' calibration is in it) and its database.

A backup is a gzipped tar of three files: `companion-backup.json` (the
format, when it was made, and each file's SHA-256), `config.toml` and
`companion.sqlite3` (a consistent copy made with SQLite's own backup, while
the daemon runs). Reading one checks everything before anything is written:
its size, its members, the list's digests, the config through the config's
own reader and the database through the records' (it must open as a table
file this program can read, of its version's shape, resume as the table
would as it starts, and have every record read back as the history import
reads it); a refusal names what is wrong. Restoring
replaces the config and the database, each by a rename, only after both are
written beside them.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "config.toml").write_text('[table]\\nname = "Kitchen"\\n')
>>> backup = read_backup(make_backup(folder / "config.toml", folder / "none.sqlite3"))
>>> backup.config.decode()
'[table]\\nname = "Kitchen"\\n'
"""

import contextlib
import hashlib
import io
import json
import os
import sqlite3
import tarfile
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from companion import fields
from companion.archives import plain_headers
from companion.clock import iso
from companion.errors import BadInput
from companion.records.copies import check_table_file, snapshot
from companion.records.holding import InUse, replacing

MAX_BACKUP_BYTES = 64 * 1024 * 1024  # an archive larger than this is refused unread (a table's is a few MB)
MAX_UNPACKED_BYTES = 4 * MAX_BACKUP_BYTES  # what its files may hold once unpacked: no archive bomb fills a card
KEPT_BACKUPS = 5  # the backups an update keeps in the backups folder, newest first
FORMAT = 1
MANIFEST, CONFIG, DATABASE = "companion-backup.json", "config.toml", "companion.sqlite3"
FIELD = "backup"  # the path a refusal names: backup.config.toml, backup.companion-backup.json.files, ...


@dataclass(frozen=True)
class Backup:
    """A backup read and checked: the config's and the database's bytes (None: the table had none yet)."""

    made: str
    config: bytes | None
    database: bytes | None


def backups_folder(database: Path) -> Path:
    """Where an update keeps its backups: beside the database, in the state folder."""
    return Path(database).parent / "backups"


def make_backup(config: Path | None, database: Path, *, now: float | None = None) -> bytes:
    """The archive of the config file and the database (either may be missing on a new table)."""
    files = {}
    if config is not None and Path(config).is_file():
        files[CONFIG] = Path(config).read_bytes()
    if Path(database).is_file():
        files[DATABASE] = snapshot(Path(database))
    return _pack(files, iso(time.time() if now is None else now))


def database_alone(backup: Backup) -> bytes:
    """The archive of a checked backup's database alone: what a player with the PIN may restore (the scores),
    without the config (the table's PIN, hosts and broker are the owner's to change)."""
    return _pack({DATABASE: backup.database} if backup.database is not None else {}, backup.made)


def _pack(files: dict[str, bytes], made: str) -> bytes:
    manifest = {"format": FORMAT, "made": made,
                "files": {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in [(MANIFEST, json.dumps(manifest, indent=1).encode()), *files.items()]:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o600, 0
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def read_backup(data: bytes) -> Backup:
    """`data` as a checked backup, or BadInput naming what is wrong with it (nothing is written)."""
    if len(data) > MAX_BACKUP_BYTES:
        raise too_big(len(data))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz", tarinfo=_PlainFileHeader) as tar:
            files = _members(tar)
    except (tarfile.TarError, EOFError, OSError, UnicodeDecodeError):
        raise BadInput(FIELD, "not a table backup (not a .tar.gz archive)", code="errors.backup.not_archive") from None
    if MANIFEST not in files:
        raise BadInput(FIELD, f"not a table backup (no {MANIFEST} in it)", code="errors.backup.not_archive")
    manifest = _manifest(files.pop(MANIFEST))
    listed = manifest["files"]
    for name in sorted(set(files) | set(listed)):
        if name not in files or name not in listed or hashlib.sha256(files[name]).hexdigest() != listed[name]:
            raise BadInput(fields.at(FIELD, name), "does not match the backup's list of files: the archive was "
                           "changed after it was made", code="errors.backup.changed", params={"file": name})
    if CONFIG in files:
        _check_config(files[CONFIG])
    if DATABASE in files:
        _check_database(files[DATABASE])
    return Backup(made=manifest["made"], config=files.get(CONFIG), database=files.get(DATABASE))


def too_big(size: int) -> BadInput:
    return BadInput(FIELD, f"{size} bytes is larger than a backup can be ({MAX_BACKUP_BYTES} bytes)",
                    code="errors.backup.too_big", params={"limit": MAX_BACKUP_BYTES})


def _not_held(name: str) -> BadInput:
    return BadInput(fields.at(FIELD, name), "not a file a table backup holds (it holds "
                    f"{MANIFEST}, {CONFIG} and {DATABASE}, each once)", code="errors.backup.member",
                    params={"file": name})


# The table's own backups hold plain file headers only (names in ASCII, sizes small): any other is refused unread.
_PlainFileHeader = plain_headers(_not_held)


def _members(tar: tarfile.TarFile) -> dict[str, bytes]:
    found, unpacked = {}, 0
    for member in tar:
        if member.name not in (MANIFEST, CONFIG, DATABASE) or not member.isfile() or member.name in found:
            raise _not_held(member.name)
        unpacked += member.size
        if unpacked > MAX_UNPACKED_BYTES:
            raise too_big(unpacked)
        found[member.name] = tar.extractfile(member).read()
    return found


def _manifest(raw: bytes) -> dict:
    where = fields.at(FIELD, MANIFEST)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BadInput(where, "not JSON", code="errors.backup.manifest") from None
    record = fields.record(data, where, ("format", "made", "files"), ("format", "made", "files"))
    fields.choice(record["format"], fields.at(where, "format"), (FORMAT,))
    fields.instant(record["made"], fields.at(where, "made"))
    listed = fields.mapping(record["files"], fields.at(where, "files"))
    for name, digest in listed.items():
        fields.choice(name, fields.at(where, "files"), (CONFIG, DATABASE))
        fields.line(digest, fields.at(fields.at(where, "files"), name), 64)
    return record


def _check_config(raw: bytes) -> None:
    """The config as `companion run` would read it: a refusal names its key, under backup.config.toml."""
    from companion.config import parse_config

    where = fields.at(FIELD, CONFIG)
    try:
        parse_config(tomllib.loads(raw.decode("utf-8")), None)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise BadInput(where, f"not a TOML config ({e})", code="errors.backup.config") from None
    except BadInput as e:
        raise e.within(where) from None


def _check_database(raw: bytes) -> None:
    """The database opens as a table file of a version this program reads and of its shape, and every record
    in it reads back as the history import reads it (the API's own checks): a table restored from it starts,
    and its history can be moved to another table. Checked on a copy: nothing is changed."""
    where = fields.at(FIELD, DATABASE)
    try:
        check_table_file(raw, _records_read_back)
    except BadInput as e:
        raise BadInput(where, f"holds a record the table would refuse ({e})", code="errors.backup.database",
                       params={"reason": str(e)}) from None
    except (sqlite3.Error, ValueError, TypeError) as e:  # a row that does not even export (not JSON, not text)
        raise BadInput(where, f"not a table database this program can read ({e})",
                       code="errors.backup.database", params={"reason": str(e)}) from None


def _records_read_back(copy: Path) -> None:
    """What the table does as it starts (resume the show that was running, or set it aside), then the history
    export read back, the running show's as it will be once it ends: a start that would fail, or a record that
    would not move, refuses the backup."""
    from companion.records import GameShelf, Store
    from companion.records.history import export_history, read_history
    from companion.table.games import KINDS
    from companion.table.recovery import resume

    store = Store(copy)
    try:
        resumed = resume(store, 0.0)
        if resumed is not None:  # ended, on the copy, as it will be one day: then it is exported with the rest
            store.set_aside(resumed.show_id)
        read_history(export_history(store.database, wall=0.0), GameShelf(store.database, KINDS))
    finally:
        store.close()


def restore(backup: Backup, config: Path | None, database: Path) -> list[str]:
    """Put a checked backup's files in place of the table's; what was replaced. InUse (nothing replaced) while
    any program has the database open: a daemon writing to the old file would lose what it wrote.

    Both files are written beside their places first; only then is each renamed over the old one, so a
    disk that refuses leaves the table as it was."""
    staged = [(data, Path(path)) for data, path in ((backup.config, config), (backup.database, database))
              if data is not None and path is not None]
    written = []
    Path(database).parent.mkdir(parents=True, exist_ok=True)
    try:
        with replacing(database):
            for data, path in staged:
                written.append((_beside(path, data), path))
            replaced = []
            for new, path in written:
                if path.name == Path(database).name:
                    for side in ("-wal", "-shm", "-journal"):  # the old file's: they would be read into the new one
                        Path(f"{path}{side}").unlink(missing_ok=True)
                os.replace(new, path)
                replaced.append(str(path))
            return replaced
    finally:
        for new, _ in written:
            new.unlink(missing_ok=True)


def _beside(path: Path, data: bytes) -> Path:
    """`data` in a new file beside `path`, with the mode and owner of the file it will replace (or its folder's)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    like = path.stat() if path.exists() else None
    folder = path.parent.stat()
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.restore-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(name, like.st_mode & 0o7777 if like else 0o640)
    owner = (like.st_uid, like.st_gid) if like else (folder.st_uid, folder.st_gid)
    if owner != (os.getuid(), os.getgid()):
        with contextlib.suppress(PermissionError):
            os.chown(name, *owner)  # root restores files the daemon's user still owns
    return Path(name)


def keep_newest(folder: Path, kept: int = KEPT_BACKUPS) -> list[Path]:
    """Remove all but the `kept` newest backups in `folder` (named by their time, so the newest sort last)."""
    backups = sorted(Path(folder).glob("companion-backup-*.tar.gz"))
    gone = backups[:-kept] if kept else backups
    for path in gone:
        path.unlink()
    return gone


def backup_name(now: float) -> str:
    """The file name of a backup made at `now` (wall clock): it sorts by time.

    >>> backup_name(0)
    'companion-backup-19700101T000000Z.tar.gz'
    """
    return "companion-backup-" + iso(now).replace("-", "").replace(":", "") + ".tar.gz"


PENDING_NAME = "restore-pending.tar.gz"  # a backup restored from the page, put in place at the next start


def pending_path(database: Path) -> Path:
    return Path(database).parent / PENDING_NAME


def stage_pending(data: bytes, database: Path) -> Path:
    """Keep a checked backup beside the database, for the next start to put in place (written whole, renamed)."""
    path = pending_path(database)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{PENDING_NAME}.")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(name, path)
    return path


def apply_pending(config) -> str | None:
    """Put a backup staged by the page in place of the table's files, before the table opens them; what it did,
    in a line for the journal (None: nothing was waiting). A backup that no longer reads is set aside."""
    path = pending_path(config.database)
    if not path.is_file():
        return None
    try:
        backup = read_backup(path.read_bytes())
    except BadInput as e:
        path.replace(path.with_name("restore-refused.tar.gz"))
        return f"the backup waiting to be restored was refused and set aside as restore-refused.tar.gz: {e}"
    try:
        restore(backup, config.path, config.database)
    except InUse as e:  # another program has the file: it stays waiting, the table starts on its files as they are
        return f"the backup waiting to be restored stays waiting: {e}"
    except OSError as e:  # never a table that cannot start for a backup it cannot write: it starts as it was
        path.replace(path.with_name("restore-refused.tar.gz"))
        return f"the backup waiting to be restored could not be written ({e.strerror or e}): set aside as " \
               "restore-refused.tar.gz, the table starts on its files as they were"
    path.unlink()
    return f"restored the backup made {backup.made} (config and database) before starting"
