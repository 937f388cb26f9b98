"""What the drawings of hw/ share: the inks, the font, a line of text, the page, and write-or-check.

Each drawing (wiring.py, hub_wiring.py, leds.py) is a script that draws one
SVG from the data it documents and checks, with `--check`, that the
committed SVG is still what that data draws. Standard library only, and
deterministic: the same data always draws the same bytes.

>>> text(10, 20, "GPIO 4 & 5", weight="bold")
'<text x="10" y="20" font-size="12" font-weight="bold">GPIO 4 &amp; 5</text>'
"""

import sys
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent

# Wire inks: each timer's colour, dark enough to see on white (a true yellow vanishes).
INK = {"red": "#d0312d", "orange": "#e8730c", "yellow": "#c29b00", "green": "#2e9e46",
       "blue": "#2463d1", "purple": "#8040bf"}
TEXT, MUTED, GND_INK, DATA_INK, POWER_INK = "#1e1e1e", "#5f5f5f", "#3a3a3a", "#0f7c8a", "#b00020"
GOLD_INK, TRACK_INK, BOARD_INK = "#b07800", "#444444", "#2f6b3a"
CARD_EDGE = "#6f9a6f"
FONT = "DejaVu Sans, Arial, Helvetica, sans-serif"  # what it was checked with, else narrower


def text(x, y, s: str, size=12, anchor="start", weight=None, fill=None) -> str:
    """One line of text; attributes at their defaults are left out."""
    attrs = f'x="{x}" y="{y}" font-size="{size}"'
    attrs += f' text-anchor="{anchor}"' if anchor != "start" else ""
    attrs += f' font-weight="{weight}"' if weight else ""
    attrs += f' fill="{fill}"' if fill else ""
    return f"<text {attrs}>{escape(s)}</text>"


def page(width: int, height: int, parts: list[str], title: str | None = None) -> str:
    """A whole drawing: the SVG element with the font and ink, a title, a white sheet, then `parts`."""
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}" fill="{TEXT}">',
        *([f"<title>{escape(title)}</title>"] if title else []),
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        *parts,
        "</svg>",
        "",
    ])


def write_or_check(svg: str, path: Path, check: bool, source: str) -> None:
    """Write a drawing, or with `check` exit 1 if the committed one is not what `source` draws now."""
    if check:
        if not path.exists() or path.read_text(encoding="utf-8") != svg:
            sys.exit(f"hw/{path.name} is out of date with {source}: run python hw/{path.stem}.py")
        return
    path.write_text(svg, encoding="utf-8")
    print(f"wrote {path}")
