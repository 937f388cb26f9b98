"""Flip buttons on the Pi's pins: one push button per glass the LED strip shows (an emulated glass)."""

from companion.hardware.buttons import ButtonConfig, FlipButton, GpioFlipButton
from companion.hardware.sensors import SensorKind, register


def _open(rig, colours, sink, clock) -> None:
    buttons = rig.config.buttons
    for colour in colours:
        with rig.opening(f"timers.{colour}.pins"):
            device = GpioFlipButton(colour, rig.pins_of(colour)[0], sink, clock, rig.pin_factory)
        logic = FlipButton(colour, settle_s=buttons.settle_ms / 1000, hold_s=buttons.hold_s)
        rig.buttons[colour] = logic
        rig.wire(logic, device)


def _describe(rig, colour: str, glass: dict) -> None:
    pressed = rig.buttons[colour].pressed
    glass.update(switches=[{"pin": rig.config.timers[colour].pins[0], "closed": pressed}], pressed=pressed)


def _readout(glass: dict) -> tuple[str, str]:
    return f"GPIO{glass['switches'][0]['pin']:<2} button", "pressed" if glass["pressed"] else "released"


WORDS = {
    "en": {"setup.source.emulated": "LED hourglass", "setup.pressed": "pressed", "setup.released": "released",
           "setup.button": "flip button"},
    "ja": {"setup.source.emulated": "LED砂時計", "setup.pressed": "押下", "setup.released": "解放",
           "setup.button": "反転ボタン"},
}

BUTTON = register(SensorKind("emulated", rank=2, physical=False, section="buttons", read=ButtonConfig.read,
                             open=_open, describe=_describe, readout=_readout, pins_read=1,
                             switch_words=("setup.released", "setup.pressed"), reads_word="setup.button",
                             words=WORDS))
