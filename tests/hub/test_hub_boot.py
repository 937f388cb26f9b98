"""The board files, code.py and boot.py, run on the host against fake CircuitPython modules.

A fake board counts its clock's reads; it is switched off (an exception
code.py does not catch) after a few thousand, so nothing here waits for time.
"""

import sys
import types
from pathlib import Path

import pytest

from companion.hardware.firmware import firmware_module
from conftest import ROOT

FIRMWARE = ROOT / "firmware"

hubstart = firmware_module("hubstart")
hubpins = firmware_module("hubpins")
hubcore = firmware_module("hubcore")


class PowerOff(BaseException):
    """The test switches the fake board off."""


class Reset(BaseException):
    """microcontroller.reset() was called."""


class Pin:
    def __init__(self, name):
        self.name = name


class DigitalInOut:
    def __init__(self, pin):
        self.pin, self.value, self.pull, self.history = pin, True, None, []

    def switch_to_output(self, value=False):
        self.value = value

    def __setattr__(self, key, value):
        if key == "value" and hasattr(self, "history"):
            self.history.append(value)
        object.__setattr__(self, key, value)


class Memory(bytearray):
    """The board's non-volatile memory, counting its writes: each one wears the flash."""

    writes = 0

    def __setitem__(self, key, value):
        self.writes += 1
        super().__setitem__(key, value)


class Port:
    def __init__(self):
        self.timeout, self.in_waiting, self.written = None, 0, []

    def read(self, n):
        return b""

    def write(self, data):
        self.written.append(bytes(data))


class Board:
    """The fake board: its modules, its non-volatile memory and drive, its clock."""

    def __init__(self, tmp_path, *, board_id="raspberry_pi_pico", pins=None, circuitpython=(9, 0, 3), ticks=3000):
        self.tmp_path, self.circuitpython, self.ticks_left = tmp_path, circuitpython, ticks
        self.nvm = Memory(4096)
        self.ms = 1000
        self.port = Port()
        self.leds, self.keys, self.remounts, self.resets, self.enabled = [], [], [], 0, []
        self.dog = types.SimpleNamespace(timeout=None, mode=None, fed=0)
        self.dog.feed = lambda: setattr(self.dog, "fed", self.dog.fed + 1)
        names = pins if pins is not None else [f"GP{n}" for n in range(29)]
        self.modules = {
            "board": types.SimpleNamespace(board_id=board_id, LED=Pin("LED"), **{n: Pin(n) for n in names}),
            "digitalio": types.SimpleNamespace(DigitalInOut=self._pin, Pull=types.SimpleNamespace(UP="up")),
            "microcontroller": types.SimpleNamespace(nvm=self.nvm, watchdog=self.dog, reset=self._reset),
            "supervisor": types.SimpleNamespace(ticks_ms=self._ticks),
            "usb_cdc": types.SimpleNamespace(data=self.port, console=None, enable=lambda **kw: self.enabled.append(kw)),
            "watchdog": types.SimpleNamespace(WatchDogMode=types.SimpleNamespace(RESET="reset")),
            "keypad": types.SimpleNamespace(Keys=self._keys),
            "storage": types.SimpleNamespace(remount=lambda path, readonly: self.remounts.append(readonly)),
            "adafruit_lis3dh": None,  # not copied to lib/: importing it fails
        }

    def _pin(self, pin):
        led = DigitalInOut(pin)
        self.leds.append(led)
        return led

    def _ticks(self):
        self.ticks_left -= 1
        if self.ticks_left < 0:
            raise PowerOff
        self.ms += 7
        return self.ms

    def _reset(self):
        self.resets += 1
        raise Reset

    def _keys(self, pins, *, value_when_pressed, pull, interval, **more):
        if self.circuitpython < (9, 1, 0) and more:
            raise TypeError("unexpected keyword argument 'debounce_threshold'")
        self.keys.append(more)
        return types.SimpleNamespace(events=types.SimpleNamespace(get=lambda: None))

    def run(self, name, monkeypatch, *, edit=()):
        """Run firmware/`name` on this board; returns how it ended: "off" or "reset"."""
        source = (FIRMWARE / name).read_text(encoding="utf-8")
        for old, new in edit:
            assert old in source
            source = source.replace(old, new)
        for module, fake in self.modules.items():
            monkeypatch.setitem(sys.modules, module, fake)
        implementation = types.SimpleNamespace(**vars(sys.implementation))
        implementation.version = self.circuitpython  # what code.py reads; the rest keeps imports working
        monkeypatch.setattr(sys, "implementation", implementation)
        monkeypatch.setattr(hubstart, "ERROR_FILE", str(self.tmp_path / "hub_error.txt"))
        try:
            exec(compile(source, name, "exec"), {"__name__": "__main__"})
        except PowerOff:
            return "off"
        except Reset:
            return "reset"
        return "returned"

    @property
    def error_file(self) -> Path:
        return self.tmp_path / "hub_error.txt"

    def record(self):
        return hubstart.read_record(self.nvm[:hubstart.NVM_BYTES])


LIS3DH = (('SENSORS = "tilt"', 'SENSORS = "lis3dh"'),)


def test_a_missing_library_is_written_to_the_drive_blinked_and_the_board_stays_reachable(tmp_path, monkeypatch):
    board = Board(tmp_path)
    assert board.run("code.py", monkeypatch, edit=LIS3DH) == "reset"  # once, so that boot.py can write it down
    assert board.record()[0] == hubstart.PENDING and "adafruit_lis3dh" in board.record()[1]
    assert board.dog.timeout is None  # never started: the watchdog is for a hub that runs

    assert board.run("boot.py", monkeypatch) == "returned"
    text = board.error_file.read_text()
    assert "Error" in text and "adafruit_lis3dh" in text and "CircuitPython 9.0.3" in text
    assert board.remounts == [False, True]  # written, then the drive handed back to the computer
    assert board.record()[0] == hubstart.WRITTEN

    assert board.run("code.py", monkeypatch, edit=LIS3DH) == "off"  # the same failure: it waits, it does not reset
    assert board.resets == 1 and board.dog.timeout is None
    led = [pin for pin in board.leds if pin.pin.name == "LED"][-1].history
    assert led.count(True) > 10 and led.count(False) > 10  # blinking
    assert any(b"could not start" in data for data in board.port.written)


def test_a_fixed_failure_is_forgotten_and_its_file_removed(tmp_path, monkeypatch):
    board = Board(tmp_path)
    board.run("code.py", monkeypatch, edit=LIS3DH)
    board.run("boot.py", monkeypatch)
    assert board.error_file.exists()
    assert board.run("code.py", monkeypatch) == "off"  # tilt switches: it starts and runs
    assert board.record()[0] == hubstart.CLEARED
    board.run("boot.py", monkeypatch)
    assert not board.error_file.exists() and board.record() is None


@pytest.mark.parametrize("version, threshold", [((9, 0, 0), None), ((9, 1, 0), 3), ((9, 2, 8), 3)])
def test_the_hub_runs_on_circuitpython_9_0_and_later_with_the_watchdog_on(tmp_path, monkeypatch, version, threshold):
    board = Board(tmp_path, circuitpython=version)
    assert board.run("code.py", monkeypatch) == "off"
    assert board.keys == [{} if threshold is None else {"debounce_threshold": threshold}]
    assert board.dog.mode == "reset" and board.dog.timeout == 4 and board.dog.fed > 100
    assert board.port.written[0].startswith(b"0 hello fw=" + hubcore.FIRMWARE_VERSION.encode())
    assert board.resets == 0 and board.record() is None


def test_an_old_circuitpython_is_a_failure_that_says_so(tmp_path, monkeypatch):
    board = Board(tmp_path, circuitpython=(8, 2, 10))
    assert board.run("code.py", monkeypatch) == "reset"
    assert board.record()[1] == "StartFailed: this firmware needs CircuitPython 9.0 or later; the board runs 8.2.10"


def test_a_board_without_the_pico_pins_names_the_missing_pin(tmp_path, monkeypatch):
    board = Board(tmp_path, board_id="adafruit_feather_rp2040", pins=[f"D{n}" for n in range(13)])
    assert board.run("code.py", monkeypatch) == "reset"
    assert "no pin GP" in board.record()[1] and "hubpins.py" in board.record()[1]


def test_a_hub_that_fails_while_running_is_reset_once_then_waits_with_the_watchdog_fed(tmp_path, monkeypatch):
    board = Board(tmp_path)
    board.port.write = lambda data: (_ for _ in ()).throw(ValueError("USB gone odd"))
    assert board.run("code.py", monkeypatch) == "reset"
    assert board.dog.timeout == 4 and board.record()[1] == "ValueError: USB gone odd"
    board.run("boot.py", monkeypatch)
    fed = board.dog.fed
    assert board.run("code.py", monkeypatch) == "off" and board.resets == 1
    assert board.dog.fed > fed + 100  # waiting, it keeps the started watchdog from resetting it


def test_the_status_patterns_and_the_failure_pattern_differ():
    failed = [hubstart.failed_led_on(ms) for ms in range(0, 4000, 10)]
    for status in hubcore.LED_PATTERNS:
        assert [hubcore.led_on(status, ms) for ms in range(0, 4000, 10)] != failed


def test_records_survive_any_bytes():
    for data in (b"", b"HUBERR", b"HUBERRX\x00\x01a", b"HUBERRP\x00\x05ab", b"HUBERRP\x00\x02\xff\xfe", bytes(512)):
        assert hubstart.read_record(data) is None
    text = "x" * 1000
    assert len(hubstart.record(text, hubstart.PENDING)) <= hubstart.NVM_BYTES
    pending = hubstart.record("A", hubstart.PENDING)
    assert hubstart.after_failure(b"", "A") == ("reset", pending)  # the only restart: nothing on record
    assert hubstart.after_failure(pending, "A") == ("stay", None)  # known: no write, no restart
    assert hubstart.after_failure(hubstart.record("A", hubstart.CLEARED), "A") == ("stay", pending)
    assert hubstart.after_failure(hubstart.record("B", hubstart.WRITTEN), "A") == ("stay", pending)


def test_every_board_in_the_map_has_a_pin_for_each_channel():
    for board_id, pins in hubpins.BOARDS.items():
        assert len(pins["tilt"]) == len(pins["beam"]) == 6, board_id
        names = hubpins.pin_names(pins)
        assert len(set(names)) == len(names), board_id


def said(board) -> bytes:
    return b"".join(board.port.written)


@pytest.mark.parametrize("sensors", ["x" * 600, "é" * 600, "xé" * 300], ids=["ascii", "utf8-even", "utf8-odd"])
def test_a_failure_too_long_for_its_record_resets_once_then_stays(tmp_path, monkeypatch, sensors):
    """The record keeps the first bytes of the text, cut between characters; the same failure is known again."""
    board = Board(tmp_path)
    edit = (('SENSORS = "tilt"', f"SENSORS = {sensors!r}"),)
    assert board.run("code.py", monkeypatch, edit=edit) == "reset"
    assert board.record()[0] == hubstart.PENDING
    board.run("boot.py", monkeypatch)
    assert board.error_file.read_text(encoding="utf-8").count("SENSORS in code.py") == 1
    assert board.run("code.py", monkeypatch, edit=edit) == "off" and board.resets == 1


def test_a_record_keeps_whole_characters():
    for text in ("x" * 600, "é" * 600, "xé" * 300, "x€" * 200, "🎉" * 200):
        stored = hubstart.record(text, hubstart.PENDING)
        assert len(stored) <= hubstart.NVM_BYTES
        state, kept = hubstart.read_record(stored)
        assert state == hubstart.PENDING and text.startswith(kept) and len(kept.encode()) > hubstart.NVM_BYTES - 14


@pytest.mark.parametrize("state", [hubstart.PENDING, hubstart.CLEARED])
def test_boot_hands_the_drive_back_when_the_file_cannot_be_written_or_removed(tmp_path, monkeypatch, state):
    board = Board(tmp_path / "gone")  # a folder that is not there: writing fails, and there is nothing to remove
    stored = hubstart.record("OSError: 5", state)
    board.nvm[:len(stored)] = stored
    assert board.run("boot.py", monkeypatch) == "returned"
    assert board.remounts == [False, True]  # the computer gets its drive back whatever happened
    if state == hubstart.PENDING:
        assert board.record() == (hubstart.PENDING, "OSError: 5")  # tried again at the next start
    else:
        assert board.record() is None  # no file: as good as removed


def test_a_broken_hubstart_keeps_the_data_port_and_says_why(tmp_path, monkeypatch):
    board = Board(tmp_path)
    board.modules["hubstart"] = None  # importing it fails, as a half-copied file does
    assert board.run("boot.py", monkeypatch) == "returned"
    assert board.enabled == [{"console": True, "data": True}]
    assert board.run("code.py", monkeypatch) == "off" and board.resets == 0
    assert b"hubstart" in said(board)
    led = [pin for pin in board.leds if pin.pin.name == "LED"][-1].history
    assert led.count(True) > 10 and led.count(False) > 10


def test_a_board_without_a_status_led_still_says_why_on_the_data_port(tmp_path, monkeypatch):
    board = Board(tmp_path)
    del board.modules["board"].LED
    assert board.run("code.py", monkeypatch) == "reset"
    board.run("boot.py", monkeypatch)
    assert board.run("code.py", monkeypatch) == "off" and board.resets == 1
    assert b"no attribute 'LED'" in said(board) and "LED" in board.error_file.read_text()


def test_a_failure_that_recurs_after_running_well_stays_up_instead_of_resetting_again(tmp_path, monkeypatch):
    board = Board(tmp_path, ticks=6000)

    def write(data):
        if board.ms > 1000 + 12_000:  # after the hub has run well for twelve seconds
            raise ValueError("USB gone odd")
        board.port.written.append(bytes(data))

    board.port.write = write
    assert board.run("code.py", monkeypatch) == "reset"
    board.run("boot.py", monkeypatch)
    board.ms = 1000
    board.ticks_left = 6000
    assert board.run("code.py", monkeypatch) == "off"  # ran well, then the same failure: it stays
    assert board.resets == 1 and board.nvm.writes <= 4
    assert board.record() == (hubstart.PENDING, "ValueError: USB gone odd")  # written at the next start
    assert board.dog.fed > 100
