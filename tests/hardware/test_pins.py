"""Pins: the pin factory choice, GPIO detection, and the reference pin map and its validation."""

import errno
import os
import re
import sys
import types

import pytest

from companion.errors import BadInput
from companion.hardware import pins
from companion.hardware.pins import HardwareUnavailable, load_pinout, open_pin_factory

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
    (("pin = 19", 'pin = "19"'), "buzzer.pin: expected a whole number, got '19'"),
    (("pin = 19", "pin = true"), "buzzer.pin: expected a whole number, got True"),
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
    with pytest.raises(BadInput, match=r"pinout.toml: timers: expected a \[timers.<colour>\] table per colour"):
        load(tmp_path, "[buzzer]\npin = 19\n")


def test_a_pinout_that_is_not_toml_or_not_there_is_refused(tmp_path):
    with pytest.raises(BadInput, match=r"pinout.toml: not valid TOML"):
        load(tmp_path, "[timers.red\n")
    with pytest.raises(BadInput, match=r"missing.toml: cannot read it"):
        load_pinout(tmp_path / "missing.toml")


# GPIO detection and the pin factory

def test_no_gpiochip_is_named_with_the_way_out(tmp_path, monkeypatch):
    real = pins.why_no_gpio
    monkeypatch.setattr(pins, "why_no_gpio", lambda: real(tmp_path))
    with pytest.raises(HardwareUnavailable) as caught:
        open_pin_factory(mock=False)
    assert f"no {tmp_path}/gpiochip* device" in str(caught.value) and "--mock" in str(caught.value)


def test_a_missing_lgpio_module_is_named(monkeypatch):
    monkeypatch.setattr(pins, "why_no_gpio", lambda: None)
    monkeypatch.setitem(sys.modules, "lgpio", None)  # what an import of a missing module meets
    with pytest.raises(HardwareUnavailable, match="the lgpio module is not installed"):
        open_pin_factory(mock=False)


def test_mock_pins_come_from_gpiozeros_mock_factory():
    from gpiozero.pins.mock import MockFactory

    factory = open_pin_factory(mock=True)
    try:
        assert isinstance(factory, MockFactory)
    finally:
        factory.close()


def test_without_gpio_real_pins_are_refused_in_one_line(monkeypatch):
    monkeypatch.setattr(pins, "why_no_gpio", lambda: "x")
    monkeypatch.setitem(sys.modules, "lgpio", types.ModuleType("lgpio"))
    with pytest.raises(HardwareUnavailable, match=r"^no GPIO here: x; run with --mock \(or mock_pins = true\)"):
        open_pin_factory(mock=False)


@pytest.fixture
def board(tmp_path):
    """A /dev with one GPIO chip and a /proc that names a Raspberry Pi, to take parts away from."""
    dev, proc = tmp_path / "dev", tmp_path / "proc"
    dev.mkdir()
    (dev / "gpiochip0").write_bytes(b"")
    (proc / "device-tree").mkdir(parents=True)
    return dev, proc


def test_a_usable_chip_has_nothing_in_the_way(board):
    assert pins.why_no_gpio(*board) is None


def _refuse_open(monkeypatch, code):
    def refuse(path, flags, *rest):
        raise PermissionError(code, os.strerror(code), str(path))
    monkeypatch.setattr(pins.os, "open", refuse)


def _chip_owned_by(board, gid: int) -> None:
    chip = board[0] / "gpiochip0"
    if chip.stat().st_gid != gid:
        if os.geteuid() != 0:
            pytest.skip("giving a file to another group needs root")
        os.chown(chip, -1, gid)


def test_a_user_outside_the_chips_group_is_told_which_group(board, monkeypatch):
    _chip_owned_by(board, 4242)
    _refuse_open(monkeypatch, errno.EACCES)
    monkeypatch.setattr(pins.os, "getgroups", lambda: [])
    reason = pins.why_no_gpio(*board)
    assert "permission denied: the user" in reason and "is not in the group" in reason and "usermod -aG" in reason


def test_a_chip_left_to_root_names_the_missing_udev_rule_not_the_root_group(board, monkeypatch):
    # Plain Debian (the card image) before install.sh's rule: no user should be put in root's group.
    _chip_owned_by(board, 0)
    _refuse_open(monkeypatch, errno.EACCES)
    monkeypatch.setattr(pins.os, "getgroups", lambda: [])
    reason = pins.why_no_gpio(*board)
    assert "belongs to root alone" in reason and "udev rule" in reason and "usermod" not in reason


def test_a_sandbox_refusal_names_the_sandbox_not_the_group(board, monkeypatch):
    _refuse_open(monkeypatch, errno.EPERM)  # what a device cgroup answers, whatever the file's modes
    reason = pins.why_no_gpio(*board)
    assert "sandbox refuses the device" in reason and "group" not in reason


def test_a_board_hidden_from_proc_is_named_as_such(board):
    dev, proc = board
    (proc / "device-tree").rmdir()
    (proc / "cpuinfo").write_text("processor\t: 0\n")
    assert "ProcSubset=pid hides them" in pins.why_no_gpio(dev, proc)
    (proc / "cpuinfo").write_text("processor\t: 0\nRevision\t: c03111\n")
    assert pins.why_no_gpio(dev, proc) is None


def test_lgpio_is_imported_from_a_folder_it_may_write_whatever_the_current_one(tmp_path, monkeypatch):
    """lgpio makes its notification pipe in the current folder at import: never the caller's."""
    seen = {}

    class Finder:  # a stand-in lgpio that records where it was imported from
        def find_spec(self, name, path=None, target=None):
            if name != "lgpio":
                return None
            import importlib.util
            seen["cwd"], seen["lg_wd"] = os.getcwd(), os.environ.get("LG_WD")
            return importlib.util.spec_from_loader(name, loader=self)

        def create_module(self, spec):
            return None

        def exec_module(self, module):
            pass

    readonly = tmp_path / "home"
    readonly.mkdir()
    monkeypatch.chdir(readonly)
    monkeypatch.delitem(sys.modules, "lgpio", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    monkeypatch.delenv("LG_WD", raising=False)
    pins._import_lgpio()
    monkeypatch.delitem(sys.modules, "lgpio", raising=False)
    assert seen["cwd"] == seen["lg_wd"] != str(readonly)
    assert os.access(seen["cwd"], os.W_OK)
    assert os.getcwd() == str(readonly)  # the caller's folder is given back


def test_a_gpio_chip_that_cannot_be_opened_is_refused_with_the_way_out(monkeypatch):
    class LGPIOFactory:
        def __init__(self):
            raise OSError("can not open gpiochip")

    fake = types.ModuleType("gpiozero.pins.lgpio")
    fake.LGPIOFactory = LGPIOFactory
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", fake)
    monkeypatch.setitem(sys.modules, "lgpio", types.ModuleType("lgpio"))
    monkeypatch.setattr(pins, "why_no_gpio", lambda: None)
    with pytest.raises(HardwareUnavailable, match=r"^cannot open the GPIO chip \(OSError: can not open gpiochip\)") as caught:
        open_pin_factory(mock=False)
    assert "--mock" in str(caught.value)
