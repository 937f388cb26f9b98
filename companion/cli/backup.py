"""`companion backup FILE` and `companion restore FILE`: the table's config and database as one archive."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from companion.cli.common import Refusal

ORDER = 78  # place in `companion --help`: before update
UNIT = "companion.service"


def _config(args):
    from companion.config import load_config

    config = load_config(args.config)
    if config.path is None:
        raise Refusal("no config file: give it with --config")
    return config


def cmd_backup(args) -> int:
    import sqlite3

    from companion.appliance.backup import make_backup

    config = _config(args)
    try:
        data = make_backup(config.path, config.database)
    except OSError as e:
        raise Refusal(f"cannot read the table's files ({e.strerror or e}): run it as root (sudo)", code=1) from None
    except sqlite3.Error as e:  # the config names a file that is not the table's database
        raise Refusal(f"{config.database}: not a table database ({e}): nothing was backed up", code=1) from None
    if args.file == "-":
        sys.stdout.buffer.write(data)
        return 0
    target = Path(args.file)
    if not target.parent.is_dir():  # a mistyped path is refused, never made
        raise Refusal(f"{target}: no such folder {target.parent}")
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    except OSError as e:
        raise Refusal(f"{target}: cannot write it ({e.strerror or e})", code=1) from None
    # Through sudo, the archive is the owner's who asked for it, not root's.
    if os.geteuid() == 0 and os.environ.get("SUDO_UID", "").isdigit() and os.environ.get("SUDO_GID", "").isdigit():
        os.chown(target, int(os.environ["SUDO_UID"]), int(os.environ["SUDO_GID"]))
    if Path(config.database).is_file():
        print(f"backed the config {config.path} and the database {config.database} up to {target}")
    else:  # a table not started yet: say what the archive holds, not what it might have
        print(f"backed the config {config.path} up to {target}; no database yet ({config.database} is not there)")
    return 0


def cmd_restore(args) -> int:
    from companion.appliance.backup import MAX_BACKUP_BYTES, read_backup, restore, too_big
    from companion.records.holding import InUse

    source = Path(args.file)
    try:
        if source.stat().st_size > MAX_BACKUP_BYTES:  # refused before it is read
            raise too_big(source.stat().st_size)
        data = source.read_bytes()
    except OSError as e:
        raise Refusal(f"{source}: cannot read it ({e.strerror or e})") from None
    backup = read_backup(data)
    config = _config(args)
    running = _service_running()
    if running:
        subprocess.run(["systemctl", "stop", UNIT], check=True)
    try:
        replaced = restore(backup, config.path, config.database)
    except InUse as e:  # a daemon systemd does not run (or a command) has the file: it is not replaced under it
        raise Refusal(str(e), code=1) from None
    except OSError as e:
        raise Refusal(f"cannot restore ({e.strerror or e}): run it as root (sudo); nothing was replaced", code=1) \
            from None
    finally:
        if running:
            subprocess.run(["systemctl", "start", UNIT], check=False)
    print(f"restored the backup made {backup.made}: {', '.join(replaced)}"
          + ("; the service restarted on it" if running else ""))
    return 0


def _service_running() -> bool:
    """Whether the table's service runs here (it must stop while its files are replaced)."""
    if not Path("/run/systemd/system").is_dir() or shutil.which("systemctl") is None:
        return False
    return subprocess.run(["systemctl", "is-active", "--quiet", UNIT]).returncode == 0


def register(sub) -> None:
    backup = sub.add_parser("backup", help="the table's config (with its calibration) and database in one archive")
    backup.add_argument("file", metavar="FILE", help="the archive to write (.tar.gz; - writes to stdout)")
    backup.add_argument("--config", metavar="FILE", default="/etc/companion/config.toml",
                        help="the table's config (default /etc/companion/config.toml)")
    backup.set_defaults(func=cmd_backup)
    restore = sub.add_parser("restore", help="put a backup's config and database back (checked first: all or nothing)")
    restore.add_argument("file", metavar="FILE", help="an archive made by `companion backup` or the page")
    restore.add_argument("--config", metavar="FILE", default="/etc/companion/config.toml",
                         help="the table's config (default /etc/companion/config.toml)")
    restore.set_defaults(func=cmd_restore)
