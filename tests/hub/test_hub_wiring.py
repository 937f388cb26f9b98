"""The hub's wiring drawing: committed exactly as the firmware's pin map draws it."""

import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, hw_script

SVG_NS = "{http://www.w3.org/2000/svg}"


wiring = hw_script("hub_wiring")
PINS = wiring.load_pins()


def texts(svg: str) -> list[str]:
    return ["".join(e.itertext()) for e in ET.fromstring(svg).iter(f"{SVG_NS}text")]


def test_the_committed_drawing_is_what_the_pin_map_draws():
    assert (ROOT / "hw" / "hub_wiring.svg").read_text(encoding="utf-8") == wiring.draw(), "run: python hw/hub_wiring.py"


def test_the_check_passes_from_anywhere():
    done = subprocess.run([sys.executable, str(ROOT / "hw" / "hub_wiring.py"), "--check"],
                          capture_output=True, text=True, timeout=60, cwd="/")
    assert done.returncode == 0, done.stderr


def test_the_check_fails_on_a_stale_drawing(tmp_path, monkeypatch):
    stale = tmp_path / "hub_wiring.svg"
    stale.write_text("<svg/>\n", encoding="utf-8")
    monkeypatch.setattr(wiring, "SVG_PATH", stale)
    monkeypatch.setattr(sys, "argv", ["hub_wiring.py", "--check"])
    with pytest.raises(SystemExit) as caught:
        wiring.main()
    assert "out of date" in str(caught.value.code)
    assert stale.read_text(encoding="utf-8") == "<svg/>\n"


def test_every_wired_gp_appears_with_its_pico_pin_in_its_glass_colour():
    svg = wiring.draw()
    drawn = texts(svg)
    strokes = [line.get("stroke") for line in ET.fromstring(svg).iter(f"{SVG_NS}polyline")]
    for colour, pair, beam in zip(wiring.COLOURS, PINS.TILT_GP, PINS.BEAM_GP):
        for switch, gp in enumerate(pair):
            assert any(re.search(rf"^{colour} · switch {switch} .*GP{gp} pin {wiring.PICO_PIN[gp]}$", t) for t in drawn)
        assert f"{colour} · neck beam receiver GP{beam} pin {wiring.PICO_PIN[beam]}" in drawn
        assert strokes.count(wiring.INK[colour]) == 3
    for gp in PINS.I2C_GP:
        assert any(t.endswith(f"GP{gp} pin {wiring.PICO_PIN[gp]}") and t.startswith("I2C") for t in drawn)


def test_no_pin_is_used_twice_and_every_pico_pin_has_one_name():
    used = [gp for pair in PINS.TILT_GP for gp in pair] + list(PINS.BEAM_GP) + list(PINS.I2C_GP)
    assert len(used) == len(set(used)) and all(gp in wiring.PICO_PIN for gp in used)
    assert sorted([*wiring.PICO_PIN.values(), *wiring.POWER_PINS]) == list(range(1, 41))


def test_the_drawing_follows_the_pin_map(tmp_path):
    moved = (ROOT / "firmware" / "hubpins.py").read_text(encoding="utf-8").replace("(2, 3), (4, 5)", "(22, 3), (4, 5)")
    (tmp_path / "hubpins.py").write_text(moved, encoding="utf-8")
    drawn = texts(wiring.draw(wiring.load_pins(tmp_path / "hubpins.py")))
    assert "red · switch 0 (A up) GP22 pin 29" in drawn and "red · switch 0 (A up) GP2 pin 4" not in drawn
