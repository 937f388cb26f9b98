"""The LED drawing: committed as the daemon's own strip layout draws it, every LED once, in strip order."""

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from companion.leds import StripLayout
from conftest import ROOT, hw_script

SVG_NS = "{http://www.w3.org/2000/svg}"


drawing = hw_script("leds")


def texts(svg: str) -> list[str]:
    return ["".join(e.itertext()) for e in ET.fromstring(svg).iter(f"{SVG_NS}text")]


def test_the_committed_drawing_is_what_the_layout_draws():
    assert (ROOT / "hw" / "leds.svg").read_text(encoding="utf-8") == drawing.draw(StripLayout())


def test_the_check_fails_on_a_stale_drawing(tmp_path, monkeypatch):
    stale = tmp_path / "leds.svg"
    stale.write_text("<svg/>\n", encoding="utf-8")
    monkeypatch.setattr(drawing, "SVG_PATH", stale)
    monkeypatch.setattr(sys, "argv", ["leds.py", "--check"])
    with pytest.raises(SystemExit) as caught:
        drawing.main()
    assert "out of date" in str(caught.value.code)
    done = subprocess.run([sys.executable, str(ROOT / "hw" / "leds.py"), "--check"],
                          capture_output=True, text=True, timeout=60, cwd="/")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("layout", [StripLayout(), StripLayout(segment_len=8, countdown_leds=0),
                                    StripLayout(segment_len=24, colours=("red", "blue"), token_leds=0)])
def test_every_led_is_numbered_once_in_strip_order(layout):
    svg = drawing.draw(layout)
    numbers = [int("".join(e.itertext())) for e in ET.fromstring(svg).iter(f"{SVG_NS}text") if e.get("class") == "led"]
    assert numbers == list(range(layout.total))
    shapes = [e for e in ET.fromstring(svg).iter() if e.tag in (f"{SVG_NS}circle", f"{SVG_NS}rect")
              and e.get("stroke-width") == "2"]
    assert len(shapes) == layout.total


def test_each_segment_is_half_top_bulb_half_bottom_bulb_in_its_colour():
    layout = StripLayout()
    root = ET.fromstring(drawing.draw(layout))
    circles = [c for c in root.iter(f"{SVG_NS}circle")]
    for colour in layout.colours:
        ink = drawing.INK[colour]
        own = [c for c in circles if c.get("stroke") == ink]
        assert len(own) == layout.segment_len, colour
        filled = [c for c in own if c.get("fill") == ink]
        assert len(filled) == layout.segment_len // 2, colour
        # the top bulb (filled) comes first along the strip
        assert max(float(c.get("cx")) for c in filled) < min(float(c.get("cx")) for c in own if c not in filled)
    for colour in layout.colours:
        start = layout.segment_start(colour)
        assert f"LEDs {start}–{start + layout.segment_len - 1}" in texts(drawing.draw(layout))
