"""The parts list: every row well formed, and its counts and parts the ones the pin map, the LED layout and the hub firmware need."""

import csv
import re

from companion.hardware.firmware import firmware_module
from companion.hardware.pins import load_pinout
from companion.leds import StripLayout
from conftest import ROOT

BOM = ROOT / "hw" / "bom.csv"
COLUMNS = ["part", "group", "qty", "unit", "description", "alternatives", "notes"]
GROUPS = {"core", "glasses", "tilt", "leds", "emulated", "cradle", "kiosk", "hub"}
GPIO_MAX_MA = 16  # what one Pi GPIO may source
VOLT_DROP_MAX = 0.25  # 5 % of the strip's 5 V, lost in its wires at full white
WIRE = {18: (20.9, 10.0), 20: (33.3, 5.0), 22: (53.0, 3.0), 26: (134.0, 1.0)}  # AWG: mOhm/m, amps it may carry
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


def test_the_six_sand_timers_are_listed_in_the_cradles_range():
    timers = load_pinout(ROOT / "hw" / "pinout.toml")["timers"]
    row = rows()["sand-timer"]
    assert qty("sand-timer") == len(timers) and row["group"] == "glasses"
    scad = (ROOT / "hw" / "cradle.scad").read_text(encoding="utf-8")
    d = re.search(r"assert\(glass_d >= (\d+) && glass_d <= (\d+)", scad).groups()
    h = re.search(r"assert\(glass_h >= (\d+) && glass_h <= (\d+)", scad).groups()
    assert f"{d[0]}-{d[1]} mm across the caps and {h[0]}-{h[1]} mm tall" in row["description"]


def test_the_buzzer_is_a_piezo_behind_a_resistor_a_gpio_can_drive():
    buzzer, resistor = rows()["buzzer"], rows()["buzzer-resistor"]
    assert "piezo" in buzzer["description"].lower() and "magnetic" not in buzzer["description"].lower()
    assert "PS1240" in buzzer["description"]  # a part one can order by name
    ohms = int(re.search(r"Resistor (\d+) ohm", resistor["description"]).group(1))
    assert 3.3 / ohms * 1000 <= GPIO_MAX_MA
    assert f"piezo + {ohms} Ω" in (ROOT / "hw" / "wiring.svg").read_text(encoding="utf-8")  # the drawing shows it
    assert f"GPIO {load_pinout(ROOT / 'hw' / 'pinout.toml')['buzzer']['pin']}" in resistor["notes"]


def test_the_hub_parts_are_the_ones_the_firmware_drives():
    pins, start = firmware_module("hubpins"), firmware_module("hubstart")
    parts = rows()
    assert "TCA9548A" in parts["hub-mux"]["description"] and f"0x{pins.I2C_MUX_ADDRESS:02x}" in parts["hub-mux"]["description"].lower()
    assert "LIS3DH" in parts["hub-accelerometer"]["description"]
    assert f"0x{pins.LIS3DH_ADDRESS:02x}" in parts["hub-accelerometer"]["description"].lower()
    assert qty("hub-ir-beam") == len(pins.BEAM_GP)
    assert pins.BEAM_BROKEN_LEVEL is False and "pulls low while the beam is broken" in parts["hub-ir-beam"]["description"]
    assert f"CircuitPython {start.CIRCUITPYTHON[0]}.{start.CIRCUITPYTHON[1]} or later" in parts["hub-board"]["notes"]
    everything = " ".join(" ".join(row.values()) for row in parts.values())
    for unsupported in ("ADXL345", "Feather", "XIAO", "LIS2DH"):
        assert unsupported not in everything, unsupported
    assert "TSOP" not in parts["hub-ir-beam"]["description"]


def test_every_hub_board_named_has_a_pin_map_in_the_firmware():
    board_ids = {"Raspberry Pi Pico": "raspberry_pi_pico", "Pico H": "raspberry_pi_pico",
                 "Raspberry Pi Pico W": "raspberry_pi_pico_w"}
    row = rows()["hub-board"]
    named = re.findall(r"Raspberry Pi Pico(?: [WH]\b)?|Pico H", row["description"] + "; " + row["alternatives"])
    assert named and all(board_ids[name] in firmware_module("hubpins").BOARDS for name in named)


def test_the_strip_wires_carry_full_white_within_five_percent():
    full_white = StripLayout().total * MA_PER_LED / 1000
    per_end = full_white / 2  # the strip is fed at both ends
    for part in ("led-power-wire", "led-link-wire"):
        row = rows()[part]
        awg = int(re.search(r"(\d+) AWG", row["description"]).group(1))
        metres = float(re.search(r"up to ([\d.]+) m", row["notes"]).group(1))
        ohm_per_m, amps = WIRE[awg]
        assert per_end <= amps, part
        drop = 2 * metres * ohm_per_m / 1000 * per_end
        assert drop <= VOLT_DROP_MAX, part
        assert f"{per_end:.2f} A" in row["notes"] and f"{drop:.2f} V" in row["notes"], part
    assert "26 AWG" in rows()["signal-wire"]["description"]  # milliamps only


def test_an_hdmi_cable_for_the_pi_4_and_5():
    row = rows()["hdmi-cable"]
    assert "Micro-HDMI" in row["description"] and "Pi 4" in row["description"] and "Pi 5" in row["description"]
    assert "Zero 2 W" in row["alternatives"] and "Pi 3" in row["alternatives"]
