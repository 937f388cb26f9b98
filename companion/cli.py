"""The `companion` command: demo, run, replay, check-hw, calibrate.

Every command exits 0 on success and 2 on bad input, with one line on stderr
that names the file, line or field — never a traceback. A table that cannot
start (no GPIO, a port in use) exits 1, also with one line.
"""

import argparse
import json
import logging
import queue
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

from companion.errors import BadInput


class Refusal(Exception):
    """The command cannot go on; the message says why in one line (exit status `code`)."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def read_lines(path: str):
    """The lines of a file, or of stdin for '-'."""
    if path == "-":
        return sys.stdin.read().splitlines()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except OSError as e:
        raise Refusal(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError:
        raise Refusal(f"{path}: not UTF-8 text") from None


# ---- replay ---------------------------------------------------------------

def cmd_replay(args) -> int:
    from companion.skyrockets.log import LogError, replay

    try:
        show = replay(read_lines(args.log))
    except LogError as e:
        where = f"{e.field}: " if e.field else ""
        raise Refusal(f"{args.log}:{e.line}: {where}{e.problem}") from None
    print(json.dumps(show.result(), ensure_ascii=False))
    return 0


# ---- the table: demo and run ------------------------------------------------

def cmd_demo(args) -> int:
    from companion.table import demo_table

    db = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="companion-demo-")) / "companion.sqlite3"
    table = _open_table(db, lambda: demo_table(db, speed=args.speed, pin=args.pin))
    print(f"Hourglass table companion demo: mock pins, six LED-emulated hourglasses, database {db}")
    return _serve(table, args.host, args.port)


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
    return _serve(table, host, port)


def _open_table(database: Path, make):
    """The table, or one line on why it cannot be opened (exit 1)."""
    from companion.hardware.strip import StripUnavailable

    try:
        return make()
    except StripUnavailable as e:
        raise Refusal(str(e), code=1) from None
    except (sqlite3.Error, OSError) as e:
        raise Refusal(f"cannot use the database {database} ({getattr(e, 'strerror', None) or e})", code=1) from None


def _serve(table, host: str, port: int) -> int:
    from companion.notify import keep_watchdog_fed, notify
    from companion.web.server import make_server, shut_down

    try:
        server = make_server(table, host, port)
    except OSError as e:
        table.stop()
        raise Refusal(f"cannot listen on {host}:{port} ({e.strerror or e}): try another --port", code=1) from None
    table.start()
    shown_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    print(f"Open http://{shown_host}:{server.effective_port}/ on a phone or this computer; "
          f"the table PIN is {table.pin}. Ctrl-C stops.", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, _interrupt)  # systemctl stop: shut down as cleanly as Ctrl-C
    notify("READY=1")
    keep_watchdog_fed(table.alive, stop)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        notify("STOPPING=1")
        stop.set()
        shut_down(server)
        table.stop()
    return 0


def _interrupt(signum, frame):
    raise KeyboardInterrupt


# ---- wiring and calibration -----------------------------------------------

def _open_rig(args, q):
    from companion.config import load_config, parse_config
    from companion.hardware.pins import HardwareUnavailable, open_pin_factory
    from companion.rig import Rig

    config = load_config(args.config) if args.config is None or Path(args.config).exists() \
        else replace(parse_config({}, None), path=Path(args.config))
    quiet = replace(config, strip=replace(config.strip, enabled=False), buzzer=replace(config.buzzer, enabled=False))
    try:
        factory = open_pin_factory(args.mock)
    except HardwareUnavailable as e:
        raise Refusal(str(e), code=1) from None
    return config, Rig(quiet, factory, q.put, time.monotonic)


def _feed(rig, q: queue.SimpleQueue, timeout: float | None):
    """Hand queued raw edges to the rig's logic; return what settled."""
    try:
        edge = q.get(timeout=timeout)
        rig.input_logic(edge.device).edge(*((edge.switch,) if edge.device in rig.tilts else ()), edge.closed, edge.t)
    except queue.Empty:
        pass
    now = time.monotonic()
    return [c for logic in (*rig.tilts.values(), *rig.buttons.values()) for c in logic.update(now)]


def readout(rig) -> list[str]:
    """One line per timer: its source, every switch's raw level, the debounced pose, any fault."""
    lines = []
    raw = rig.readings()
    for colour, timer in rig.config.timers.items():
        if colour in rig.tilts:
            pair = rig.tilts[colour]
            switches = "  ".join(f"GPIO{p:<2} {'closed' if c else 'open  '}" for p, c in zip(timer.pins, raw[colour]))
            state = f"pose {pair.pose.value:<5}" + (f"  FAULT: {pair.fault}" if pair.fault else "")
        elif colour in rig.buttons:
            switches = f"GPIO{timer.pins[0]:<2} button"
            state = "pressed" if rig.buttons[colour].pressed else "released"
        else:
            switches, state = "(serial hub)", "-"
        lines.append(f"{colour:<7} {timer.source:<9} {switches:<32} {state}")
    return lines


def cmd_check_hw(args) -> int:
    q = queue.SimpleQueue()
    _, rig = _open_rig(args, q)
    try:
        print("\n".join(readout(rig)), flush=True)
        if args.once:
            return 0
        live = sys.stdout.isatty()
        print("Tilt each glass and press each button; Ctrl-C stops.", flush=True)
        while True:
            if _feed(rig, q, 0.1):
                if live:
                    print(f"\x1b[{len(rig.config.timers) + 1}F\x1b[J", end="")
                print("\n".join(readout(rig)), flush=True)
    except KeyboardInterrupt:
        return 0
    finally:
        rig.close()


def cmd_calibrate(args) -> int:
    from companion.calibration import Calibration
    from companion.config import set_duration
    from companion.hardware.buttons import ButtonAction
    from companion.hardware.tilt import PoseChange
    from companion.skyrockets.colours import check_colour

    colour = check_colour(args.colour, "COLOUR")
    calibration = Calibration(args.runs)
    q = queue.SimpleQueue()
    config, rig = _open_rig(args, q)
    if config.path is None:
        rig.close()
        raise Refusal("no config file to store the result in: pass --config FILE")
    how = "turn the glass" if colour in rig.tilts else "press its flip button"
    print(f"Calibrating {colour}: {how} to start, then again the moment its top runs dry "
          f"({args.runs} runs; Ctrl-C stops).", flush=True)
    last_upright = rig.tilts[colour].pose if colour in rig.tilts else None
    try:
        while not calibration.done:
            for change in _feed(rig, q, 0.1):
                turn = False
                if isinstance(change, PoseChange) and change.name == colour and change.pose.upright:
                    turn, last_upright = change.pose != last_upright, change.pose
                elif isinstance(change, ButtonAction) and change.name == colour:
                    turn = True
                if turn:
                    run = calibration.turned(change.t)
                    print(f"run {len(calibration.durations)}: {run:.2f} s" if run else "started", flush=True)
    except KeyboardInterrupt:
        if not calibration.durations:
            return 0
    finally:
        rig.close()
    seconds = calibration.median()
    set_duration(config, colour, seconds)
    print(f"{colour}: {seconds:.2f} s (median of {len(calibration.durations)} runs) saved in {config.path}")
    return 0


# ---- the command line -------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description="The hourglass table companion.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="run the table on mock pins with six LED-emulated hourglasses")
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=8000)
    demo.add_argument("--pin", help="the table PIN (default: a fresh one)")
    demo.add_argument("--speed", type=float, default=1.0, help="run the show clock this many times faster")
    demo.add_argument("--db", help="SQLite file (default: a fresh one)")
    demo.set_defaults(func=cmd_demo)

    run = sub.add_parser("run", help="run the table daemon")
    run.add_argument("--config", help="config file (default /etc/companion/config.toml)")
    run.add_argument("--mock", action="store_true", help="use mock pins (no GPIO needed)")
    run.add_argument("--host")
    run.add_argument("--port", type=int)
    run.set_defaults(func=cmd_run)

    replay = sub.add_parser("replay", help="replay a Skyrockets show log and print the result as JSON")
    replay.add_argument("log", help="show log (JSON Lines), or - for stdin")
    replay.set_defaults(func=cmd_replay)

    check = sub.add_parser("check-hw", help="live readout of every switch, pose and fault, for wiring a table")
    check.add_argument("--config")
    check.add_argument("--mock", action="store_true")
    check.add_argument("--once", action="store_true", help="print one readout and stop")
    check.set_defaults(func=cmd_check_hw)

    calibrate = sub.add_parser("calibrate", help="time a real glass and store its duration in the config")
    calibrate.add_argument("colour", metavar="COLOUR")
    calibrate.add_argument("--config")
    calibrate.add_argument("--mock", action="store_true")
    calibrate.add_argument("--runs", type=int, default=3)
    calibrate.set_defaults(func=cmd_calibrate)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except Refusal as e:
        print(f"companion {args.command}: {e}", file=sys.stderr)
        return e.code
    except BadInput as e:
        print(f"companion {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
