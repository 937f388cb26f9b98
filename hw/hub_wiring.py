"""Draw the serial sensor hub's wiring diagram, hw/hub_wiring.svg, from the firmware's pin map.

    python hw/hub_wiring.py           # write hw/hub_wiring.svg
    python hw/hub_wiring.py --check   # exit 1 if hw/hub_wiring.svg is not what firmware/hubpins.py draws

Standard library only and deterministic (integer coordinates, no dates), so
the committed drawing is checked against the pin map and never drifts.
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "hw"))

from companion.hardware.firmware import firmware_file, firmware_module  # noqa: E402
from drawing import BOARD_INK, DATA_INK, INK, MUTED, page, text, write_or_check  # noqa: E402

SVG_PATH = ROOT / "hw" / "hub_wiring.svg"

COLOURS = ("red", "orange", "yellow", "green", "blue", "purple")

# GP number -> physical pin of a Raspberry Pi Pico (pins 1-20 down the left edge, 21-40 up the right).
PICO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16, 13: 17,
            14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34}
POWER_PINS = {3: "GND", 8: "GND", 13: "GND", 18: "GND", 23: "GND", 28: "GND", 30: "RUN", 33: "GND",
              35: "ADC_VREF", 36: "3V3", 37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS"}
BUS_INK, BOARD = DATA_INK, BOARD_INK  # every ink, the text and the font from hw/drawing.py
WIDTH, HEIGHT = 1040, 800
TOP, ROW = 110, 26  # y of pin 1 and the pin pitch in the drawing
LEFT_X, RIGHT_X = 420, 620  # the board's two pin columns


def load_pins(path: Path | None = None):
    """The firmware's pin map module (firmware/hubpins.py, or a copy of it at `path`)."""
    return firmware_module("hubpins") if path is None else firmware_file(path)


def pin_y(pin: int) -> int:
    return TOP + ROW * ((pin - 1) if pin <= 20 else (40 - pin))


def wire(points, ink: str) -> str:
    coords = " ".join(f"{x},{y}" for x, y in points)
    return f'<polyline points="{coords}" fill="none" stroke="{ink}" stroke-width="3"/>'


def board_pins(pins) -> list[str]:
    gp_at = {pin: gp for gp, pin in PICO_PIN.items()}
    parts = [f'<rect x="{LEFT_X}" y="{TOP - 40}" width="{RIGHT_X - LEFT_X}" height="{ROW * 19 + 80}" rx="10" '
             f'fill="#e8f3ea" stroke="{BOARD}" stroke-width="2"/>',
             text((LEFT_X + RIGHT_X) // 2, TOP - 16, "Raspberry Pi Pico (RP2040)", size=13, anchor="middle", weight="bold"),
             text((LEFT_X + RIGHT_X) // 2, TOP + ROW * 19 + 30, "USB to the Raspberry Pi", size=13, anchor="middle", fill=MUTED)]
    for pin in range(1, 41):
        x = LEFT_X if pin <= 20 else RIGHT_X
        name = f"GP{gp_at[pin]}" if pin in gp_at else POWER_PINS[pin]
        inside = x + 10 if pin <= 20 else x - 10
        parts.append(f'<circle cx="{x}" cy="{pin_y(pin)}" r="5" fill="{BOARD}"/>')
        parts.append(text(inside, pin_y(pin) + 4, f"{pin} {name}", size=11,
                          anchor="start" if pin <= 20 else "end", fill=MUTED))
    return parts


def draw(pins=None) -> str:
    """The whole diagram as SVG text."""
    pins = pins or load_pins()
    parts = [text(20, 30, "Serial sensor hub: tilt pairs, neck beams and accelerometers", size=18, weight="bold"),
             text(20, 52, "Every switch and beam receiver output also has a wire to GND; "
                          "beam emitters, receivers and LIS3DH boards take 3V3 from pin 36.", size=12, fill=MUTED)]
    parts += board_pins(pins)
    for channel, (colour, pair) in enumerate(zip(COLOURS, pins.TILT_GP)):
        for switch, gp in enumerate(pair):
            y = pin_y(PICO_PIN[gp])
            end = "A up" if switch == 0 else "B up"
            parts.append(wire([(LEFT_X, y), (300, y)], INK[colour]))
            parts.append(text(292, y - 5, f"{colour} · switch {switch} ({end}) GP{gp} pin {PICO_PIN[gp]}",
                              size=12, anchor="end", fill=INK[colour]))
    for colour, gp in zip(COLOURS, pins.BEAM_GP):
        y = pin_y(PICO_PIN[gp])
        parts.append(wire([(RIGHT_X, y), (740, y)], INK[colour]))
        parts.append(text(748, y + 4, f"{colour} · neck beam receiver GP{gp} pin {PICO_PIN[gp]}", size=12,
                          fill=INK[colour]))
    scl, sda = pins.I2C_GP
    for gp, name, dx in ((scl, "SCL", 0), (sda, "SDA", 14)):
        y = pin_y(PICO_PIN[gp])
        parts.append(wire([(LEFT_X, y), (340 - dx, y), (340 - dx, 680)], BUS_INK))
        parts.append(text(300, y + 14 if gp == scl else y - 5, f"I2C {name} GP{gp} pin {PICO_PIN[gp]}",
                          size=12, anchor="end", fill=BUS_INK))
    parts.append(f'<rect x="40" y="680" width="490" height="90" rx="8" fill="#eef6f7" stroke="{BUS_INK}" stroke-width="2"/>')
    parts.append(text(56, 704, f"TCA9548A I2C multiplexer (address 0x{pins.I2C_MUX_ADDRESS:02X})", size=13, weight="bold"))
    parts.append(text(56, 726, f"its channels 0-5: one LIS3DH each (address 0x{pins.LIS3DH_ADDRESS:02X}),", size=12))
    parts.append(text(56, 744, "z axis along the glass from end B to end A", size=12))
    parts.append(text(56, 762, "(only with SENSORS = \"lis3dh\" in code.py; the switches are then left off)", size=12,
                      fill=MUTED))
    return page(WIDTH, HEIGHT, parts, "The serial sensor hub: a Raspberry Pi Pico, its tilt switches, neck beams "
                                      "and accelerometers")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the drawing is up to date")
    args = parser.parse_args()
    drawing = draw()
    write_or_check(drawing, SVG_PATH, args.check, "firmware/hubpins.py")


if __name__ == "__main__":
    main()
