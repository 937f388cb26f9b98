"""The build's pictures of the cradle and the board: committed as the model, the pin map and the strip layout draw them."""

import shutil
import xml.etree.ElementTree as ET

import pytest

from companion.hardware.pins import load_pinout
from companion.leds import StripLayout
from companion.skyrockets.colours import COLOURS
from conftest import ROOT, hw_script

SVG_NS = "{http://www.w3.org/2000/svg}"
board = hw_script("perfboard")
views = hw_script("cradle_views")


def texts(svg: str) -> str:
    return " ".join("".join(e.itertext()) for e in ET.fromstring(svg).iter(f"{SVG_NS}text"))


def test_the_committed_board_drawing_is_what_the_pin_map_and_strip_layout_draw():
    assert (ROOT / "hw" / "perfboard.svg").read_text(encoding="utf-8") == \
        board.draw(load_pinout(ROOT / "hw" / "pinout.toml"), StripLayout())


def test_the_board_labels_every_switch_pin_and_both_strip_feeds():
    pinout = load_pinout(ROOT / "hw" / "pinout.toml")
    words = texts(board.draw(pinout, StripLayout()))
    for colour in COLOURS:
        for gpio in pinout["timers"][colour]["pins"]:
            assert f"GPIO {gpio} ({board.HEADER_PIN[gpio]})" in words, gpio
    assert "1 kΩ each" in words and "first piece's DIN end" in words and "last piece's far end" in words
    assert f"GPIO {pinout['buzzer']['pin']}" in words and "2N2222A" in words


@pytest.mark.parametrize("layout", [StripLayout(), StripLayout(segment_len=8, countdown_leds=0, token_leds=0)])
def test_the_strip_is_cut_into_its_pieces_with_one_link_fewer(layout):
    svg = board.draw(load_pinout(ROOT / "hw" / "pinout.toml"), layout)
    pieces = len(layout.colours) + (1 if layout.countdown_leds or layout.token_leds else 0)
    assert texts(svg).count("✂") == pieces - 1
    assert f"into {pieces} pieces" in texts(svg) and f"with {pieces - 1} links" in texts(svg)


@pytest.fixture(scope="module")
def facts():
    if shutil.which("openscad") is None:
        pytest.skip("openscad is not installed (Debian package: openscad)")
    return views.model_facts()


def test_the_committed_cradle_views_are_what_the_model_draws(facts):
    assert (ROOT / "hw" / "cradle_views.svg").read_text(encoding="utf-8") == views.draw(facts)


def test_the_views_say_which_way_each_switch_s_leads_point_and_where_to_cut_them(facts):
    words = texts(views.draw(facts))
    (_, (_, _, down)), (_, (_, _, up)) = facts["pockets"]
    assert down < 0 < up  # switch 0's leads point at B, switch 1's at A
    assert "switch 0: leads towards B" in words and "switch 1: leads towards A" in words
    assert f"Cut each switch's leads to {facts['lead_cut']:g} mm" in words
    assert "LIS3DH" in words and "IR emitter" in words and "receiver" in words
