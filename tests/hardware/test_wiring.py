"""The wiring drawing: committed exactly as hw/pinout.toml draws it, and true to the README's header pins."""

import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from companion.hardware.pins import load_pinout
from companion.skyrockets.colours import COLOURS
from conftest import ROOT, hw_script

SVG_NS = "{http://www.w3.org/2000/svg}"
PINOUT = ROOT / "hw" / "pinout.toml"


wiring = hw_script("wiring")


def readme_pin_table() -> list[dict]:
    """The rows of hw/README.md's pin table, keyed by the table's own column names."""
    text = (ROOT / "hw" / "README.md").read_text(encoding="utf-8")
    section = text.split("## Pin table", 1)[1].split("\n## ", 1)[0]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in section.splitlines() if line.startswith("|")]
    names, rule, body = rows[0], rows[1], rows[2:]
    assert all(re.fullmatch(r":?-+:?", cell) for cell in rule), "the second row is the table's rule"
    return [dict(zip(names, row)) for row in body]


def readme_header_pins() -> dict[int, int]:
    return {int(row["GPIO"]): int(row["Header pin"]) for row in readme_pin_table()}


def drawn_texts(svg: str) -> list[str]:
    """Each text element of the drawing as one string, its lines joined by spaces."""
    root = ET.fromstring(svg)
    return [" ".join(part.strip() for part in element.itertext()) for element in root.iter(f"{SVG_NS}text")]


def wired_gpios(pinout: dict) -> list[int]:
    gpios = [gpio for timer in pinout["timers"].values() for gpio in timer["pins"]]
    return gpios + [pinout["buzzer"]["pin"], *pinout["strip"].values()]


def test_the_committed_drawing_is_what_the_pin_map_draws():
    committed = (ROOT / "hw" / "wiring.svg").read_text(encoding="utf-8")
    assert committed == wiring.draw(load_pinout(PINOUT)), "run: python hw/wiring.py"


def test_the_check_passes_on_the_committed_drawing():
    done = subprocess.run([sys.executable, str(ROOT / "hw" / "wiring.py"), "--check"],
                          capture_output=True, text=True, timeout=60, cwd="/")
    assert done.returncode == 0, done.stderr


def test_the_check_fails_on_a_stale_drawing_and_writing_brings_it_up_to_date(tmp_path, monkeypatch):
    stale = tmp_path / "wiring.svg"
    stale.write_text("<svg/>\n", encoding="utf-8")
    monkeypatch.setattr(wiring, "SVG_PATH", stale)
    monkeypatch.setattr(sys, "argv", ["wiring.py", "--check"])
    with pytest.raises(SystemExit) as caught:
        wiring.main()
    assert caught.value.code != 0 and "out of date" in str(caught.value.code)
    assert stale.read_text(encoding="utf-8") == "<svg/>\n"  # --check never writes

    monkeypatch.setattr(sys, "argv", ["wiring.py"])
    wiring.main()
    assert stale.read_text(encoding="utf-8") == wiring.draw(load_pinout(PINOUT))
    monkeypatch.setattr(sys, "argv", ["wiring.py", "--check"])
    wiring.main()  # up to date now: returns instead of exiting


def test_the_drawing_is_well_formed_svg_readable_at_full_size():
    root = ET.parse(ROOT / "hw" / "wiring.svg").getroot()
    assert root.tag == f"{SVG_NS}svg"
    assert 900 <= int(root.get("width")) <= 1100
    background = root.find(f"{SVG_NS}rect")  # light, also under a dark page theme
    assert (background.get("width"), background.get("fill")) == (root.get("width"), "#ffffff")
    sizes = [float(element.get("font-size")) for element in root.iter() if element.get("font-size")]
    assert len(sizes) > 50 and min(sizes) >= 11


def test_every_wired_gpio_appears_with_its_header_pin():
    pinout, header = load_pinout(PINOUT), readme_header_pins()
    texts = drawn_texts((ROOT / "hw" / "wiring.svg").read_text(encoding="utf-8"))
    for gpio in wired_gpios(pinout):
        together = re.compile(rf"\bGPIO {gpio}\b.*\bpin {header[gpio]}\b")
        assert any(together.search(t) for t in texts), f"GPIO {gpio} with pin {header[gpio]}"


def test_every_switch_wire_is_named_and_drawn_in_its_timer_colour():
    pinout = load_pinout(PINOUT)
    svg = (ROOT / "hw" / "wiring.svg").read_text(encoding="utf-8")
    texts = drawn_texts(svg)
    wires = [line.get("stroke") for line in ET.fromstring(svg).iter(f"{SVG_NS}polyline")]
    for colour in COLOURS:
        pins = pinout["timers"][colour]["pins"]
        for switch in range(len(pins)):
            assert f"{colour} · switch {switch}" in texts
        assert wires.count(wiring.INK[colour]) == len(pins), colour


def test_the_drawing_follows_the_pin_map(tmp_path):
    moved = PINOUT.read_text(encoding="utf-8").replace("pins = [4, 5]", "pins = [27, 5]")
    moved = moved.replace("pins = [25, 26, 27]", "pins = [4, 25, 26]")  # red's old pin becomes a spare
    assert "[27, 5]" in moved and "[4, 25, 26]" in moved
    (tmp_path / "pinout.toml").write_text(moved, encoding="utf-8")
    texts = drawn_texts(wiring.draw(load_pinout(tmp_path / "pinout.toml")))
    assert "switch 0 (A up) GPIO 27 pin 13" in texts
    assert "switch 0 (A up) GPIO 4 pin 7" not in texts


def test_the_header_in_the_script_agrees_with_the_readme_pin_table():
    table = readme_pin_table()
    assert len(table) == 18
    for row in table:
        gpio = int(row["GPIO"])
        assert wiring.HEADER_PIN[gpio] == int(row["Header pin"]), row["Use"]
        assert wiring.POWER_PINS[int(row["Nearest GND"])] == "GND", row["Use"]


def test_every_header_pin_has_exactly_one_name():
    pins = [*wiring.HEADER_PIN.values(), *wiring.POWER_PINS]
    assert sorted(pins) == list(range(1, 41))
