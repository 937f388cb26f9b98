"""`companion check-hw` and `companion calibrate`: wiring a table and timing its glasses."""

import queue
import sys
import time
from dataclasses import replace

from companion.cli.common import MOCK_HELP, Refusal

ORDER = 20  # place in `companion --help`
__all__ = ["BEEP", "STEP_S", "readout", "strip_parts", "try_outputs", "turn_of"]  # shared with the setup page
SHARED = {"BEEP", "STEP_S", "readout", "strip_parts", "turn_of"}  # the table's, imported when first asked for


def __getattr__(name: str):
    if name in SHARED:
        from companion.table import wiring
        return getattr(wiring, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _open_rig(args, q):
    from companion.config import load_config
    from companion.hardware.pins import HardwareUnavailable, open_pin_factory
    from companion.table.rig import Rig

    # A file named on the command line must be there (as for `run`); with none, the default file if there is
    # one, else the defaults (and calibrate, with nowhere to store, asks for --config).
    config = load_config(args.config)
    quiet = replace(config, strip=replace(config.strip, enabled=False), buzzer=replace(config.buzzer, enabled=False))
    try:
        factory = open_pin_factory(args.mock or config.mock_pins)
    except HardwareUnavailable as e:
        raise Refusal(str(e), code=1) from None
    return config, Rig(quiet, factory, q.put, time.monotonic)


def _feed(rig, q: queue.SimpleQueue, timeout: float | None):
    """Hand queued raw items to the rig's sources; return what changed."""
    try:
        rig.take(q.get(timeout=timeout))
    except queue.Empty:
        pass
    return rig.update(time.monotonic())


def try_outputs(config, pin_factory, *, strip_kind: str | None = None, pause=time.sleep, say=print) -> None:
    """Light each part of the strip in its colour in turn, then beep the buzzer: what `check-hw --outputs` does.

    `strip_kind` overrides the config's driver (the mock run uses "fake"); `pause` waits between steps.
    """
    from companion.hardware.buzzer import TunePlayer
    from companion.hardware.strip import StripUnavailable, open_strip
    from companion.table.wiring import BEEP, STEP_S, part_frame, strip_parts

    if not (config.strip.enabled or config.buzzer.enabled):
        say("no strip and no buzzer in the config: set [strip] enabled = true or [buzzer] enabled = true")
        return
    if config.strip.enabled:
        layout = config.strip.layout
        try:
            strip = open_strip(strip_kind or config.strip.driver, layout.total, order=config.strip.order,
                               brightness=config.strip.brightness)
        except StripUnavailable as e:
            raise Refusal(str(e), code=1) from None
        try:
            for name, leds, colour in strip_parts(layout):
                say(f"strip: {name} lit (LEDs {leds.start}-{leds.stop - 1})")
                strip.show(part_frame(layout, leds, colour))
                pause(STEP_S)
            strip.show([(0, 0, 0)] * layout.total)
        finally:
            strip.close()
    if config.buzzer.enabled:
        from gpiozero import TonalBuzzer

        device = TonalBuzzer(config.buzzer.pin, pin_factory=pin_factory)
        try:
            say(f"buzzer: beeping on GPIO {config.buzzer.pin}")
            TunePlayer(device, sleep=pause, background=False).play(BEEP)
        finally:
            device.close()


def cmd_check_hw(args) -> int:
    from companion.table.wiring import readout

    q = queue.SimpleQueue()
    config, rig = _open_rig(args, q)
    try:
        if args.outputs:
            try_outputs(config, rig.pin_factory, strip_kind="fake" if args.mock else None,
                        pause=(lambda s: None) if args.mock else time.sleep)
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
    from companion.config import set_duration
    from companion.skyrockets.colours import check_colour
    from companion.table.wiring import Timing

    colour = check_colour(args.colour, "COLOUR")
    q = queue.SimpleQueue()
    config, rig = _open_rig(args, q)
    if config.path is None:
        rig.close()
        raise Refusal("no config file to store the result in: pass --config FILE")
    timing = Timing(colour, args.runs, rig.tilts[colour].pose if colour in rig.tilts else None)
    how = "turn the glass" if colour in rig.tilts else "press its flip button (runs alternate, the first A up)"
    print(f"Calibrating {colour}: {how} to start, then again the moment its top runs dry "
          f"({args.runs} runs each way; Ctrl-C stops).", flush=True)
    try:
        while not timing.done:
            for change in _feed(rig, q, 0.1):
                was_started = timing.started
                run = timing.see(change)
                if run:
                    print(f"run {len(timing.calibration.durations)}: {run:.2f} s", flush=True)
                elif timing.started and not was_started:
                    print("started", flush=True)
    except KeyboardInterrupt:
        if not timing.calibration.durations:
            return 0
    finally:
        rig.close()
    a_up, b_up = timing.calibration.result()
    set_duration(config, colour, (a_up, b_up))
    print(f"{colour}: {a_up:.2f} s A up, {b_up:.2f} s B up (medians of {len(timing.calibration.durations)} runs) "
          f"saved in {config.path}")
    return 0


def register(sub) -> None:
    check = sub.add_parser("check-hw", help="live readout of every switch, pose and fault (and, on request, "
                                            "the strip and buzzer), for wiring a table")
    check.add_argument("--config", metavar="FILE", help="config file (default /etc/companion/config.toml)")
    check.add_argument("--mock", action="store_true", help=MOCK_HELP)
    check.add_argument("--once", action="store_true", help="print one readout and stop")
    check.add_argument("--outputs", action="store_true",
                       help="first light each strip segment in its colour in turn and beep the buzzer")
    check.set_defaults(func=cmd_check_hw)

    calibrate = sub.add_parser("calibrate", help="time a real glass both ways and store its durations in the config")
    calibrate.add_argument("colour", metavar="COLOUR")
    calibrate.add_argument("--config", metavar="FILE",
                           help="config file to store the durations in (default /etc/companion/config.toml)")
    calibrate.add_argument("--mock", action="store_true", help=MOCK_HELP)
    calibrate.add_argument("--runs", type=int, metavar="N", default=2, help="runs to time each way (default 2)")
    calibrate.set_defaults(func=cmd_calibrate)
