"""`companion check-hw` and `companion calibrate`: wiring a table and timing its glasses."""

import queue
import sys
import time
from dataclasses import replace
from pathlib import Path

from companion.cli.common import Refusal

ORDER = 20  # place in `companion --help`
STEP_S = 1.0  # how long each strip part stays lit when the outputs are tried
BEEP = (("A4", 0.3), (None, 0.1), ("A5", 0.3))  # the buzzer's test tune


def _open_rig(args, q):
    from companion.config import load_config, parse_config
    from companion.hardware.pins import HardwareUnavailable, open_pin_factory
    from companion.table.rig import Rig

    config = load_config(args.config) if args.config is None or Path(args.config).exists() \
        else replace(parse_config({}, None), path=Path(args.config))
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


def strip_parts(layout) -> list[tuple[str, range, tuple[int, int, int]]]:
    """Each part of the strip, in order along it: (its name, its LEDs, the colour it is lit in to test it)."""
    from companion.leds import AMBER, GOLD, TIMER_COLOURS

    parts = [(f"{colour} segment", range(layout.segment_start(colour), layout.segment_start(colour) + layout.segment_len),
              TIMER_COLOURS[colour]) for colour in layout.colours]
    if layout.countdown_leds:
        parts.append(("countdown track", range(layout.countdown_start, layout.countdown_start + layout.countdown_leds), AMBER))
    if layout.token_leds:
        parts.append(("crowd tokens", range(layout.tokens_start, layout.tokens_start + layout.token_leds), GOLD))
    return parts


def try_outputs(config, pin_factory, *, strip_kind: str | None = None, pause=time.sleep, say=print) -> None:
    """Light each part of the strip in its colour in turn, then beep the buzzer: what `check-hw --outputs` does.

    `strip_kind` overrides the config's driver (the mock run uses "fake"); `pause` waits between steps.
    """
    from companion.hardware.buzzer import TunePlayer
    from companion.hardware.strip import StripUnavailable, open_strip

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
                strip.show([colour if i in leds else (0, 0, 0) for i in range(layout.total)])
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
    from companion.calibration import Calibration
    from companion.config import set_duration
    from companion.skyrockets.colours import check_colour

    colour = check_colour(args.colour, "COLOUR")
    calibration = Calibration(args.runs)
    q = queue.SimpleQueue()
    config, rig = _open_rig(args, q)
    if config.path is None:
        rig.close()
        raise Refusal("no config file to store the result in: pass --config FILE")
    how = "turn the glass" if colour in rig.tilts else "press its flip button (runs alternate, the first A up)"
    print(f"Calibrating {colour}: {how} to start, then again the moment its top runs dry "
          f"({args.runs} runs each way; Ctrl-C stops).", flush=True)
    last_upright = rig.tilts[colour].pose if colour in rig.tilts else None
    try:
        while not calibration.done:
            for change in _feed(rig, q, 0.1):
                turned, last_upright = turn_of(change, colour, last_upright)
                if turned is not None:
                    run = calibration.turned(change.t, turned or None)
                    print(f"run {len(calibration.durations)}: {run:.2f} s" if run else "started", flush=True)
    except KeyboardInterrupt:
        if not calibration.durations:
            return 0
    finally:
        rig.close()
    a_up, b_up = calibration.result()
    set_duration(config, colour, (a_up, b_up))
    print(f"{colour}: {a_up:.2f} s A up, {b_up:.2f} s B up (medians of {len(calibration.durations)} runs) "
          f"saved in {config.path}")
    return 0


def turn_of(change, colour: str, last_upright):
    """Whether `change` turned `colour`'s glass: (its new pose, "" for a button press, or None; the upright pose)."""
    from companion.hardware.source import ButtonAction, PoseChange

    if isinstance(change, PoseChange) and change.name == colour and change.pose.upright:
        return (change.pose.value if change.pose != last_upright else None), change.pose
    if isinstance(change, ButtonAction) and change.name == colour:
        return "", last_upright
    return None, last_upright


def register(sub) -> None:
    check = sub.add_parser("check-hw", help="live readout of every switch, pose and fault (and, on request, "
                                            "the strip and buzzer), for wiring a table")
    check.add_argument("--config")
    check.add_argument("--mock", action="store_true")
    check.add_argument("--once", action="store_true", help="print one readout and stop")
    check.add_argument("--outputs", action="store_true",
                       help="first light each strip segment in its colour in turn and beep the buzzer")
    check.set_defaults(func=cmd_check_hw)

    calibrate = sub.add_parser("calibrate", help="time a real glass both ways and store its durations in the config")
    calibrate.add_argument("colour", metavar="COLOUR")
    calibrate.add_argument("--config")
    calibrate.add_argument("--mock", action="store_true")
    calibrate.add_argument("--runs", type=int, default=2, help="runs to time each way (default 2)")
    calibrate.set_defaults(func=cmd_calibrate)
