"""Draw hw/perfboard.svg from the pin map and the strip layout: the perfboard's layout, and where to cut the strip and feed it.

    python hw/perfboard.py           # write hw/perfboard.svg
    python hw/perfboard.py --check   # exit 1 if hw/perfboard.svg is not what pinout.toml and the strip layout draw

Top: the perfboard (5 x 7 cm) with the level shifter, the buzzer's driver, one
1 kΩ resistor per switch and one connector per cradle, each labelled with its
GPIO and header pin. Bottom: the strip cut into its pieces, joined DOUT → DIN,
and fed 5 V and GND at both ends from one fused supply. Standard library and
the package only, deterministic, like hw/wiring.py.
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "hw"))

from companion.hardware.pins import load_pinout  # noqa: E402
from companion.leds import StripLayout  # noqa: E402
from companion.skyrockets.colours import COLOURS  # noqa: E402
from drawing import BOARD_INK, CARD_EDGE, DATA_INK, GND_INK, INK, MUTED, POWER_INK, TEXT, page, text, write_or_check  # noqa: E402
from wiring import HEADER_PIN  # noqa: E402

SVG_PATH = ROOT / "hw" / "perfboard.svg"
WIDTH, HEIGHT = 1040, 900
BOARD = (40, 110, 700, 400)     # x, y, width, height of the perfboard (70 x 50 mm at 10 px/mm)
HOLE = 25                       # 2.54 mm hole pitch, rounded
STRIP_TOP = 600
PER_M = 60                      # the strip the parts list names: 60 LEDs/m


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if hw/perfboard.svg is out of date")
    args = parser.parse_args()
    svg = draw(load_pinout(ROOT / "hw" / "pinout.toml"), StripLayout())
    write_or_check(svg, SVG_PATH, args.check, "hw/pinout.toml and the strip layout")


def draw(pinout: dict, layout: StripLayout) -> str:
    """The whole drawing, a pure function of the pin map and the strip layout."""
    parts = [text(24, 36, "The perfboard, and the strip cut and fed at both ends", size=20, weight="bold"),
             text(24, 58, "Drawn from hw/pinout.toml and the daemon's strip layout. Wires to the Pi run in a "
                          "ribbon from the 2x20 socket; GPIO and header pin numbers at each part.", size=12, fill=MUTED)]
    parts += perfboard(pinout) + strip(layout)
    return page(WIDTH, HEIGHT, parts, "The perfboard's layout and the LED strip's cuts and feeds")


def box(x, y, w, h, fill="#ffffff", stroke=TEXT) -> str:
    return f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="4" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'


def wire(points, ink, width=2.5) -> str:
    d = " ".join(f"{x},{y}" for x, y in points)
    return f'<polyline points="{d}" fill="none" stroke="{ink}" stroke-width="{width}" stroke-linejoin="round"/>'


def resistor(x, y, label) -> list[str]:
    """A resistor lying left to right at (x, y), 3 holes long, its value above it."""
    return [wire([(x, y), (x + 2 * HOLE, y)], GND_INK, 1.5), box(x + 12, y - 6, 2 * HOLE - 24, 12, "#f4e2c4", TEXT),
            text(x + HOLE, y - 10, label, size=10, anchor="middle")]


def perfboard(pinout: dict) -> list[str]:
    x0, y0, w, h = BOARD
    holes = [f'<circle cx="{x}" cy="{y}" r="1.6" fill="{CARD_EDGE}"/>'
             for x in range(x0 + 12, x0 + w, HOLE) for y in range(y0 + 12, y0 + h, HOLE)]
    out = [box(x0, y0, w, h, "#eef5ee", BOARD_INK), *holes,
           text(x0, y0 - 10, "Perfboard 5 x 7 cm, parts side up; four M2.5 standoffs in the corners", size=12,
                weight="bold")]
    bus_5v, bus_gnd = y0 + 25, y0 + h - 25
    out += [wire([(x0 + 12, bus_5v), (x0 + w - 12, bus_5v)], POWER_INK, 4),
            wire([(x0 + 12, bus_gnd), (x0 + w - 12, bus_gnd)], GND_INK, 4),
            text(x0 + w - 14, bus_5v - 8, "+5 V bus (after the fuse)", size=11, anchor="end", fill=POWER_INK),
            text(x0 + w - 14, bus_gnd + 18, "GND bus: the Pi's GND, the supply's −, every switch's can lead",
                 size=11, anchor="end")]
    # The level shifter, its decoupling capacitor and the strip's data output.
    sx, sy = x0 + 50, y0 + 110
    mosi = pinout["strip"]["spi_mosi"]
    out += [box(sx, sy, 7 * HOLE, 50, "#2b2b2b", TEXT),
            text(sx + 7 * HOLE // 2, sy + 22, "74AHCT125", size=12, anchor="middle", fill="#ffffff", weight="bold"),
            text(sx + 7 * HOLE // 2, sy + 38, "pin 1 at the notch, lower left", size=10, anchor="middle", fill="#ffffff"),
            wire([(sx + 6 * HOLE + 12, sy), (sx + 6 * HOLE + 12, bus_5v)], POWER_INK),
            text(sx + 6 * HOLE + 18, sy - 8, "14 VCC", size=10),
            wire([(sx + 6 * HOLE + 12, sy + 50), (sx + 6 * HOLE + 12, bus_gnd)], GND_INK),
            text(sx + 6 * HOLE + 18, sy + 66, "7 GND; 1, 4, 5, 9, 10, 12, 13 to GND too", size=10),
            box(sx + 7 * HOLE + 10, sy + 10, 22, 30, "#f7d9a8", TEXT),
            text(sx + 7 * HOLE + 21, sy + 56, "100 nF", size=10, anchor="middle"),
            wire([(sx + 37, sy + 50), (sx + 37, sy + 90), (sx - 30, sy + 90)], DATA_INK),
            text(sx - 30, sy + 106, f"pin 2 ← GPIO {mosi} (header {HEADER_PIN[mosi]})", size=10, fill=DATA_INK)]
    out += resistor(sx + 62, sy + 110, "330 Ω")
    out += [wire([(sx + 62, sy + 50), (sx + 62, sy + 110)], DATA_INK),
            wire([(sx + 62 + 2 * HOLE, sy + 110), (sx + 200, sy + 110)], DATA_INK),
            box(sx + 200, sy + 96, 60, 28, "#ffffff", TEXT),
            text(sx + 230, sy + 115, "STRIP", size=10, anchor="middle", weight="bold"),
            text(sx + 230, sy + 140, "VH: 5V DIN GND", size=10, anchor="middle"),
            box(sx + 200, sy + 160, 60, 28, "#ffffff", TEXT),
            text(sx + 230, sy + 179, "FAR END", size=10, anchor="middle", weight="bold"),
            text(sx + 230, sy + 204, "VH: 5V – GND", size=10, anchor="middle"),
            box(sx + 280, sy + 100, 24, 60, "#1f3b70", TEXT),
            text(sx + 292, sy + 176, "1000 µF", size=10, anchor="middle"),
            text(sx + 292, sy + 190, "stripe to GND", size=10, anchor="middle")]
    # The buzzer's driver: transistor, base resistor, series resistor, diode, speaker plug.
    bx, by = x0 + 40, y0 + 300
    buzzer = pinout["buzzer"]["pin"]
    out += resistor(bx, by, "1 kΩ")
    out += [text(bx, by + 22, f"← GPIO {buzzer} (header {HEADER_PIN[buzzer]})", size=10, fill=DATA_INK),
            f'<circle cx="{bx + 2 * HOLE + 22}" cy="{by}" r="12" fill="#2b2b2b"/>',
            text(bx + 2 * HOLE + 22, by + 30, "2N2222A: E to GND", size=10, anchor="middle")]
    out += resistor(bx + 110, by - 40, "33 Ω ½ W from +5 V")
    out += [box(bx + 200, by - 20, 60, 28, "#ffffff", TEXT),
            text(bx + 230, by - 1, "SPEAKER", size=10, anchor="middle", weight="bold"),
            text(bx + 230, by + 24, "1N4148 across it", size=10, anchor="middle")]
    # One connector and two 1 kOhm resistors per cradle, down the right-hand edge.
    cx, cy = x0 + w - 150, y0 + 60
    for i, colour in enumerate(c for c in COLOURS if c in pinout["timers"]):
        y = cy + i * 45
        pins = pinout["timers"][colour]["pins"]
        out += [box(cx + 90, y - 10, 46, 26, "#ffffff", INK[colour]),
                text(cx + 113, y + 7, colour[:3].upper(), size=10, anchor="middle", weight="bold", fill=INK[colour])]
        for k, gpio in enumerate(pins):
            out += resistor(cx + 20, y - 6 + 12 * k, "")
        out.append(text(cx + 15, y + 4, " / ".join(f"GPIO {g} ({HEADER_PIN[g]})" for g in pins), size=9,
                        anchor="end", fill=INK[colour]))
    out.append(text(cx + 45, cy - 22, "1 kΩ each", size=10, anchor="middle"))
    out.append(text(cx + 113, cy - 22, "XH: sw0 sw1 GND", size=10, anchor="middle"))
    notes = ["Wire every switch's can lead to GND (the beeper finds it: it beeps",
             "to the metal can) and the other through its 1 kΩ to its GPIO.",
             "The DC jack's centre (+) goes to the fuse, then the +5 V bus;",
             "its sleeve (−) to the GND bus, and a wire to a GND pin of the Pi.",
             "Pi and board sit on standoffs in the enclosure; the cables",
             "leave through one slot, each held by a cable tie inside."]
    out += [text(x0 + w + 20, y0 + 20 + 16 * k, row, size=11, fill=MUTED) for k, row in enumerate(notes)]
    return out


def strip(layout: StripLayout) -> list[str]:
    """The pieces in strip order with their LED numbers, the cuts between them, the links and both feeds."""
    pieces = [(c, layout.segment_start(c), layout.segment_len) for c in layout.colours]
    if layout.countdown_leds or layout.token_leds:
        pieces.append(("track + tokens", layout.countdown_start, layout.countdown_leds + layout.token_leds))
    y = STRIP_TOP + 90
    unit = (WIDTH - 120 - 40 * (len(pieces) - 1)) / layout.total
    out = [text(24, STRIP_TOP, f"The strip: cut {layout.total} LEDs into {len(pieces)} pieces across the copper pads, "
                               f"join them DOUT → DIN with {len(pieces) - 1} links, feed both ends", size=16,
                weight="bold"),
           text(24, STRIP_TOP + 20, f"At {PER_M} LEDs/m the pieces total {layout.total / PER_M:.2f} m. "
                                    "Links: 20 AWG, up to 0.3 m. Feeds: 18 AWG, up to 1 m each.", size=12, fill=MUTED)]
    x = 60
    ends = []
    for k, (name, start, count) in enumerate(pieces):
        length = round(count * unit)
        ink = INK.get(name, TEXT)
        out += [box(x, y - 12, length, 24, "#ffffff", ink),
                text(x + length // 2, y + 4, name, size=11, anchor="middle", weight="bold", fill=ink),
                text(x + length // 2, y + 30, f"LEDs {start}–{start + count - 1}", size=10, anchor="middle",
                     fill=MUTED)]
        if k:
            out += [wire([(ends[-1], y), (x, y)], DATA_INK), text((ends[-1] + x) // 2, y - 18, "✂", size=14,
                                                                 anchor="middle")]
        ends.append(x + length)
        x += length + 40
    first, last = 60, ends[-1]
    feed_y = y + 100
    out += [wire([(first, y + 12), (first, feed_y), (last, feed_y), (last, y + 12)], POWER_INK, 3),
            wire([(first + 8, y + 12), (first + 8, feed_y + 20), (last - 8, feed_y + 20), (last - 8, y + 12)],
                 GND_INK, 3),
            box(WIDTH // 2 - 110, feed_y - 14, 220, 48, "#ffffff", TEXT),
            text(WIDTH // 2, feed_y + 4, "5 V supply → 7.5 A fuse → split", size=11, anchor="middle", weight="bold"),
            text(WIDTH // 2, feed_y + 22, "one pair to each end of the strip", size=11, anchor="middle"),
            text(first, y - 24, "DIN ← 330 Ω", size=11, fill=DATA_INK),
            text(first, feed_y + 40, "5V and GND in at the first piece's DIN end", size=11),
            text(last, feed_y + 40, "and again at the last piece's far end", size=11, anchor="end")]
    return out


if __name__ == "__main__":
    main()
