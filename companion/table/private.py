"""The small secrets a table keeps beside its database (its drawn PIN, its setup code): files only it reads."""

import os
from pathlib import Path


def write_private(path: Path, text: str, *, owner_of: Path | None = None) -> None:
    """Write `text` to `path` with mode 600, atomically: a power cut leaves the old file or the new one.

    `owner_of`: as root (`sudo companion setup …`), the file goes to that folder's owner, so that the
    table's own user can read what root wrote for it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.new")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(text + "\n")
    if owner_of is not None and os.geteuid() == 0:
        folder = owner_of.stat()
        os.chown(tmp, folder.st_uid, folder.st_gid)
    os.replace(tmp, path)
