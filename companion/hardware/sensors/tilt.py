"""Tilt cradles on the Pi's pins: two ball switches (or one) tell which end of a glass is up."""

from companion.errors import BadInput
from companion.hardware.sensors import SensorKind, pose_words, register
from companion.hardware.source import fault_json
from companion.hardware.tilt import GpioTiltPair, TiltConfig, TiltPair


def _check_pins(colour: str, pins, single: bool) -> None:
    if len(pins) < (1 if single else 2):
        raise BadInput(f"timers.{colour}.pins", "a tilt pair needs two pins (or set single_switch = true)",
                       code="errors.setup.two_pins", params={"colour": colour})


def _open(rig, colours, sink, clock) -> None:
    tilt, now = rig.config.tilt, clock()
    for colour in colours:
        timer = rig.config.timers[colour]
        with rig.opening(f"timers.{colour}.pins"):
            device = GpioTiltPair(colour, rig.pins_of(colour), sink, clock, rig.pin_factory)
        logic = TiltPair(colour, settle_s=tilt.settle_ms / 1000, both_closed_fault_s=tilt.both_closed_fault_s,
                         single=timer.single_switch, initial=device.levels(), t0=now)
        rig.tilts[colour] = logic
        rig.wire(logic, device)


def _describe(rig, colour: str, glass: dict) -> None:
    pair = rig.tilts[colour]
    levels = rig.sources[colour].device_io.levels()
    glass["switches"] = [{"pin": p, "closed": bool(c)} for p, c in zip(rig.config.timers[colour].pins, levels)]
    glass.update(pose=pair.pose.value, **fault_json(pair.fault))


def _readout(glass: dict) -> tuple[str, str]:
    switches = "  ".join(f"GPIO{s['pin']:<2} {'closed' if s['closed'] else 'open  '}" for s in glass["switches"])
    return switches, pose_words(glass)


WORDS = {
    "en": {"setup.source.tilt": "Tilt cradle", "errors.setup.two_pins": "{colour}'s tilt sensor needs two pins.",
           "faults.tilt.both_closed": "both switches closed for {seconds} s (shorted wire or stuck switch)"},
    "ja": {"setup.source.tilt": "傾きセンサー", "errors.setup.two_pins": "{colour}の傾きセンサーにはピンが2本必要です。",
           "faults.tilt.both_closed": "両方のスイッチが{seconds}秒間閉じたまま（配線のショートかスイッチの固着）"},
}

TILT = register(SensorKind("tilt", rank=0, physical=True, section="tilt", read=TiltConfig.read, open=_open,
                           describe=_describe, readout=_readout, check_pins=_check_pins, words=WORDS))
