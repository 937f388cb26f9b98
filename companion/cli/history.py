"""`companion history export|import`: the table's whole history as one file, and that file read into a fresh table.

Moving to a new SD card loses nothing: export on the old table, import on
the new one. An import checks every line first, names the line and field of
a problem, and writes all of it in one transaction or nothing: a database
file the import itself made is removed again when the file is refused.
"""

import sys
import time
from pathlib import Path

from companion.cli.common import Refusal
from companion.cli.score import read_text
from companion.errors import BadInput

ORDER = 45  # place in `companion --help`


def _database(args) -> Path:
    from companion.config import load_config

    return Path(args.db or load_config(args.config).database)


def _store(database: Path):
    from companion.records import Store

    try:
        return Store(database)
    except OSError as e:
        raise Refusal(f"cannot use the database {database} ({e.strerror or e})", code=1) from None


def cmd_export(args) -> int:
    from companion.records.history import export_history

    store = _store(_database(args))
    try:
        text = export_history(store.database, wall=time.time())
    finally:
        store.close()
    if args.file == "-":
        sys.stdout.write(text)
    else:
        try:
            with open(args.file, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise Refusal(f"{args.file}: cannot write ({e.strerror or e})") from None
    return 0


def cmd_import(args) -> int:
    from companion.records import GameShelf
    from companion.table.games import KINDS
    from companion.records.history import import_history

    text = read_text(args.file)
    database = _database(args)
    made = not database.exists()
    store = _store(database)
    try:
        counts = import_history(store.database, text, GameShelf(store.database, KINDS))
    except BadInput as e:
        store.close()
        if made:  # nothing was written: leave no new empty file behind either
            for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
                path.unlink(missing_ok=True)
        raise Refusal(f"{args.file}: {e}") from None
    finally:
        store.close()  # closing twice is harmless
    print(", ".join(f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in counts.items() if n) or "nothing", "imported")
    return 0


def register(sub) -> None:
    history = sub.add_parser("history", help="export the table's whole history, or import it into a fresh table")
    verbs = history.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name, func, help_text in (("export", cmd_export, "write every record to FILE (- for stdout)"),
                                  ("import", cmd_import, "read FILE (- for stdin) into a fresh table")):
        verb = verbs.add_parser(name, help=help_text)
        verb.add_argument("file", metavar="FILE")
        verb.add_argument("--db", help="the table's SQLite file (default: the database of --config)")
        verb.add_argument("--config", help="config file (default /etc/companion/config.toml)")
        verb.set_defaults(func=func)
