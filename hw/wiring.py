"""Draw the reference build's wiring diagram, hw/wiring.svg, from the pin map hw/pinout.toml.

    python hw/wiring.py           # write hw/wiring.svg
    python hw/wiring.py --check   # exit 1 if hw/wiring.svg is not what pinout.toml draws

Standard library only, and deterministic (no dates, integer coordinates), so
the committed drawing can be checked against the pin map and never drifts.
"""

import argparse
import sys
import textwrap
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "hw"))

from companion.errors import BadInput  # noqa: E402
from companion.hardware.pins import load_pinout  # noqa: E402
from companion.skyrockets.colours import COLOURS  # noqa: E402
from drawing import CARD_EDGE, DATA_INK, GND_INK, INK, MUTED, POWER_INK, TEXT, page, text, write_or_check  # noqa: E402

SVG_PATH = ROOT / "hw" / "wiring.svg"

# BCM GPIO -> physical pin of the 40-pin header (the same on every 40-pin Pi).
HEADER_PIN = {0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32,
              13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16,
              24: 18, 25: 22, 26: 37, 27: 13}
GPIO_AT = {pin: gpio for gpio, pin in HEADER_PIN.items()}
POWER_PINS = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V"} | {pin: "GND" for pin in (6, 9, 14, 20, 25, 30, 34, 39)}

WIDTH, HEIGHT = 1040, 1230
ROW = 24                       # pin pitch of the header in the drawing
TOP = 116                      # y of pins 1 and 2
CX = 590                       # the header's centre line
CARD = 86                      # the header card spans CX +- CARD
GAP = 12                       # between wires that run side by side
LEFT_LANES = 26                # outermost lane on the left
RIGHT_LANES = CX + CARD + 130  # innermost lane on the right: room for the wire labels
TRACKS = TOP + 19 * ROW + 32   # first horizontal track under the header
CRADLE_W, CRADLE_H, CRADLE_PITCH = 152, 92, 165
CRADLE_TOP = TRACKS + 11 * GAP + 20
BUS_Y = CRADLE_TOP + CRADLE_H + 20
BUS_PIN = 14                   # above every right-hand wire, so its lane runs outside all of them
STRIP_GND_PIN, BUZZER_GND_PIN = 25, 39  # on the left, level with those devices: short, straight wires
DETAIL_TOP = 935               # the two detail panels under the overview
RAIL_5V, RAIL_GND = DETAIL_TOP + 62, DETAIL_TOP + 250
# The 74AHCT125: one gate buffers the data; the pins of the three unused gates go to GND.
SHIFTER_SPARE_PINS = "2A 3A 4A and 2/OE 3/OE 4/OE (pins 5, 9, 12 and 4, 10, 13)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if hw/wiring.svg is out of date")
    args = parser.parse_args()
    try:
        svg = draw(load_pinout(ROOT / "hw" / "pinout.toml"))
    except BadInput as e:
        sys.exit(str(e))
    write_or_check(svg, SVG_PATH, args.check, "hw/pinout.toml")


def draw(pinout: dict) -> str:
    """The whole drawing as SVG text, a pure function of the pin map."""
    cradles = [c for c in COLOURS if c in pinout["timers"]]
    used = {}  # header pin -> ink of its wire, filled in as the wires are drawn, to ring those pins
    parts = [title(), header_card_frame()]
    wires, devices = [], []

    # The cradles in a row along the bottom, each switch wired through the harness.
    harness = []
    for i, colour in enumerate(cradles):
        x = 20 + i * CRADLE_PITCH + CRADLE_W // 2
        pins = pinout["timers"][colour]["pins"]
        devices.append(cradle(x, colour, pins))
        for switch, gpio in enumerate(pins):
            harness.append((gpio, colour, switch, x + (switch * 2 - 1) * CRADLE_W // 4))
    wires += route_harness(harness, used)
    wires.append(bus_wire(len(cradles), used))

    if "strip" in pinout:
        devices.append(strip_chain(pinout["strip"]["spi_mosi"], used))
        if "pwm" in pinout["strip"]:
            wires.append(alternative_data_pin(pinout["strip"]["pwm"], used))
    if "buzzer" in pinout:
        devices.append(buzzer(pinout["buzzer"]["pin"], used))
    if "strip" in pinout:
        devices.append(strip_detail(pinout["strip"]["spi_mosi"]))
    if cradles:
        devices.append(single_switch_cradle(pinout["timers"][cradles[0]]["pins"]))

    parts += wires + devices + [header_card_frame(outline=True), header_pins(used), legend(pinout)]
    return svg_document(parts)


# The header

def row_y(pin: int) -> int:
    return TOP + (pin - 1) // 2 * ROW


def edge_x(pin: int) -> int:
    """Where a wire leaves the header card: odd pins on the left, even pins on the right."""
    return CX - CARD if pin % 2 else CX + CARD


def title() -> str:
    return "\n".join([
        text(24, 36, "Wiring the hourglass table to a Raspberry Pi", size=20, weight="bold"),
        text(24, 58, "Header seen from above. GPIO numbers are BCM (what the software uses); "
                     "pin numbers are the header's. Drawn from hw/pinout.toml.", size=12, fill=MUTED),
    ])


def header_card_frame(outline=False) -> str:
    """The header card: its fill and title under the wires, its outline (`outline`) over their ends."""
    top, bottom = row_y(1) - 22, row_y(39) + 18
    if outline:
        return rect(CX - CARD, top, 2 * CARD, bottom - top, fill="none", stroke=CARD_EDGE, rx=8)
    return "\n".join([
        text(CX, top - 8, "Raspberry Pi 40-pin header", size=13, weight="bold", anchor="middle"),
        rect(CX - CARD, top, 2 * CARD, bottom - top, fill="#eef5ee", stroke=CARD_EDGE, rx=8),
    ])


def header_pins(used: dict) -> str:
    """The 40 numbered pins, odd ones left, with their names; pins that carry a wire named in bold."""
    out = []
    for pin in range(1, 41):
        x, y, left = CX - 13 if pin % 2 else CX + 13, row_y(pin), pin % 2 == 1
        power = POWER_PINS.get(pin)
        name = power or f"GPIO {GPIO_AT[pin]}"
        fill, ink = {"GND": ("#3a3a3a", "#ffffff"), "5V": ("#f4cccc", TEXT), "3V3": ("#fbe3c4", TEXT)}.get(
            power, ("#ffffff", TEXT))
        if pin == 1:  # pin 1 is the square pad
            out.append(rect(x - 10, y - 10, 20, 20, fill=fill, stroke=TEXT, rx=2))
        else:  # a pin that carries a wire is ringed in the wire's colour
            ring = f'stroke="{used[pin]}" stroke-width="3"' if pin in used else f'stroke="{TEXT}" stroke-width="1"'
            out.append(f'<circle cx="{x}" cy="{y}" r="10" fill="{fill}" {ring}/>')
        out.append(text(x, y + 4, str(pin), size=11, anchor="middle", fill=ink))
        out.append(text(x - 17 if left else x + 17, y + 4, name, size=11, anchor="end" if left else "start",
                        weight="bold" if pin in used or power else None,
                        fill=TEXT if pin in used or power else MUTED))
    out.append(text(CX - CARD - 8, row_y(1) + 4, "pin 1 (square pad)", size=11, anchor="end"))
    return "\n".join(out)


# Wires

def route_harness(harness: list, used: dict) -> list[str]:
    """Wire each switch to its cradle: out of the header, down a lane beside it, along a track, down.

    On each side the upper pins take the outer lanes, so no wire crosses
    another between the header and the tracks; the inner lanes turn onto the
    higher tracks for the same reason. Crossings are left only where a drop
    meets a track (the white edge under every wire shows which runs on top).
    """
    left = sorted((h for h in harness if HEADER_PIN[h[0]] % 2), key=lambda h: HEADER_PIN[h[0]])
    right = sorted((h for h in harness if not HEADER_PIN[h[0]] % 2), key=lambda h: HEADER_PIN[h[0]])
    lanes = {h: LEFT_LANES + i * GAP for i, h in enumerate(left)}
    lanes |= {h: RIGHT_LANES + (len(right) - 1 - i) * GAP for i, h in enumerate(right)}
    tracks = {h: TRACKS + i * GAP for i, h in enumerate([*reversed(right), *reversed(left)])}
    out = []
    for h in harness:
        gpio, colour, switch, x = h
        pin = HEADER_PIN[gpio]
        used[pin] = INK[colour]
        y, lane, track = row_y(pin), lanes[h], tracks[h]
        out.append(wire([(edge_x(pin), y), (lane, y), (lane, track), (x, track), (x, CRADLE_TOP)], INK[colour]))
        out.append(wire_label(pin, f"{colour} · switch {switch}"))
    return out


def bus_wire(count: int, used: dict) -> str:
    """The GND bus under the cradles, and its wire up the right-hand side to a GND pin of the header."""
    y, lane = row_y(BUS_PIN), WIDTH - 16
    first, last = 20 + CRADLE_W // 2, 20 + (count - 1) * CRADLE_PITCH + CRADLE_W // 2
    used[BUS_PIN] = GND_INK
    leads = [wire([(x, CRADLE_TOP + CRADLE_H), (x, BUS_Y)], GND_INK) + dot(x, BUS_Y)
             for x in range(first, last + 1, CRADLE_PITCH)]
    return "\n".join([
        wire([(edge_x(BUS_PIN), y), (lane, y), (lane, BUS_Y), (first, BUS_Y)], GND_INK, width=4),
        *leads,
        wire_label(BUS_PIN, f"GND · pin {BUS_PIN} · to the GND bus"),
        text(first, BUS_Y + 22, "GND bus: every switch's can lead (the other through 1 kΩ to its GPIO), or a button's",
             size=12, weight="bold"),
    ])


def alternative_data_pin(gpio: int, used: dict) -> str:
    """The strip's other data pin, for the drivers that need it: a dashed stub, not wired."""
    pin = HEADER_PIN[gpio]
    used[pin] = MUTED
    return "\n".join([
        wire([(edge_x(pin), row_y(pin)), (edge_x(pin) + 60, row_y(pin))], MUTED, dash=True),
        wire_label(pin, f"GPIO {gpio} · pin {pin}: strip data for the PWM or Pi 5 driver"),
    ])


def wire_label(pin: int, label: str) -> str:
    """The wire's name, just outside the header card, above the wire."""
    left = pin % 2 == 1
    return text(edge_x(pin) + (-8 if left else 8), row_y(pin) - 5, label, size=11,
                anchor="end" if left else "start")


# Devices

def cradle(x: int, colour: str, pins: list) -> str:
    """A cradle box: its colour, and under each wire's terminal the switch, its pose and its pins."""
    left, top = x - CRADLE_W // 2, CRADLE_TOP
    out = [rect(left, top, CRADLE_W, CRADLE_H, fill="#ffffff", stroke=TEXT),
           rect(left + 5, top + CRADLE_H - 10, CRADLE_W - 10, 5, fill=INK[colour], stroke=INK[colour], rx=2),
           text(x, top + 18, colour, size=13, weight="bold", anchor="middle")]
    for switch, gpio in enumerate(pins):
        sx = x + (switch * 2 - 1) * CRADLE_W // 4
        out.append(dot(sx, top, INK[colour]))
        out.append(lines(sx, top + 36, [f"switch {switch}", "(A up)" if switch == 0 else "(B up)",
                                        f"GPIO {gpio}", f"pin {HEADER_PIN[gpio]}"], anchor="middle"))
    return "\n".join(out)


def strip_chain(gpio: int, used: dict) -> str:
    """GPIO -> level shifter -> 330 ohm -> strip DIN; the 5 V supply under the strip; one common ground."""
    pin, gnd = HEADER_PIN[gpio], STRIP_GND_PIN
    y, gy = row_y(pin), row_y(gnd)
    top, bottom = y - 22, y + 22
    strip, shifter, supply = (106, 100), (262, 110), (112, 72)  # (left, width) of each box
    plus = supply[0] + supply[1] // 2
    used[pin], used[gnd] = DATA_INK, GND_INK
    taps = [wire([(x, bottom), (x, gy)], GND_INK) + dot(x, gy)
            for x in (strip[0] + strip[1] - 10, shifter[0] + shifter[1] // 2)]
    return "\n".join([
        wire([(edge_x(pin), y), (shifter[0] + shifter[1], y)], DATA_INK),
        wire([(shifter[0], y), (strip[0] + strip[1], y)], DATA_INK) + arrow(strip[0] + strip[1], y),
        text((shifter[0] + strip[0] + strip[1]) // 2, y - 6, "330 Ω", size=11, anchor="middle"),
        wire([(plus, bottom + 14), (plus, bottom)], POWER_INK),
        text(plus + 6, bottom + 11, "5 V", size=11),
        wire([(edge_x(gnd), gy), (plus, gy), (plus, bottom + 38)], GND_INK) + dot(plus, gy),
        *taps,
        rect(strip[0], top, strip[1], bottom - top, fill="#ffffff", stroke=TEXT),
        rect(shifter[0], top, shifter[1], bottom - top, fill="#ffffff", stroke=TEXT),
        rect(supply[0], bottom + 14, supply[1], 24, fill="#ffffff", stroke=TEXT),
        lines(strip[0] + strip[1] // 2, top + 18, ["LED strip", "WS2812 DIN"], anchor="middle", bold_first=True),
        lines(shifter[0] + shifter[1] // 2, top + 18, ["3.3->5 V", "level shifter"], anchor="middle",
              bold_first=True),
        text(plus, bottom + 30, "5 V supply", size=11, anchor="middle"),
        wire_label(pin, f"GPIO {gpio} · pin {pin}"),
        wire_label(gnd, f"GND · pin {gnd}"),
        text(strip[0], gy + 20, "5 V supply, common ground; never the Pi's 5 V pins (detail below)", size=11),
    ])


def strip_detail(gpio: int) -> str:
    """The strip's data and power in full: the shifter's supply and enable, resistor, capacitors, fuse."""
    pin, top = HEADER_PIN[gpio], DETAIL_TOP
    data_y, oe_y = top + 140, top + 182
    pi, shifter, strip, supply = (20, 150), (250, 400), (560, 650), (770, 860)  # (left, right) of each box
    vcc_x, strip_x, bulk_x, small_x, supply_x = 325, 605, 690, 440, 815
    gnd_taps = [170, 225, vcc_x, small_x, strip_x, bulk_x, supply_x]
    return "\n".join([
        text(20, top, "LED strip in detail: level shifter, data resistor, capacitors, supply and grounds",
             size=14, weight="bold"),
        text(20, top + 18, "A 5 V supply rated for the LEDs, fed to both ends of the strip (perfboard.svg); the Pi keeps its own USB supply.",
             size=11, fill=MUTED),
        # the two rails
        wire([(vcc_x, RAIL_5V), (supply_x, RAIL_5V)], POWER_INK, width=4),
        text(vcc_x + 6, RAIL_5V - 8, "+5 V rail", size=11, weight="bold", fill=POWER_INK),
        wire([(170, RAIL_GND), (supply_x, RAIL_GND)], GND_INK, width=4),
        text(20, RAIL_GND + 4, "GND rail: one ground", size=11, weight="bold"),
        *[dot(x, RAIL_GND) for x in gnd_taps],
        # the Pi
        rect(pi[0], top + 110, pi[1] - pi[0], 100, fill="#eef5ee", stroke=CARD_EDGE),
        lines(pi[0] + 10, top + 128, ["Raspberry Pi", f"GPIO {gpio} · pin {pin}", "", f"GND · pin {STRIP_GND_PIN}"],
              bold_first=True),
        wire([(pi[1], data_y), (shifter[0], data_y)], DATA_INK) + arrow(shifter[0] - 9, data_y),
        wire([(pi[1], top + 190), (170, top + 190), (170, RAIL_GND)], GND_INK),
        # the level shifter
        rect(shifter[0], top + 100, shifter[1] - shifter[0], 110, fill="#ffffff", stroke=TEXT),
        lines((shifter[0] + shifter[1]) // 2, top + 158, ["74AHCT125", "3.3 → 5 V"], anchor="middle",
              bold_first=True),
        text(shifter[0] + 6, data_y + 4, "2 1A", size=11),
        text(shifter[0] + 6, oe_y + 4, "1 /OE", size=11),
        text(shifter[1] - 6, data_y + 4, "1Y 3", size=11, anchor="end"),
        text(vcc_x, top + 116, "14 VCC", size=11, anchor="middle"),
        text(vcc_x, top + 204, "7 GND", size=11, anchor="middle"),
        wire([(vcc_x, RAIL_5V), (vcc_x, top + 100)], POWER_INK),
        wire([(vcc_x, top + 210), (vcc_x, RAIL_GND)], GND_INK),
        wire([(shifter[0], oe_y), (225, oe_y), (225, RAIL_GND)], GND_INK),
        lines(shifter[0], RAIL_GND + 22, ["1 /OE to GND keeps the gate on. "
                                          f"Unused {SHIFTER_SPARE_PINS}: to GND too."]),
        # the 100 nF decoupling capacitor beside the shifter
        capacitor(small_x, "100 nF", polarised=False),
        # the data resistor and the strip
        wire([(shifter[1], data_y), (480, data_y)], DATA_INK),
        resistor(480, 540, data_y, "330 Ω"),
        wire([(540, data_y), (strip[0], data_y)], DATA_INK) + arrow(strip[0] - 9, data_y),
        rect(strip[0], top + 100, strip[1] - strip[0], 110, fill="#ffffff", stroke=TEXT),
        lines((strip[0] + strip[1]) // 2, top + 158, ["WS2812", "strip"], anchor="middle", bold_first=True),
        text(strip[0] + 6, data_y + 4, "DIN", size=11),
        text(strip_x, top + 116, "5V", size=11, anchor="middle"),
        text(strip_x, top + 204, "GND", size=11, anchor="middle"),
        wire([(strip_x, RAIL_5V), (strip_x, top + 100)], POWER_INK),
        wire([(strip_x, top + 210), (strip_x, RAIL_GND)], GND_INK),
        # the bulk capacitor where the supply joins the strip
        capacitor(bulk_x, "1000 µF", polarised=True),
        # the supply, fused
        rect(supply[0], top + 140, supply[1] - supply[0], 60, fill="#ffffff", stroke=TEXT),
        lines((supply[0] + supply[1]) // 2, top + 160, ["5 V supply", "+ above, − below"], anchor="middle",
              bold_first=True),
        wire([(supply_x, RAIL_5V), (supply_x, top + 140)], POWER_INK),
        rect(supply_x - 7, top + 92, 14, 26, fill="#ffffff", stroke=TEXT, rx=2),
        text(supply_x + 12, top + 110, "fuse", size=11),
        wire([(supply_x, top + 200), (supply_x, RAIL_GND)], GND_INK),
    ])


def capacitor(x: int, value: str, polarised: bool) -> str:
    """A capacitor standing between the 5 V rail and the GND rail; a polarised one marked + on the rail side."""
    mid = (RAIL_5V + RAIL_GND) // 2
    plates = (f'<line x1="{x - 12}" y1="{mid - 4}" x2="{x + 12}" y2="{mid - 4}" stroke="{TEXT}" stroke-width="3"/>'
              f'<line x1="{x - 12}" y1="{mid + 4}" x2="{x + 12}" y2="{mid + 4}" stroke="{TEXT}" stroke-width="3"/>')
    return "\n".join([
        wire([(x, RAIL_5V), (x, mid - 4)], POWER_INK),
        wire([(x, mid + 4), (x, RAIL_GND)], GND_INK),
        plates,
        text(x + 16, mid - 8, "+" if polarised else "", size=12, weight="bold"),
        text(x + 16, mid + 16, value, size=11),
    ])


def resistor(x0: int, x1: int, y: int, value: str) -> str:
    """A zig-zag resistor on a horizontal wire from x0 to x1."""
    step = (x1 - x0) // 8
    points = [(x0, y)] + [(x0 + step * (i + 1), y + (-6 if i % 2 == 0 else 6)) for i in range(7)] + [(x1, y)]
    return wire(points, TEXT, width=2) + text((x0 + x1) // 2, y - 12, value, size=11, anchor="middle")


def single_switch_cradle(pins: list) -> str:
    """The cheaper cradle: switch 0 only, on the colour's first pin; the second pin stays free."""
    left, top = 878, DETAIL_TOP
    box_top = top + 100
    sx, gx = left + 40, left + 110
    return "\n".join([
        text(left, top, "One-switch cradle", size=14, weight="bold"),
        lines(left, top + 18, ["One switch, leads to B, on", "the colour's first pin:",
                               "closed = A up, open = B up;", "it never reads lying.",
                               "single_switch = true"]),
        wire([(sx, box_top - 10), (sx, box_top)], TEXT),
        text(sx, box_top - 14, f"GPIO {pins[0]}", size=11, anchor="middle"),
        wire([(gx, box_top - 10), (gx, box_top)], GND_INK),
        text(gx, box_top - 14, "GND", size=11, anchor="middle"),
        rect(left, box_top, 150, 92, fill="#ffffff", stroke=TEXT),
        dot(sx, box_top, TEXT), dot(gx, box_top),
        lines(left + 75, box_top + 24, ["switch 0 (A up)", "between the GPIO", "and GND;",
                                        f"GPIO {pins[1]} free"], anchor="middle"),
    ])


def buzzer(gpio: int, used: dict) -> str:
    """The buzzer (a speaker switched by an NPN transistor from 5 V) beside its pin, grounded on the GND pin two rows down."""
    pin, gnd = HEADER_PIN[gpio], BUZZER_GND_PIN
    y, gy = row_y(pin), row_y(gnd)
    left, right = CX - CARD - 200, CX - CARD - 40
    used[pin], used[gnd] = DATA_INK, GND_INK
    return "\n".join([
        wire([(edge_x(pin), y), (right, y)], DATA_INK) + arrow(right, y),
        wire([(edge_x(gnd), gy), (right, gy)], GND_INK),
        rect(left, y - 14, right - left, gy - y + 28, fill="#ffffff", stroke=TEXT),
        lines(left + 10, y + 4, ["buzzer", "8 Ω speaker, NPN, 5 V", f"GPIO {gpio} · 1 kΩ · pin {pin}", f"GND · pin {gnd}"],
              bold_first=True),
    ])


def legend(pinout: dict) -> str:
    """How to read the drawing, and the pins it leaves alone, in the free corner right of the header."""
    grounds = ", ".join(str(p) for p, name in POWER_PINS.items() if name == "GND")
    free = "; ".join(f"GPIO {' '.join(map(str, pins))} ({bus.upper()})"
                     for bus, pins in pinout.get("reserved", {}).items())
    spare = " ".join(map(str, pinout.get("spare", {}).get("pins", [])))
    paragraphs = [
        "Each wire has its timer's colour, its name beside the header, and the GPIO (BCM) and header "
        "pin numbers at its cradle.",
        "A colour run as an LED hourglass takes a flip button on its switch 0 pin instead.",
        f"All GND pins ({grounds}) are one ground.",
        f"Kept free: {free}." if free else "",
        f"Spare: GPIO {spare}." if spare else "",
    ]
    rows = [row for p in paragraphs if p for row in [*textwrap.wrap(p, 21), ""]]
    # Right of the purple wires' lanes, from the level of pin 19 down to above their tracks.
    return lines(RIGHT_LANES + 70, row_y(19) - 4, ["Key", *rows[:-1]], bold_first=True)


# SVG pieces

def svg_document(parts: list[str]) -> str:
    return page(WIDTH, HEIGHT, parts,
                "Wiring: the Raspberry Pi header, six hourglass cradles, the buzzer and the LED strip")


def lines(x, y, rows: list[str], anchor="start", bold_first=False, step=14) -> str:
    """Lines of 11 px text under each other, as one text element; the first in bold if asked."""
    spans, dy = [], 0
    for i, row in enumerate(rows):
        if not row:  # an empty row is a half-line gap between paragraphs
            dy += step // 2
            continue
        look = ' font-weight="bold" font-size="12"' if bold_first and i == 0 else ""
        spans.append(f'<tspan x="{x}" dy="{dy}"{look}>{escape(row)}</tspan>')
        dy = step
    align = f' text-anchor="{anchor}"' if anchor != "start" else ""
    return f'<text x="{x}" y="{y}" font-size="11"{align}>{"".join(spans)}</text>'


def rect(x, y, w, h, fill, stroke, rx=6) -> str:
    return (f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="1.5"/>')


def wire(points, ink: str, width=3, dash=False) -> str:
    """A wire on a white edge, so that where two cross, the one on top is plain to see."""
    d = " ".join(f"{x},{y}" for x, y in points)
    style = 'fill="none" stroke-linejoin="round"'
    dashes = ' stroke-dasharray="6 4"' if dash else ""
    return (f'<polyline points="{d}" {style} stroke="#ffffff" stroke-width="{width + 4}"/>'
            f'<polyline points="{d}" {style} stroke="{ink}" stroke-width="{width}"'
            f'{dashes}/>')


def dot(x, y, ink=GND_INK) -> str:
    return f'<circle cx="{x}" cy="{y}" r="4" fill="{ink}"/>'


def arrow(x, y, ink=DATA_INK) -> str:
    """An arrow head pointing left, its tip at (x, y): what the wire carries flows into the box there."""
    return f'<path d="M{x},{y} l9,-5 v10 z" fill="{ink}"/>'


if __name__ == "__main__":
    main()
