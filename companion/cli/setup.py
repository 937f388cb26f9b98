"""`companion setup`: whether the table is set up, opening its setup page again (`--reopen`), a new PIN."""

from contextlib import contextmanager

from companion.cli.common import Refusal

ORDER = 25  # place in `companion --help`: after check-hw and calibrate


def cmd_setup(args) -> int:
    from companion.config import load_config, load_or_fresh

    # A file named on the command line must be there (a typo is not a new table); the default one may not be yet.
    config = load_config(args.config) if args.config else load_or_fresh(None)
    _check_database(config.database)
    if args.new_pin:
        return _new_pin(config)
    if args.reopen:
        return _reopen(config)
    state = "set up" if config.set_up else "not set up: its setup page opens for the setup code on its start-up lines"
    print(f"{config.path}: {state}")
    return 0


def _check_database(database) -> None:
    """The config's database is where a table keeps it: a table file, or none yet in a folder that is there.

    The code and the PIN are kept beside it, so a mistyped path is refused, never made."""
    import sqlite3
    from pathlib import Path

    from companion.records.copies import file_version

    path = Path(database)
    if str(database) == ":memory:":
        raise Refusal("the config keeps its database in memory: there is no table to set up here")
    if path.is_dir():
        raise Refusal(f"{path}: is a folder, not the table's database: check database = in the config")
    if not path.parent.is_dir():
        raise Refusal(f"{path}: no such folder {path.parent}: check database = in the config")
    try:
        file_version(path)
    except sqlite3.Error as e:
        raise Refusal(f"{path}: not a table database ({e})", code=1) from None


def _reopen(config) -> int:
    """Draw the code here and keep it where the table reads it, so the owner has it at once."""
    from companion.config import mark_set_up
    from companion.table.firstrun import grouped, keep_code, kept_code_file, new_code

    code, kept = new_code(), kept_code_file(config)
    with _writing(config.path):
        keep_code(kept, code, owner_of=kept.parent)
        mark_set_up(config, False)
    print(f"{config.path}: setup reopened. Open /setup/ on a phone and enter the setup code {grouped(code)}")
    print("A running table takes it at once (its screen and journal show it too); a stopped one at its next start.")
    return 0


def _new_pin(config) -> int:
    from companion.table.door import KEPT_PIN_FILE, KeptPin

    if config.web.pin is not None:
        raise Refusal(f"{config.path}: the PIN is set in the config ([web] pin): change it on the setup page",
                      code=1)
    kept = config.database.parent / KEPT_PIN_FILE
    with _writing(kept):
        pin = KeptPin(kept).renew(owner_of=kept.parent)
    print(f"The table PIN is now {pin}: a running table takes it at once, and every phone unlocks again.")
    return 0


@contextmanager
def _writing(path):
    """A file this user may not write is a one-line refusal, never a traceback."""
    try:
        yield
    except PermissionError as e:
        raise Refusal(f"{path}: cannot write it ({e.strerror}): run it as the table's user "
                      "(the `companion` command does) or with sudo", code=1) from None


def register(sub) -> None:
    setup = sub.add_parser("setup", help="say whether the table is set up; --reopen opens its setup page again")
    setup.add_argument("--config", metavar="FILE", help="config file (default /etc/companion/config.toml)")
    what = setup.add_mutually_exclusive_group()
    what.add_argument("--reopen", action="store_true",
                      help="open the setup page again behind a new setup code, printed at once")
    what.add_argument("--new-pin", action="store_true",
                      help="draw a new table PIN (kept across restarts); phones unlock again with it")
    setup.set_defaults(func=cmd_setup)
