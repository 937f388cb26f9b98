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
    """The grams per cradle are the guide's (hw/printcheck.py works them out from the mesh)."""
    glasses = len(load_pinout(ROOT / "hw" / "pinout.toml")["timers"])
    least, most = map(int, re.search(r"(\d+)-(\d+) g per cradle", rows()["filament"]["notes"]).groups())
    assert qty("filament") >= most * glasses
    for guide in ("ASSEMBLY.md", "ASSEMBLY.ja.md"):
        text = (ROOT / "hw" / guide).read_text(encoding="utf-8")
        grams = [int(g) for g in re.findall(r"^\| \d+ × \d+ \| (\d+) g \|", text, re.M)]
        assert grams and (min(grams), max(grams)) == (least, most), guide


def test_the_six_sand_timers_are_listed_in_the_cradles_range():
    timers = load_pinout(ROOT / "hw" / "pinout.toml")["timers"]
    row = rows()["sand-timer"]
    assert qty("sand-timer") == len(timers) and row["group"] == "glasses"
    scad = (ROOT / "hw" / "cradle.scad").read_text(encoding="utf-8")
    d = re.search(r"assert\(glass_d >= (\d+) && glass_d <= (\d+)", scad).groups()
    h = re.search(r"assert\(glass_h >= (\d+) && glass_h <= (\d+)", scad).groups()
    assert f"{d[0]}-{d[1]} mm across the caps and {h[0]}-{h[1]} mm tall" in row["description"]


def test_the_buzzer_plays_the_tunes_loud_and_a_gpio_can_drive_it():
    """The tunes (companion/hardware/buzzer.py) sit near the speaker's resonance; a transistor carries its current."""
    from gpiozero.tones import Tone

    from companion.hardware.buzzer import TUNES

    buzzer, parts = rows()["buzzer"], rows()
    low, high = map(int, re.search(r"resonance \(F0\) (\d+)-(\d+) Hz", buzzer["description"]).groups())
    notes = [Tone(note).frequency for tune in TUNES.values() for note, _ in tune if note]
    assert high / 2 <= min(notes) and max(notes) <= 4 * low, (min(notes), max(notes))
    assert "piezo" not in buzzer["description"].lower()
    base = float(re.search(r"Resistor ([\d.]+) kohm", parts["buzzer-base-resistor"]["description"]).group(1)) * 1000
    assert (3.3 - 0.7) / base * 1000 <= GPIO_MAX_MA
    ohms = int(re.search(r"Resistor (\d+) ohm", parts["buzzer-resistor"]["description"]).group(1))
    amps = (5 - 0.2) / (8 + ohms)
    assert amps * 1000 <= int(re.search(r"\((\d+) mA\)", parts["buzzer-transistor"]["description"]).group(1))
    assert f"{amps * 1000:.0f} mA" in parts["buzzer-resistor"]["notes"]
    svg = (ROOT / "hw" / "wiring.svg").read_text(encoding="utf-8")
    assert "8 Ω speaker, NPN" in svg and "1 kΩ" in svg
    assert f"GPIO {load_pinout(ROOT / 'hw' / 'pinout.toml')['buzzer']['pin']}" in parts["buzzer-base-resistor"]["notes"]


def test_every_switch_has_its_resistor_and_every_cradle_its_connector():
    timers = load_pinout(ROOT / "hw" / "pinout.toml")["timers"]
    assert qty("switch-resistor") == qty("tilt-switch")
    assert qty("cradle-connectors") == len(timers)
    assert "can" in rows()["switch-resistor"]["notes"] and "GND" in rows()["tilt-switch"]["notes"]


def test_the_strip_connectors_carry_a_feed_and_there_is_one_per_join():
    layout = StripLayout()
    pieces = len(layout.colours) + (1 if layout.countdown_leds or layout.token_leds else 0)
    row = rows()["strip-connectors"]
    per_pin = float(re.search(r"\(([\d.]+) A per pin\)", row["description"]).group(1))
    assert per_pin >= layout.total * MA_PER_LED / 1000 / 2 * 1.5  # half the strip's full white, with headroom
    assert qty("strip-connectors") == pieces + 1  # the data path into each piece, and the far-end feed


def test_the_parts_to_house_and_tie_it_all_are_listed():
    for part in ("standoffs", "enclosure", "cable-ties", "dc-jack", "hub-mount-tape"):
        assert part in rows(), part
    assert qty("cable-ties") >= len(load_pinout(ROOT / "hw" / "pinout.toml")["timers"])


def test_the_led_supply_is_a_model_one_can_order_and_needs_no_mains_wiring():
    row = rows()["led-supply"]
    assert re.search(r"\(Adafruit \d+\)", row["description"]) and "barrel plug" in row["description"]
    assert "screw terminals" not in row["description"]


def test_the_glasses_have_the_game_s_durations():
    row = rows()["sand-timer"]
    for seconds in (30, 40, 50, 60, 70, 80):
        assert re.search(rf"\b{seconds}( s)?\b", row["description"]), seconds


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
