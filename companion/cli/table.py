"""`companion demo` and `companion run`: the table, served to the phones."""

import os
import sqlite3
import tempfile
import threading
from pathlib import Path

from companion.cli.common import MOCK_HELP, Refusal, checked_option
from companion.clock import MAX_SPEED, MIN_SPEED
from companion import fields
from companion.errors import BadInput
from companion.startup import collector_paused, settled

ORDER = 10  # place in `companion --help`
SERVICE_STOP = "sudo systemctl stop companion stops it."
DEMO_CONFIG = ".demo.toml"  # after the database's name: each kept demo database has its own setup


NO_MDNS_HELP = "do not announce the table on mDNS (_http._tcp); phones still open its address"


def cmd_demo(args) -> int:
    if args.db:
        db = Path(args.db)
        if not db.parent.is_dir():  # a mistyped path is refused, never made
            raise Refusal(f"{db}: no such folder {db.parent} (--db)")
        if db.is_dir():
            raise Refusal(f"{db}: a folder, not a database file (--db)", code=1)
        return _kept_demo(args, db)
    # A fresh database lives only as long as the demo: its folder goes when the demo stops, however it stops.
    with tempfile.TemporaryDirectory(prefix="companion-demo-") as folder:
        return _demo(args, Path(folder) / "companion.sqlite3")


def _kept_demo(args, db: Path) -> int:
    """A demo on a database the user named: a refused start leaves none of the files it made."""
    made = [path for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), _config_of(db)) if not path.exists()]
    try:
        return _demo(args, db)
    except Refusal:
        for path in made:
            path.unlink(missing_ok=True)
        raise


def _config_of(db: Path) -> Path:
    """The demo's config file: beside its database, named after it (two kept demos in a folder, two setups)."""
    return db.with_name(db.name + DEMO_CONFIG)


def _demo(args, db: Path) -> int:
    with collector_paused():  # until the table serves (companion.startup)
        return _demo_table(args, db)


def _demo_table(args, db: Path) -> int:
    from companion.appliance.keeping import Backups
    from companion.table import demo_table

    mqtt = _broker(args)
    # Its config file lies beside its database, not set up yet: the setup page can be walked on the demo.
    config_path = _config_of(db)
    try:
        table = _open_table(db, lambda: demo_table(db, speed=args.speed, pin=args.pin, config_path=config_path,
                                                   keeping=Backups()))
    except BadInput as e:  # a demo config kept with --db and edited by hand
        raise Refusal(f"{config_path}: {e}") from None
    print(f"Hourglass table companion demo: mock pins, six LED-emulated hourglasses, database {db}")
    return _serve(table, args.host, args.port, mqtt, mdns=not args.no_mdns)


def cmd_run(args) -> int:
    with collector_paused():  # until the table serves (companion.startup)
        return _run(args)


def _run(args) -> int:
    from companion.appliance.backup import apply_pending
    from companion.appliance.keeping import Backups
    from companion.config import load_config, load_or_fresh
    from companion.hardware.pins import HardwareUnavailable, open_pin_factory
    from companion.records import Store
    from companion.table import Table

    # A file named on the command line must be there; with none named and no default file yet, the
    # defaults run and the setup page writes the default file.
    config = load_config(args.config) if args.config else load_or_fresh(None)
    if restored := apply_pending(config):  # a backup restored from the page, put in place before the table opens
        print(restored, flush=True)
        config = load_config(config.path) if config.path else config
    if config.mqtt:
        config.mqtt.password()  # an unreadable password file stops the start, not the show
    try:
        pin_factory = open_pin_factory(args.mock or config.mock_pins)
    except HardwareUnavailable as e:
        raise Refusal(str(e), code=1) from None
    try:
        table = _open_table(config.database, lambda: Table(config, Store(config.database), pin_factory,
                                                           keeping=Backups()))
    except BadInput as e:  # a key the hardware refused (a pin in use, a source it cannot read)
        raise Refusal(f"{config.path}: {e}" if config.path else str(e)) from None
    host = args.host or config.web.host
    port = args.port or config.web.port
    # web.mdns = false: the system's responder (Avahi, on the card) announces the table; its name still works.
    return _serve(table, host, port, config.mqtt, mdns=not args.no_mdns and config.web.mdns, named=not args.no_mdns)


def _open_table(database: Path, make):
    """The table, or one line on why it cannot be opened (exit 1)."""
    from companion.hardware.strip import StripUnavailable

    try:
        return make()
    except StripUnavailable as e:
        raise Refusal(str(e), code=1) from None
    except (sqlite3.Error, OSError) as e:
        raise Refusal(f"cannot use the database {database} ({getattr(e, 'strerror', None) or e})", code=1) from None


def _broker(args):
    """The broker `--mqtt URL` names (None without one), checked before the table opens."""
    from companion.mqtt.settings import from_url

    return from_url(args.mqtt, "--mqtt") if args.mqtt else None


def _bridge(table, mqtt):
    """The MQTT bridge started for `mqtt` (None without a broker). The client is imported only then: most
    tables have no broker, and a restart waits for every import."""
    if not mqtt:
        return None
    from companion.mqtt.bridge import Bridge

    return Bridge(table, mqtt).start()


def _serve(table, host: str, port: int, mqtt=None, *, mdns: bool = True, named: bool | None = None) -> int:
    """Serve the table; `mdns`: announce it with the daemon's own responder; `named`: show its NAME.local
    (announced by the daemon or by the system's responder; as `mdns` unless given)."""
    from companion.notify import keep_watchdog_fed, notify
    from companion.web.address import Advertisement, Listening, lan_addresses, mdns_name
    from companion.web.server import bound_port, make_server, shut_down, stop_on_signals

    try:
        server = make_server(table, host, port)
    except OSError as e:
        table.stop()
        raise Refusal(f"cannot listen on {host}:{port} ({e.strerror or e}): try another --port", code=1) from None
    listening = Listening(host, bound_port(server))
    table.listening_at(listening.host, listening.port)
    stop = threading.Event()
    stop_on_signals(server)  # systemctl stop and Ctrl-C: the loop ends, then everything stops in order
    table.start()
    bridge = _bridge(table, mqtt)

    def rejoin(before, after) -> None:
        """New settings from the setup page with another broker (or none): the bridge follows, in process."""
        nonlocal bridge
        if after.mqtt == before.mqtt:
            return
        if bridge:
            bridge.stop()
        bridge = _bridge(table, after.mqtt)

    table.on_new_settings(rejoin)
    advert = None
    try:
        addresses = lan_addresses()
        advert = Advertisement(listening, addresses).start() if mdns else None
        how_to_stop = SERVICE_STOP if os.environ.get("NOTIFY_SOCKET") else "Ctrl-C stops."  # in the journal: systemctl
        pin = table.ports.door.pin
        shown = mdns if named is None else named
        for line in listening.startup_lines(addresses, mdns_name() if shown else None, pin, how_to_stop):
            print(line, flush=True)  # on stdout, so `journalctl -u companion` shows the address too
        table.announce()  # a table not set up yet: the setup code, for the phone that sets it up
        notify("READY=1")
        keep_watchdog_fed(table.alive, stop)
        settled()
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        notify("STOPPING=1")
        stop.set()
        if advert is not None:
            advert.close()
        shut_down(server)
        if bridge:
            bridge.stop()
        table.stop()
    return 0


def check_speed_option(text: str, name: str) -> float:
    """--speed: a number, in the show clock's range."""
    try:
        value = float(text)
    except ValueError:
        value = text  # not a number: the reader says so
    return fields.real(value, name, MIN_SPEED, MAX_SPEED)


def register(sub) -> None:
    demo = sub.add_parser("demo", help="run the table on mock pins with six LED-emulated hourglasses")
    demo.add_argument("--host", default="127.0.0.1", metavar="H", type=checked_option("check_host", "--host"),
                      help="the address to listen on (default 127.0.0.1: this computer only; 0.0.0.0: phones too)")
    demo.add_argument("--port", default=8000, metavar="P", type=checked_option("check_port", "--port"),
                      help="the port to listen on (default 8000; 0: any free one)")
    demo.add_argument("--pin", type=checked_option("check_pin", "--pin"), help="the table PIN (default: a fresh one)")
    demo.add_argument("--speed", type=checked_option(check_speed_option, "--speed"), metavar="X", default=1.0,
                      help=f"run the show clock this many times faster ({MIN_SPEED:g}-{MAX_SPEED:g})")
    demo.add_argument("--db", metavar="FILE", help="SQLite file (default: a fresh one)")
    demo.add_argument("--mqtt", metavar="URL", help="join a broker: mqtt://host:port[/table name], or mqtts://")
    demo.add_argument("--no-mdns", action="store_true", help=NO_MDNS_HELP)
    demo.set_defaults(func=cmd_demo)

    run = sub.add_parser("run", help="run the table daemon")
    run.add_argument("--config", metavar="FILE", help="config file (default /etc/companion/config.toml)")
    run.add_argument("--mock", action="store_true", help=MOCK_HELP)
    run.add_argument("--host", metavar="H", type=checked_option("check_host", "--host"))
    run.add_argument("--port", metavar="P", type=checked_option("check_port", "--port"))
    run.add_argument("--no-mdns", action="store_true", help=NO_MDNS_HELP)
    run.set_defaults(func=cmd_run)
