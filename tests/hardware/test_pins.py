"""Pins: the pin factory choice, GPIO detection, and the reference pin map and its validation."""

import re
import sys
import types

import pytest

from companion.errors import BadInput
from companion.hardware import pins
from companion.hardware.pins import HardwareUnavailable, has_gpio, load_pinout, open_pin_factory

from conftest import ROOT

# BCM GPIO -> physical pin on the 40-pin header, to check the README against.
HEADER = {2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32, 13: 33,
          14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16, 24: 18,
          25: 22, 26: 37, 27: 13}
GND = {6, 9, 14, 20, 25, 30, 34, 39}


# The reference pin map

def test_the_shipped_pinout_is_the_reference_build():
    pinout = load_pinout()
    assert {c: t["pins"] for c, t in pinout["timers"].items()} == {
        "red": [4, 5], "orange": [6, 12], "yellow": [13, 16],
        "green": [17, 20], "blue": [21, 22], "purple": [23, 24]}
    assert pinout["strip"] == {"spi_mosi": 10, "pwm": 18}
    assert pinout["buzzer"] == {"pin": 19}
    assert pinout["spare"] == {"pins": [25, 26, 27]}


def test_the_packaged_pinout_is_a_link_to_the_one_in_hw():
    packaged = ROOT / "companion" / "data" / "pinout.toml"
    assert packaged.is_symlink()
    assert packaged.resolve() == (ROOT / "hw" / "pinout.toml").resolve()
    assert load_pinout(ROOT / "hw" / "pinout.toml") == load_pinout()


def test_the_pinout_uses_the_17_free_gpios_and_leaves_spi_i2c_and_the_uart_alone():
    pinout = load_pinout()
    assigned = [n for timer in pinout["timers"].values() for n in timer["pins"]]
    assigned += [pinout["buzzer"]["pin"], pinout["strip"]["pwm"], *pinout["spare"]["pins"]]
    assert sorted(assigned) == [4, 5, 6, 12, 13, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27]
    reserved = [n for bus in pinout["reserved"].values() for n in bus]
    assert sorted(reserved + [pinout["strip"]["spi_mosi"]]) == [2, 3, 7, 8, 9, 10, 11, 14, 15]


def readme_rows():
    """(use, gpio, header pin, gnd pin) for each row of the README's pin table."""
    text = (ROOT / "hw" / "README.md").read_text(encoding="utf-8")
    return [(use.strip(), int(gpio), int(header), int(gnd)) for use, gpio, header, gnd
            in re.findall(r"^\|([^|]+)\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|$", text, re.MULTILINE)]


def test_the_readme_pin_table_agrees_with_the_pinout():
    rows = readme_rows()
    pinout = load_pinout()
    by_gpio = {gpio: use for use, gpio, _, _ in rows}
    for use, gpio, header, gnd in rows:
        assert HEADER[gpio] == header, use
        assert gnd in GND, use
    for colour, timer in pinout["timers"].items():
        first, second = timer["pins"]
        assert by_gpio[first].startswith(f"{colour}: switch 0") and "flip button" in by_gpio[first]
        assert by_gpio[second].startswith(f"{colour}: switch 1")
    assert "buzzer" in by_gpio[pinout["buzzer"]["pin"]]
    assert "SPI" in by_gpio[pinout["strip"]["spi_mosi"]] and "PWM" in by_gpio[pinout["strip"]["pwm"]]
    assert all("spare" in by_gpio[n] for n in pinout["spare"]["pins"])
    assert len(by_gpio) == len(rows) == 18


# Pinout validation

GOOD = """
[timers.red]
pins = [4, 5]
[timers.orange]
pins = [6, 12]
[timers.yellow]
pins = [13, 16]
[timers.green]
pins = [17, 20]
[timers.blue]
pins = [21, 22]
[timers.purple]
pins = [23]
[buzzer]
pin = 19
"""


def load(tmp_path, text):
    path = tmp_path / "pinout.toml"
    path.write_text(text, encoding="utf-8")
    return load_pinout(path)


def test_a_valid_pinout_with_a_single_switch_timer_loads(tmp_path):
    assert load(tmp_path, GOOD)["timers"]["purple"]["pins"] == [23]


@pytest.mark.parametrize("change, message", [
    (("pins = [4, 5]", "pins = [4, 40]"), "timers.red.pins: GPIO 40 does not exist (valid 2-27)"),
    (("pins = [4, 5]", "pins = [1, 5]"), "timers.red.pins: GPIO 1 does not exist (valid 2-27)"),
    (("pin = 19", "pin = 5"), "buzzer.pin: GPIO 5 is already used by timers.red.pins"),
    (("pins = [4, 5]", "pins = [4, 4]"), "timers.red.pins: GPIO 4 is already used by timers.red.pins"),
    (("pin = 19", 'pin = "19"'), "buzzer.pin: expected a GPIO number, got '19'"),
    (("pin = 19", "pin = true"), "buzzer.pin: expected a GPIO number, got True"),
    (("pins = [4, 5]", "pins = [4, 5, 25]"), "timers.red.pins: expected a list of one or two GPIO numbers"),
    (("pins = [4, 5]", "pins = 4"), "timers.red.pins: expected a list of one or two GPIO numbers"),
    (("[timers.red]\npins = [4, 5]", "[timers.pink]\npins = [4, 5]"),
     "timers.pink: 'pink' is not a timer colour"),
    (("[timers.purple]\npins = [23]", ""), "timers.purple.pins: expected a list of one or two GPIO numbers"),
])
def test_a_bad_pinout_is_one_line_naming_the_file_and_key(tmp_path, change, message):
    with pytest.raises(BadInput) as caught:
        load(tmp_path, GOOD.replace(*change))
    assert str(caught.value).startswith(f"{tmp_path / 'pinout.toml'}: {message}")
    assert "\n" not in str(caught.value)


def test_a_pinout_without_timers_is_refused(tmp_path):
    with pytest.raises(BadInput, match=r"pinout.toml: timers: missing"):
        load(tmp_path, "[buzzer]\npin = 19\n")


def test_a_pinout_that_is_not_toml_or_not_there_is_refused(tmp_path):
    with pytest.raises(BadInput, match=r"pinout.toml: not valid TOML"):
        load(tmp_path, "[timers.red\n")
    with pytest.raises(BadInput, match=r"missing.toml: cannot read it"):
        load_pinout(tmp_path / "missing.toml")


# GPIO detection and the pin factory

@pytest.fixture
def lgpio_installed(monkeypatch):
    monkeypatch.setattr(pins, "find_spec", lambda name: object() if name == "lgpio" else None)


@pytest.fixture
def lgpio_missing(monkeypatch):
    monkeypatch.setattr(pins, "find_spec", lambda name: None)


def test_gpio_is_there_with_a_gpiochip_and_lgpio(tmp_path, lgpio_installed):
    (tmp_path / "gpiochip0").touch()
    assert has_gpio(tmp_path) == (True, f"lgpio on {tmp_path / 'gpiochip0'}")


def test_no_gpiochip_is_named_with_the_way_out(tmp_path, lgpio_installed):
    ok, reason = has_gpio(tmp_path)
    assert not ok
    assert f"no {tmp_path}/gpiochip* device" in reason and "--mock" in reason
    assert "lgpio" not in reason


def test_a_missing_lgpio_module_is_named(tmp_path, lgpio_missing):
    (tmp_path / "gpiochip0").touch()
    ok, reason = has_gpio(tmp_path)
    assert not ok and "the lgpio module is not installed" in reason and "--mock" in reason
    assert "gpiochip" not in reason


def test_mock_pins_come_from_gpiozeros_mock_factory():
    from gpiozero.pins.mock import MockFactory

    factory = open_pin_factory(mock=True)
    try:
        assert isinstance(factory, MockFactory)
    finally:
        factory.close()


def test_without_gpio_real_pins_are_refused_in_one_line(monkeypatch):
    monkeypatch.setattr(pins, "has_gpio", lambda: (False, "no GPIO on this machine: x; run with --mock"))
    with pytest.raises(HardwareUnavailable, match="^no GPIO on this machine: x; run with --mock$"):
        open_pin_factory(mock=False)


def test_a_gpio_chip_that_cannot_be_opened_is_refused_with_the_way_out(monkeypatch):
    class LGPIOFactory:
        def __init__(self):
            raise OSError("can not open gpiochip")

    fake = types.ModuleType("gpiozero.pins.lgpio")
    fake.LGPIOFactory = LGPIOFactory
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", fake)
    monkeypatch.setattr(pins, "has_gpio", lambda: (True, "lgpio on /dev/gpiochip0"))
    with pytest.raises(HardwareUnavailable, match=r"^cannot open the GPIO chip \(can not open gpiochip\)") as caught:
        open_pin_factory(mock=False)
    assert "--mock" in str(caught.value)
