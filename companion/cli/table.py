"""`companion demo` and `companion run`: the table, served to the phones."""

import signal
import sqlite3
import tempfile
import threading
from pathlib import Path

from companion.cli.common import Refusal

NO_MDNS_HELP = "do not announce the table on mDNS (_http._tcp); phones still open its address"


def cmd_demo(args) -> int:
    from companion.table import demo_table

    db = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="companion-demo-")) / "companion.sqlite3"
    table = _open_table(db, lambda: demo_table(db, speed=args.speed, pin=args.pin))
    print(f"Hourglass table companion demo: mock pins, six LED-emulated hourglasses, database {db}")
    return _serve(table, args.host, args.port, mdns=not args.no_mdns)


def cmd_run(args) -> int:
    from companion.config import load_config
    from companion.hardware.pins import HardwareUnavailable, open_pin_factory
    from companion.store import Store
    from companion.table import Table

    config = load_config(args.config)
    try:
        pin_factory = open_pin_factory(args.mock)
    except HardwareUnavailable as e:
        raise Refusal(str(e), code=1) from None
    table = _open_table(config.database, lambda: Table(config, Store(config.database), pin_factory))
    host = args.host or config.web.host
    port = args.port or config.web.port
    return _serve(table, host, port, mdns=not args.no_mdns)


def _open_table(database: Path, make):
    """The table, or one line on why it cannot be opened (exit 1)."""
    from companion.hardware.strip import StripUnavailable

    try:
        return make()
    except StripUnavailable as e:
        raise Refusal(str(e), code=1) from None
    except (sqlite3.Error, OSError) as e:
        raise Refusal(f"cannot use the database {database} ({getattr(e, 'strerror', None) or e})", code=1) from None


def _serve(table, host: str, port: int, *, mdns: bool = True) -> int:
    from companion.notify import keep_watchdog_fed, notify
    from companion.web.address import Advertisement, Listening, lan_addresses, mdns_name
    from companion.web.server import make_server, shut_down

    try:
        server = make_server(table, host, port)
    except OSError as e:
        table.stop()
        raise Refusal(f"cannot listen on {host}:{port} ({e.strerror or e}): try another --port", code=1) from None
    listening = Listening(host, server.effective_port)
    table.listening = (listening.host, listening.port)
    table.start()
    signal.signal(signal.SIGTERM, _interrupt)  # systemctl stop: shut down as cleanly as Ctrl-C
    stop = threading.Event()
    advert = None
    try:
        addresses = lan_addresses()
        advert = Advertisement(listening, addresses).start() if mdns else None
        for line in listening.startup_lines(addresses, mdns_name() if mdns else None, table.pin):
            print(line, flush=True)  # on stdout, so `journalctl -u companion` shows the address too
        notify("READY=1")
        keep_watchdog_fed(table.alive, stop)
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        notify("STOPPING=1")
        stop.set()
        if advert is not None:
            advert.close()
        shut_down(server)
        table.stop()
    return 0


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def register(sub) -> None:
    demo = sub.add_parser("demo", help="run the table on mock pins with six LED-emulated hourglasses")
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=8000)
    demo.add_argument("--pin", help="the table PIN (default: a fresh one)")
    demo.add_argument("--speed", type=float, default=1.0, help="run the show clock this many times faster")
    demo.add_argument("--db", help="SQLite file (default: a fresh one)")
    demo.add_argument("--no-mdns", action="store_true", help=NO_MDNS_HELP)
    demo.set_defaults(func=cmd_demo)

    run = sub.add_parser("run", help="run the table daemon")
    run.add_argument("--config", help="config file (default /etc/companion/config.toml)")
    run.add_argument("--mock", action="store_true", help="use mock pins (no GPIO needed)")
    run.add_argument("--host")
    run.add_argument("--port", type=int)
    run.add_argument("--no-mdns", action="store_true", help=NO_MDNS_HELP)
    run.set_defaults(func=cmd_run)
