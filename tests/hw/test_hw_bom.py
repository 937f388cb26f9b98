"""The parts list: every row well formed, and its counts the ones the pin map and the LED layout need."""

import csv
import re

from companion.hardware.pins import load_pinout
from companion.leds import StripLayout
from conftest import ROOT

BOM = ROOT / "hw" / "bom.csv"
COLUMNS = ["part", "group", "qty", "unit", "description", "alternatives", "notes"]
GROUPS = {"core", "tilt", "leds", "emulated", "cradle", "kiosk", "hub"}
MA_PER_LED = 60  # a WS2812B at full white
PI_MODELS = ("Zero 2 W", "3", "4", "5")


def rows() -> dict[str, dict]:
    with BOM.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == COLUMNS
        found = {}
        for row in reader:
            assert row["part"] not in found, f"{row['part']} listed twice"
            found[row["part"]] = row
    return found


def qty(part: str) -> int:
    return int(rows()[part]["qty"])


def test_every_row_is_complete():
    for part, row in rows().items():
        assert re.fullmatch(r"[a-z0-9-]+", part), part
        assert row["group"] in GROUPS, part
        assert int(row["qty"]) > 0, part
        assert row["unit"] in {"pcs", "LED", "m", "g", "set"}, part
        assert row["description"].strip() and row["alternatives"].strip(), part


def test_two_tilt_switches_per_glass_in_the_pin_map():
    timers = load_pinout(ROOT / "hw" / "pinout.toml")["timers"]
    assert qty("tilt-switch") == sum(len(t["pins"]) for t in timers.values()) == 12


def test_one_flip_button_per_glass():
    assert qty("flip-button") == len(load_pinout(ROOT / "hw" / "pinout.toml")["timers"])


def test_the_strip_has_as_many_leds_as_the_layout_and_the_stated_length_fits():
    layout, row = StripLayout(), rows()["led-strip"]
    assert qty("led-strip") == layout.total == 104
    sums = f"{len(layout.colours)} segments x {layout.segment_len} LEDs + countdown track " \
           f"{layout.countdown_leds} + crowd tokens {layout.token_leds} = {layout.total} LEDs"
    assert sums in row["notes"]
    density = int(re.search(r"(\d+) LEDs/m", row["description"]).group(1))
    bought = float(re.search(r"bought as ([\d.]+) m", row["description"]).group(1))
    assert bought >= layout.total / density
    assert f"{layout.total / density:.2f} m" in row["notes"]


def test_the_led_supply_is_sized_from_the_led_count():
    row, leds = rows()["led-supply"], StripLayout().total
    full_white = leds * MA_PER_LED / 1000
    assert f"{leds} LEDs x {MA_PER_LED} mA = {full_white:.2f} A" in row["notes"]
    amps = float(re.search(r"5 V ([\d.]+) A", row["description"]).group(1))
    assert amps >= full_white * 1.2, "at least 20 % headroom over full white"
    fuse = float(re.search(r"([\d.]+) A blade fuse", rows()["led-fuse"]["description"]).group(1))
    assert full_white < fuse <= amps


def test_the_strip_parts_are_the_ones_the_wiring_shows():
    parts = rows()
    assert "74AHCT125" in parts["level-shifter"]["description"]
    assert "330 ohm" in parts["data-resistor"]["description"]
    assert "1000 uF" in parts["bulk-cap"]["description"]
    assert "100 nF" in parts["decoupling-cap"]["description"]
    svg = (ROOT / "hw" / "wiring.svg").read_text(encoding="utf-8")
    for drawn in ("74AHCT125", "330 Ω", "1000 µF", "100 nF", "fuse", "/OE"):
        assert drawn in svg, drawn


def test_every_pi_model_is_named():
    pi = rows()["pi"]
    named = pi["description"] + " " + pi["alternatives"]
    for model in PI_MODELS:
        assert re.search(rf"\b{re.escape(model)}\b", named), model


def test_the_hub_parts_cover_every_glass():
    glasses = len(load_pinout(ROOT / "hw" / "pinout.toml")["timers"])
    assert qty("hub-board") == 1
    assert qty("hub-accelerometer") == qty("hub-ir-beam") == glasses
    assert all(rows()[p]["group"] == "hub" for p in ("hub-board", "hub-accelerometer", "hub-ir-beam"))


def test_enough_filament_for_every_cradle():
    glasses = len(load_pinout(ROOT / "hw" / "pinout.toml")["timers"])
    most = int(re.search(r"\d+-(\d+) g per cradle", rows()["filament"]["notes"]).group(1))
    assert qty("filament") >= most * glasses
