"""`companion hall`: every table on a broker on one page, live, with a leaderboard across them."""

import argparse
import sqlite3
import tomllib
from dataclasses import replace
from pathlib import Path

from companion.cli.common import Refusal, checked_option

DEFAULT_URL = "mqtt://127.0.0.1:1883"
DEFAULT_DB = Path.home() / ".local" / "state" / "companion" / "hall.sqlite3"

ORDER = 70  # place in `companion --help`


def broker_settings(args):
    """The broker from `--config`'s [mqtt] section (credentials, TLS, base) and/or `--mqtt URL`."""
    from companion.mqtt.settings import check_base, from_url, parse_section

    if args.config is None:
        return from_url(args.mqtt or DEFAULT_URL, "--mqtt", base=check_base(args.base or "companion", "--base"))
    try:
        data = tomllib.loads(Path(args.config).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise Refusal(f"{args.config}: cannot read it as TOML ({getattr(e, 'strerror', None) or e})") from None
    if "mqtt" not in data:
        raise Refusal(f"{args.config}: mqtt: missing (the hall reads its broker from the [mqtt] section)")
    settings = parse_section(data["mqtt"])
    if args.mqtt:
        url = from_url(args.mqtt, "--mqtt")
        settings = replace(settings, host=url.host, port=url.port, tls=url.tls)
    return replace(settings, base=check_base(args.base, "--base")) if args.base else settings


def cmd_hall(args) -> int:
    from companion.mqtt.hall import Hall, create_hall_app
    from companion.mqtt.hall.board import Leaderboard
    from companion.mqtt.hall.listener import HallListener
    from companion.web.server import bound_port, make_server, shut_down, stop_on_signals

    settings = broker_settings(args)
    db = Path(args.db) if args.db else DEFAULT_DB
    if args.db and not db.parent.is_dir():  # a mistyped path is refused, never made (the default's folder is)
        raise Refusal(f"{db}: no such folder {db.parent} (--db)")
    try:
        board = Leaderboard(db)
    except (sqlite3.Error, OSError) as e:
        raise Refusal(f"cannot use the database {db} ({getattr(e, 'strerror', None) or e})", code=1) from None
    hall = Hall(board.rows())
    try:
        server = make_server(None, args.host, args.port, app=create_hall_app(hall))
    except OSError as e:
        board.close()
        raise Refusal(f"cannot listen on {args.host}:{args.port} ({e.strerror or e}): try another --port",
                      code=1) from None
    listener = HallListener(settings, hall, board).start()
    shown_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"The hall of {settings.url} is on http://{shown_host}:{bound_port(server)}/ . Ctrl-C stops.",
          flush=True)
    stop_on_signals(server)  # systemctl stop and Ctrl-C: the loop ends, then everything stops in order
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        shut_down(server)
        listener.stop()
        board.close()
    return 0


def register(sub) -> None:
    hall = sub.add_parser("hall", help="a page with every table on a broker, live, and a leaderboard")
    hall.add_argument("--mqtt", metavar="URL", help=f"the broker (default {DEFAULT_URL})")
    hall.add_argument("--config", metavar="FILE",
                      help="a file whose [mqtt] section gives the broker, username, password_file, CA")
    hall.add_argument("--base", metavar="BASE", help="the topic prefix the tables use (default companion)")
    hall.add_argument("--host", default="127.0.0.1", metavar="H", type=checked_option("check_host", "--host"),
                      help="address to serve on (0.0.0.0: every network)")
    hall.add_argument("--port", default=8100, metavar="P", type=checked_option("check_port", "--port"),
                      help="port to serve on (default 8100; 0: any free one)")
    hall.add_argument("--db", metavar="FILE", help=f"the leaderboard's SQLite file (default {DEFAULT_DB})")
    hall.set_defaults(func=cmd_hall)
    register_remove(hall)


def register_remove(hall) -> None:
    """`companion hall [--db FILE] remove TABLE`: the hall's owner (who holds its file) takes a table off."""
    actions = hall.add_subparsers(dest="action", metavar="remove TABLE")
    remove = actions.add_parser("remove", help="take a table off the hall: its card and standings go, and its "
                                               "shows count no more (a running hall follows within seconds)")
    remove.add_argument("table", help="the table's name on the broker")
    remove.add_argument("--db", default=argparse.SUPPRESS, metavar="FILE", help="the hall's file, here too (default: as above)")
    remove.set_defaults(func=cmd_hall_remove)


def cmd_hall_remove(args) -> int:
    from companion.mqtt.hall.board import Leaderboard
    from companion.mqtt.topics import NAME_PATTERN

    if not NAME_PATTERN.fullmatch(args.table):
        raise Refusal(f"remove: {args.table!r} is not a table's name on the broker")
    db = Path(args.db) if args.db else DEFAULT_DB
    if not db.is_file():  # a mistyped --db makes no new file
        raise Refusal(f"--db: no hall file at {db}")
    try:
        board = Leaderboard(db)
    except (sqlite3.Error, OSError) as e:
        raise Refusal(f"cannot use the database {db} ({getattr(e, 'strerror', None) or e})", code=1) from None
    try:
        new = board.remove(args.table)
    finally:
        board.close()
    print(f"{args.table} is off the hall of {db}." if new else f"{args.table} was off the hall of {db} already.")
    return 0
