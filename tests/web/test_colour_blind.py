"""The six timer fills stay apart for colour-blind eyes, and every timer has a symbol of its own anyway.

Each fill (companion.web.looks.LOOKS) is linearised from sRGB, passed through
the dichromacy simulation of Machado, Oliveira and Fernandes (2009) at
severity 1.0, clipped, and compared pairwise in CIELAB (D65) by CIEDE2000,
the difference formula made for small differences between surface colours
(CIE76 overrates differences between saturated colours, such as these).
"""

import itertools
import math
import re
from pathlib import Path

import pytest

from companion.skyrockets.colours import COLOURS, SYMBOLS
from companion.web.looks import LOOKS

SITE_CSS = Path(__file__).resolve().parents[2] / "companion" / "web" / "static" / "css" / "site.css"
TEXT_CONTRAST = 4.5  # WCAG AA for text: a symbol is drawn as text in its fill

# The least CIEDE2000 difference between two timers' fills, in every vision below: ten units or more
# tell two colours apart at a glance, about five times what a trained eye notices side by side.
MIN_DELTA_E = 10.0

# Machado et al. 2009, table of simulation matrices, severity 1.0 (for linear RGB).
SIMULATIONS = {
    "normal": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}


def linear(hex_colour: str) -> tuple[float, float, float]:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return tuple(channel(int(hex_colour[i:i + 2], 16) / 255) for i in (1, 3, 5))


def lab(rgb) -> tuple[float, float, float]:
    """CIELAB (D65) of a linear sRGB colour."""
    r, g, b = rgb
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def seen(hex_colour: str, vision: str) -> tuple[float, float, float]:
    m, rgb = SIMULATIONS[vision], linear(hex_colour)
    return lab([min(1.0, max(0.0, sum(m[row][k] * rgb[k] for k in range(3)))) for row in range(3)])


def ciede2000(first, second) -> float:
    """CIEDE2000 colour difference (Sharma, Wu and Dalal 2005), kL = kC = kH = 1."""
    (l1, a1, b1), (l2, a2, b2) = first, second
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360 if c1 else 0.0
    h2 = math.degrees(math.atan2(b2, a2)) % 360 if c2 else 0.0
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    dl, dc = l2 - l1, c2 - c1
    dhh = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh) / 2)
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6)) - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    rotation = 30 * math.exp(-(((h_mean - 275) / 25) ** 2))
    rc = 2 * math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    sc, sh = 1 + 0.045 * c_mean, 1 + 0.015 * c_mean * t
    rt = -math.sin(math.radians(2 * rotation)) * rc
    return math.sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dhh / sh) ** 2 + rt * (dc / sc) * (dhh / sh))


@pytest.mark.parametrize(("first", "second", "expected"), [
    # Sharma, Wu and Dalal's published test pairs 1, 7, 17 and 25.
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
])
def test_the_difference_formula_matches_the_published_pairs(first, second, expected):
    assert ciede2000(first, second) == pytest.approx(expected, abs=1e-4)
    assert ciede2000(second, first) == pytest.approx(expected, abs=1e-4)


def test_a_dichromat_loses_what_the_simulation_says():
    """Pure red and green, far apart to a normal eye, nearly merge under deuteranopia: the simulation bites."""
    normal = ciede2000(seen("#ff0000", "normal"), seen("#00c000", "normal"))
    deutan = ciede2000(seen("#ff0000", "deuteranopia"), seen("#00c000", "deuteranopia"))
    assert normal > 50 and deutan < normal / 2


@pytest.mark.parametrize("vision", list(SIMULATIONS))
def test_every_pair_of_timer_fills_stays_apart(vision):
    fills = {colour: seen(LOOKS[colour]["fill"], vision) for colour in COLOURS}
    closest = min((ciede2000(fills[a], fills[b]), a, b) for a, b in itertools.combinations(COLOURS, 2))
    assert closest[0] >= MIN_DELTA_E, f"{vision}: {closest[1]} and {closest[2]} differ by only {closest[0]:.1f}"


def test_every_timer_has_its_own_symbol_and_shape():
    assert list(SYMBOLS) == list(COLOURS) == list(LOOKS)
    assert len({s.glyph for s in SYMBOLS.values()}) == len({s.shape for s in SYMBOLS.values()}) == len(COLOURS)
    assert all(LOOKS[c]["symbol"] == SYMBOLS[c].glyph for c in COLOURS)


@pytest.mark.parametrize("surface", ["--bg", "--surface", "--raised"])
def test_every_fill_is_readable_as_text_on_the_pages_backgrounds(surface):
    background = re.search(rf"{surface}: (#[0-9a-f]{{6}});", SITE_CSS.read_text())[1]

    def luminance(hex_colour: str) -> float:
        r, g, b = linear(hex_colour)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    for colour in COLOURS:
        ratio = (luminance(LOOKS[colour]["fill"]) + 0.05) / (luminance(background) + 0.05)
        assert ratio >= TEXT_CONTRAST, f"{colour} on {surface}: {ratio:.2f}"
