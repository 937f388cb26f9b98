"""A drawn PIN outlives a restart: players mid-show never meet a new one because the table restarted."""

import os
import stat

from companion.config import Config, WebConfig
from companion.table.configured import Configured
from companion.table.door import KEPT_PIN_FILE, PIN_DIGITS, KeptPin, TableDoor


def door(tmp_path, **web):
    return TableDoor(Configured(Config(database=tmp_path / "companion.sqlite3", web=WebConfig(**web))))


def test_a_drawn_pin_is_the_same_after_a_restart(tmp_path):
    first = door(tmp_path).pin
    assert len(first) == PIN_DIGITS and first.isdigit()
    assert door(tmp_path).pin == first  # a new process, the same table
    kept = tmp_path / KEPT_PIN_FILE
    assert kept.read_text().strip() == first and stat.S_IMODE(kept.stat().st_mode) == 0o600


def test_a_new_pin_asked_for_reaches_the_running_table(tmp_path):
    running = door(tmp_path)
    before = running.pin
    after = KeptPin(tmp_path / KEPT_PIN_FILE).renew()  # `companion setup --new-pin`, from another process
    os.utime(tmp_path / KEPT_PIN_FILE, ns=(1, 1))  # the same size: the stamp still differs
    assert running.pin == after and (after != before or len(after) == PIN_DIGITS)


def test_the_configs_pin_and_a_given_pin_win_and_nothing_is_kept(tmp_path):
    assert door(tmp_path, pin="97531").pin == "97531"
    assert TableDoor(Configured(Config(database=tmp_path / "db")), "2468").pin == "2468"
    assert not (tmp_path / KEPT_PIN_FILE).exists()


def test_a_damaged_kept_pin_is_replaced_not_trusted(tmp_path, caplog):
    (tmp_path / KEPT_PIN_FILE).write_text("12ab\n")
    pin = door(tmp_path).pin
    assert pin.isdigit() and len(pin) == PIN_DIGITS and "does not hold" in caplog.text
    assert (tmp_path / KEPT_PIN_FILE).read_text().strip() == pin


def test_a_folder_it_cannot_write_still_gives_a_pin(tmp_path, caplog):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        pin = door(folder).pin
    finally:
        folder.chmod(0o700)
    assert pin.isdigit() and len(pin) == PIN_DIGITS
    if os.geteuid() != 0:  # root writes anyway
        assert "not kept across restarts" in caplog.text
