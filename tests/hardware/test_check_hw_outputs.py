"""check-hw --outputs: each strip part lit in its colour in turn, then a beep; and the pins the strip's bus takes."""

import pytest

from companion.cli.wiring import BEEP, strip_parts, try_outputs
from companion.config import parse_config
from companion.errors import BadInput
from companion.hardware import strip as strip_module
from companion.hardware.mock import mock_pin_factory
from companion.hardware.pins import load_pinout
from companion.leds import TIMER_COLOURS

OFF = (0, 0, 0)


@pytest.fixture
def frames(monkeypatch):
    """Every frame the fake strip shows, across the strips opened during a test."""
    shown = []
    real = strip_module.open_strip

    def recording(*args, **kwargs):
        strip = real(*args, **kwargs)
        show = strip.show
        strip.show = lambda pixels: (shown.append(tuple(pixels)), show(pixels))[1]
        return strip

    monkeypatch.setattr(strip_module, "open_strip", recording)
    return shown


def test_each_segment_is_lit_in_its_colour_in_turn_then_the_buzzer_beeps(frames):
    config = parse_config({"strip": {"enabled": True}, "buzzer": {"enabled": True}}, None)
    pins, said, waits = mock_pin_factory(), [], []
    try_outputs(config, pins, strip_kind="fake", pause=waits.append, say=said.append)
    parts = strip_parts(config.strip.layout)
    assert len(frames) == len(parts) + 1  # one frame per part, then all off
    for frame, (name, leds, colour) in zip(frames, parts):
        assert [i for i, rgb in enumerate(frame) if rgb != OFF] == list(leds), name
        assert {frame[i] for i in leds} == {colour}
    assert frames[-1] == (OFF,) * config.strip.layout.total
    assert [name for name, _, _ in parts[:6]] == [f"{c} segment" for c in TIMER_COLOURS]
    assert said[:2] == ["strip: red segment lit (LEDs 0-15)", "strip: orange segment lit (LEDs 16-31)"]
    assert said[-1] == f"buzzer: beeping on GPIO {config.buzzer.pin}"
    assert waits == [1.0] * len(parts) + [seconds for _, seconds in BEEP]  # the strip's steps, then the tune's notes
    assert pins.pin(config.buzzer.pin).state == 0  # silent again and released


def test_without_strip_or_buzzer_it_says_how_to_fit_them(frames):
    said = []
    try_outputs(parse_config({}, None), mock_pin_factory(), strip_kind="fake", pause=lambda s: None, say=said.append)
    assert frames == [] and "[strip] enabled = true" in said[0]


def test_check_hw_outputs_on_mock_pins(cli, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[strip]\nenabled = true\n[buzzer]\nenabled = true\n", encoding="utf-8")
    done = cli("check-hw", "--mock", "--once", "--outputs", "--config", str(config))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:6] == [f"strip: {c} segment lit (LEDs {16 * i}-{16 * i + 15})" for i, c in enumerate(TIMER_COLOURS)]
    assert "strip: countdown track lit (LEDs 96-100)" in lines and "buzzer: beeping on GPIO 19" in lines
    assert lines[-6].startswith("red")


@pytest.mark.parametrize("pin", load_pinout()["reserved"]["spi"] + [load_pinout()["strip"]["spi_mosi"]])
def test_the_config_refuses_a_pin_of_the_strips_spi_bus(pin):
    with pytest.raises(BadInput) as refused:
        parse_config({"strip": {"enabled": True}, "timers": {"red": {"pins": [pin, 5]}}}, None)
    assert refused.value.field == "timers.red.pins" and f"GPIO {pin}" in refused.value.problem
    assert "SPI" in refused.value.problem


def test_the_spi_pins_are_free_without_the_strip_or_with_the_pwm_driver():
    for strip in ({"enabled": False}, {"enabled": True, "driver": "pwm"}):
        config = parse_config({"strip": strip, "timers": {"red": {"pins": [9, 11]}}}, None)
        assert config.timers["red"].pins == (9, 11) or list(config.timers["red"].pins) == [9, 11]


def test_the_buzzer_cannot_sit_on_the_strips_data_line():
    with pytest.raises(BadInput) as refused:
        parse_config({"strip": {"enabled": True}, "buzzer": {"enabled": True, "pin": 10}}, None)
    assert refused.value.field == "buzzer.pin" and "MOSI" in refused.value.problem
