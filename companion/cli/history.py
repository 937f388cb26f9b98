"""`companion history export|import`: the table's whole history as one file, and that file read into a fresh table.

Moving to a new SD card loses nothing: export on the old table, import on
the new one. An import checks every line first, names the line and field of
a problem, and writes all of it in one transaction or nothing: a database
file the import itself made is removed again when the file is refused.
"""

import os
import sqlite3
import sys
import time
from pathlib import Path

from companion.cli.common import Refusal
from companion.cli.score import read_text
from companion.errors import BadInput

ORDER = 45  # place in `companion --help`


def _database(args, *, may_make: bool) -> Path:
    """The database `--db` or the config names: one that is there (an export), or one whose folder is there
    (an import may make the file) — a mistyped path is refused, never made."""
    from companion.config import load_config

    database = Path(args.db or load_config(args.config).database)
    where = "--db" if args.db else "the config's table.database"
    if not may_make and not database.is_file():
        raise Refusal(f"{database}: no such database ({where})")
    if may_make and not database.parent.is_dir():
        raise Refusal(f"{database}: no such folder {database.parent} ({where})")
    return database


def _store(database: Path):
    from companion.records import Store

    try:
        return Store(database)
    except sqlite3.DatabaseError as e:  # the file is there, but not a table's database
        raise Refusal(f"{database}: not a database the table can use ({e})") from None
    except (sqlite3.Error, OSError) as e:
        raise Refusal(f"cannot use the database {database} ({getattr(e, 'strerror', None) or e})", code=1) from None


def cmd_export(args) -> int:
    """The history written as it is read, a piece at a time (10 000 shows are not held whole); to a file, under a
    name of its own until the last piece is in, so a failed export leaves no half file where the whole one goes."""
    from companion.records.history import history_pieces

    database = _database(args, may_make=False)
    store = _store(database)
    scratch = None
    try:
        if args.file == "-":
            for piece in history_pieces(store.database, wall=time.time()):
                sys.stdout.write(piece)
            return 0
        target = Path(args.file)
        scratch = target.with_name(f".{target.name}.partial")
        try:
            with open(scratch, "w", encoding="utf-8") as f:
                for piece in history_pieces(store.database, wall=time.time()):
                    f.write(piece)
            os.replace(scratch, target)
        except OSError as e:
            raise Refusal(f"{args.file}: cannot write ({e.strerror or e})") from None
        scratch = None
    except sqlite3.DatabaseError as e:
        raise Refusal(f"{database}: not a database the table can use ({e})") from None
    finally:
        store.close()
        if scratch is not None:
            scratch.unlink(missing_ok=True)
    return 0


def cmd_import(args) -> int:
    from companion.records import GameShelf
    from companion.table.games import KINDS
    from companion.records.history import import_history

    text = read_text(args.file)
    database = _database(args, may_make=True)
    made = not database.exists()
    done = False
    try:
        store = _store(database)
        try:
            counts = import_history(store.database, text, GameShelf(store.database, KINDS))
        except BadInput as e:
            raise Refusal(f"{args.file}: {e}") from None
        except sqlite3.DatabaseError as e:
            raise Refusal(f"{database}: not a database the table can use ({e})") from None
        finally:
            store.close()
        done = True
    finally:
        if made and not done:  # nothing was written: leave no new empty file behind either
            from companion.records.holding import SUFFIX

            for path in (database, *(Path(f"{database}{side}") for side in ("-wal", "-shm", SUFFIX))):
                path.unlink(missing_ok=True)
    print(", ".join(f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in counts.items() if n) or "nothing", "imported")
    return 0


def register(sub) -> None:
    history = sub.add_parser("history", help="export the table's whole history, or import it into a fresh table")
    verbs = history.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name, func, help_text in (("export", cmd_export, "write every record to FILE (- for stdout)"),
                                  ("import", cmd_import, "read FILE (- for stdin) into a fresh table")):
        verb = verbs.add_parser(name, help=help_text)
        verb.add_argument("file", metavar="FILE")
        where = verb.add_mutually_exclusive_group()  # the one database: named, or the one a config names
        where.add_argument("--db", metavar="FILE", help="the table's SQLite file (default: the database of --config)")
        where.add_argument("--config", metavar="FILE", help="config file (default /etc/companion/config.toml)")
        verb.set_defaults(func=func)
