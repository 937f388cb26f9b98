"""Wiring aids: the check-hw readout and calibrating a real glass."""

import pytest

from companion.calibration import Calibration
from companion.cli import readout
from companion.config import parse_config
from companion.hardware.mock import mock_pin_factory
from companion.table.rig import Rig


def test_readout_shows_every_switch_pose_and_fault():
    config = parse_config({"timers": {"blue": {"source": "emulated"}}}, None)
    pins = mock_pin_factory()
    rig = Rig(config, pins, lambda edge: None, lambda: 0.0)
    try:
        pins.pin(4).drive_low()
        lines = readout(rig)
    finally:
        rig.close()
    assert len(lines) == 6
    assert lines[0].split()[:6] == ["red", "tilt", "GPIO4", "closed", "GPIO5", "open"]
    assert lines[4].startswith("blue") and "button" in lines[4] and lines[4].endswith("released")


def test_check_hw_once_on_mock_pins(cli):
    done = cli("check-hw", "--mock", "--once")
    assert done.returncode == 0
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["red", "orange", "yellow", "green", "blue", "purple"]


def test_calibration_takes_the_median_of_runs_and_ignores_fumbles():
    c = Calibration(runs=2)  # per direction; with a button the runs alternate, the first A up
    for t in (0.0, 30.4, 30.9, 61.0, 91.7, 122.0):
        c.turned(t)
    assert c.by_direction == {"a_up": pytest.approx([30.4, 30.7]), "b_up": pytest.approx([30.6, 30.3])}
    assert c.result() == pytest.approx((30.55, 30.45)) and c.done


def test_calibrate_without_a_config_file_refuses(cli):
    done = cli("calibrate", "red", "--mock", "--runs", "1")
    assert done.returncode == 2 and "pass --config FILE" in done.stderr
