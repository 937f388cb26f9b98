"""Draw the LED strip's layout, hw/leds.svg, from the layout the daemon itself uses (companion.leds.StripLayout).

    python hw/leds.py           # write hw/leds.svg
    python hw/leds.py --check   # exit 1 if hw/leds.svg is not what the layout draws

Every LED is numbered by its place on the strip (0 is the first after DIN).
Each glass's segment is drawn as the daemon lights it: its first half is the
top bulb (lit from the neck outward), its second half the bottom bulb.
Standard library and the package only, deterministic, like hw/wiring.py.
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "hw"))

from companion.leds import StripLayout  # noqa: E402
from drawing import DATA_INK, GOLD_INK, INK, MUTED, TEXT, TRACK_INK, page, text, write_or_check  # noqa: E402

SVG_PATH = ROOT / "hw" / "leds.svg"

WIDTH = 1040
PITCH = 34          # LED to LED in the drawing
LED_R = 9
LEFT = 200          # x of the first LED of a row
TOP = 110           # y of the first row
ROW_H = 62          # row to row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if hw/leds.svg is out of date")
    args = parser.parse_args()
    svg = draw(StripLayout())
    write_or_check(svg, SVG_PATH, args.check, "the strip layout")


def draw(layout: StripLayout) -> str:
    """The whole drawing as SVG text, a pure function of the layout."""
    rows = len(layout.colours) + (1 if layout.countdown_leds or layout.token_leds else 0)
    height = TOP + rows * ROW_H + 90
    parts = [
        text(24, 36, "The LED strip: one segment per glass, then the countdown track and the crowd tokens",
             size=20, weight="bold"),
        text(24, 58, f"{layout.total} WS2812 LEDs in one chain, numbered from the strip's DIN end. "
                     "Drawn from the layout the daemon uses (companion/leds.py).", size=12, fill=MUTED),
        text(24, 76, "Cut the strip between segments and join them DOUT → DIN in this order; "
                     "each row is one piece.", size=12, fill=MUTED),
    ]
    y = TOP
    for i, colour in enumerate(layout.colours):
        parts.append(segment(layout, colour, y))
        parts.append(link(y, i == 0))
        y += ROW_H
    if layout.countdown_leds or layout.token_leds:
        parts.append(tail(layout, y))
        parts.append(link(y, False))
        y += ROW_H
    parts.append(key(y))
    return document(parts, height)


def led_x(i: int) -> int:
    """x of the i-th LED of a row; a gap between the two bulbs of a glass."""
    return LEFT + i * PITCH


def segment(layout: StripLayout, colour: str, y: int) -> str:
    start, n = layout.segment_start(colour), layout.segment_len
    half, ink = n // 2, INK[colour]
    out = [text(24, y + 5, colour, size=14, weight="bold", fill=ink),
           text(24, y + 21, f"LEDs {start}–{start + n - 1}", size=11, fill=MUTED)]
    for i in range(n):
        x = led_x(i) + (PITCH // 2 if i >= half else 0)
        top = i < half
        out.append(circle(x, y, ink if top else "#ffffff", ink))
        out.append(number(x, y, start + i))
    neck = (led_x(half - 1) + led_x(half) + PITCH // 2) // 2
    out.append(f'<line x1="{neck}" y1="{y - 16}" x2="{neck}" y2="{y + 12}" stroke="{TEXT}" stroke-dasharray="3 3"/>')
    out.append(text((led_x(0) + led_x(half - 1)) // 2, y - 15, "top bulb  →  neck (drains toward it)",
                    size=11, anchor="middle"))
    out.append(text((led_x(half) + led_x(n - 1)) // 2 + PITCH // 2, y - 15,
                    "neck  ←  bottom bulb (fills from the far end)", size=11, anchor="middle"))
    return "\n".join(out)


def tail(layout: StripLayout, y: int) -> str:
    """The countdown track (LED i shows space n-1-i) and the crowd tokens, one piece."""
    out = [text(24, y + 5, "track + tokens", size=14, weight="bold"),
           text(24, y + 21, f"LEDs {layout.countdown_start}–{layout.total - 1}", size=11, fill=MUTED)]
    n = layout.countdown_leds
    for i in range(n):
        x = led_x(i)
        out.append(circle(x, y, "#ffffff", TRACK_INK, square=True))
        out.append(number(x, y, layout.countdown_start + i))
        out.append(text(x, y - 14, str(n - 1 - i), size=11, anchor="middle"))
    for i in range(layout.token_leds):
        x = led_x(n + 1 + i)
        out.append(circle(x, y, GOLD_INK, GOLD_INK))
        out.append(number(x, y, layout.tokens_start + i))
        out.append(text(x, y - 14, f"★{i + 1}", size=11, anchor="middle"))
    right = led_x(n + layout.token_leds) + 20
    out.append(text(right, y - 2, f"countdown track: space {n - 1} first, space 0 (the button) last" if n else "",
                    size=11))
    out.append(text(right, y + 14, "crowd tokens: gold while star side up" if layout.token_leds else "", size=11))
    return "\n".join(out)


def link(y: int, first: bool) -> str:
    """The data wire into this row: DIN from the level shifter, or DOUT of the row above."""
    x = LEFT - 24
    label = "DIN ← level shifter" if first else "DIN ← DOUT above"
    path = f"M{x} {y - 34} L{x} {y} L{LEFT - LED_R - 2} {y}"
    return "\n".join([
        f'<path d="{path}" fill="none" stroke="{DATA_INK}" stroke-width="2"/>',
        f'<path d="M{LEFT - LED_R - 2} {y} l-7 -4 v8 z" fill="{DATA_INK}"/>',
        text(24, y + 36, label, size=11, fill=DATA_INK),
    ])


def key(y: int) -> str:
    rows = [
        "Filled circle: top bulb (sand on top). Open circle: bottom bulb. Square: a countdown space.",
        "A low glass flashes its top bulb in its own rhythm; a run-out blinks the whole segment; "
        "a sensor fault swaps amber and white.",
        "Drawn at the default lengths (segment_leds, countdown_leds and token_leds in the config's [strip] section).",
    ]
    return "\n".join(text(24, y + i * 18, row, size=12, fill=MUTED) for i, row in enumerate(rows))


def circle(x: int, y: int, fill: str, stroke: str, square=False) -> str:
    if square:
        return (f'<rect x="{x - LED_R}" y="{y - LED_R}" width="{2 * LED_R}" height="{2 * LED_R}" rx="2" '
                f'fill="{fill}" stroke="{stroke}" stroke-width="2"/>')
    return f'<circle cx="{x}" cy="{y}" r="{LED_R}" fill="{fill}" stroke="{stroke}" stroke-width="2"/>'


def number(x: int, y: int, index: int) -> str:
    """An LED's place on the strip, under it (marked, so a check can read every LED's number)."""
    return text(x, y + 25, str(index), size=11, anchor="middle", fill=MUTED).replace("<text ", '<text class="led" ', 1)


def document(parts: list[str], height: int) -> str:
    return page(WIDTH, height, parts,
                "The LED strip: six hourglass segments, the countdown track and the crowd tokens")


if __name__ == "__main__":
    main()
