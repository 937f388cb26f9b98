"""The LED strip: the recording fake, settings checks, and the real drivers as far as a PC reaches them."""

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import BadInput
from companion.hardware.strip import FakeStrip, PixelStrip, StripUnavailable, open_strip

RED, GREEN, BLUE, WHITE, OFF = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0)

# Modules whose import reads the platform: dropped so each test imports them afresh for its own board.
BLINKA_MODULES = ("board", "busio", "digitalio", "microcontroller", "neopixel", "neopixel_spi", "neopixel_write",
                  "adafruit_blinka", "adafruit_bus_device")


def fresh_blinka(monkeypatch, *, agnostic: bool):
    if agnostic:
        monkeypatch.setenv("BLINKA_OS_AGNOSTIC", "1")
    else:
        monkeypatch.delenv("BLINKA_OS_AGNOSTIC", raising=False)
    for name in list(sys.modules):
        if name.split(".")[0] in BLINKA_MODULES:
            monkeypatch.delitem(sys.modules, name)


@pytest.fixture
def agnostic_board(monkeypatch):
    """Blinka's OS-agnostic board: the real `board`, `neopixel` and `neopixel_spi` modules on a PC."""
    fresh_blinka(monkeypatch, agnostic=True)
    import board

    assert board.board_id == "OS_AGNOSTIC_BOARD"
    return board


def on_raspberry_pi() -> bool:
    model = Path("/proc/device-tree/model")
    return model.exists() and "Raspberry Pi" in model.read_text(errors="replace")


def assert_one_line(error: Exception, *words: str):
    text = str(error)
    assert "\n" not in text and "Traceback" not in text
    for word in words:
        assert word in text


# --- the fake -----------------------------------------------------------------------------------

def test_fake_strip_records_every_frame_as_rendered():
    strip = FakeStrip(3)
    strip.show([RED, GREEN, BLUE])
    strip.show([OFF, WHITE, OFF])
    assert strip.frames == [(RED, GREEN, BLUE), (OFF, WHITE, OFF)]
    assert strip.n == 3


def test_fake_strip_keeps_a_bounded_history():
    strip = FakeStrip(1, history=5)
    for level in range(12):
        strip.show([(level, 0, 0)])
    assert strip.frames == [((level, 0, 0),) for level in range(7, 12)]


def test_frames_are_kept_before_brightness_and_the_wire_gets_it_in_pixel_order():
    grb = FakeStrip(1, order="GRB", brightness=0.5)
    rgb = FakeStrip(1, order="RGB", brightness=0.5)
    for strip in (grb, rgb):
        strip.show([(200, 100, 2)])
        assert strip.frames[-1] == ((200, 100, 2),)
    assert grb.wire == bytes([50, 100, 1])
    assert rgb.wire == bytes([100, 50, 1])


@pytest.mark.parametrize("order, wire", [("RGBW", bytes([255, 255, 255, 0])), ("GRBW", bytes([255, 255, 255, 0]))])
def test_rgbw_strips_leave_the_white_channel_dark(order, wire):
    strip = FakeStrip(1, order=order, brightness=1.0)
    strip.show([WHITE])
    assert strip.wire == wire
    assert strip.frames[-1] == (WHITE,)


def test_listeners_hear_each_frame_until_they_unsubscribe():
    strip = FakeStrip(1)
    heard = []
    unsubscribe = strip.subscribe(heard.append)
    strip.show([RED])
    unsubscribe()
    strip.show([GREEN])
    assert heard == [(RED,)]


def test_a_failing_listener_does_not_stop_the_strip():
    strip = FakeStrip(1)
    heard = []
    strip.subscribe(lambda frame: 1 / 0)
    strip.subscribe(heard.append)
    strip.show([RED])
    assert heard == [(RED,)] and strip.frames == [(RED,)]


def test_a_frame_of_the_wrong_length_is_refused():
    strip = FakeStrip(3)
    with pytest.raises(ValueError, match="needs 3 pixels"):
        strip.show([RED, RED])
    assert strip.frames == []


def test_closing_turns_the_strip_off_once():
    strip = FakeStrip(2)
    strip.show([RED, BLUE])
    strip.close()
    strip.close()
    assert strip.frames == [(RED, BLUE), (OFF, OFF)]


def test_open_strip_fake_applies_order_and_brightness():
    strip = open_strip("fake", 2, order="RGB", brightness=0.5)
    assert isinstance(strip, FakeStrip)
    strip.show([RED, OFF])
    assert strip.wire == bytes([127, 0, 0, 0, 0, 0])


# --- settings ------------------------------------------------------------------------------------

@pytest.mark.parametrize("settings, field", [
    ({"order": "BRG"}, "strip.order"),
    ({"order": "grb"}, "strip.order"),
    ({"brightness": 1.5}, "strip.brightness"),
    ({"brightness": -0.1}, "strip.brightness"),
    ({"brightness": "0.3"}, "strip.brightness"),
    ({"brightness": True}, "strip.brightness"),
    ({"kind": "ws2801"}, "strip.kind"),
    ({"n": 0}, "strip.n"),
    ({"kind": "spi", "pin": 18}, "strip.pin"),
])
def test_bad_settings_name_their_field(settings, field):
    args = {"kind": "fake", "n": 4, **settings}
    with pytest.raises(BadInput) as caught:
        open_strip(args.pop("kind"), args.pop("n"), **args)
    assert caught.value.field == field
    assert_one_line(caught.value, field)


# --- the real drivers on Blinka's OS-agnostic board ----------------------------------------------

def test_the_real_driver_modules_import_on_the_agnostic_board(agnostic_board):
    import neopixel
    import neopixel_spi

    assert issubclass(neopixel.NeoPixel, neopixel_spi.adafruit_pixelbuf.PixelBuf)
    assert neopixel_spi.NeoPixel_SPI.__name__ == "NeoPixel_SPI"


def test_spi_fails_in_one_line_where_board_spi_cannot_open(agnostic_board):
    # The agnostic board names its clock pin SCK but board.SPI() asks for SCLK: "No Hardware SPI".
    with pytest.raises(StripUnavailable) as caught:
        open_strip("spi", 8)
    assert_one_line(caught.value, "'spi'", "No Hardware SPI", "dtparam=spi=on", "GPIO10")


def from_spi_bits(sent: bytes) -> bytes:
    """The pixel bytes inside NeoPixel_SPI's output: one SPI byte per bit, between zero resets."""
    bits = sent.strip(b"\0")
    return bytes(int("".join("1" if b == 0b11110000 else "0" for b in bits[i:i + 8]), 2)
                 for i in range(0, len(bits), 8))


def test_spi_drives_the_agnostic_boards_spi_port(agnostic_board, monkeypatch):
    import busio

    spi = busio.SPI(agnostic_board.SCK, agnostic_board.MOSI)
    sent = []
    monkeypatch.setattr(spi, "write", lambda buf, *args, **kwargs: sent.append(bytes(buf)))
    monkeypatch.setattr(agnostic_board, "SPI", lambda: spi)
    strip = open_strip("spi", 2, order="GRBW", brightness=0.5)
    assert isinstance(strip, PixelStrip) and strip.n == 2
    strip.show([RED, WHITE])
    strip.close()
    assert [from_spi_bits(buf) for buf in sent] == [
        bytes(8),                                  # opened dark
        bytes([0, 127, 0, 0, 127, 127, 127, 0]),   # G R B W at half brightness, white LED unused
        bytes(8),                                  # closed dark
    ]


def test_pwm_fails_in_one_line_without_gpio18(agnostic_board):
    with pytest.raises(StripUnavailable) as caught:
        open_strip("pwm", 8)
    assert_one_line(caught.value, "'pwm'", "D18", "GPIO18")


def test_pwm_drives_a_pin_through_the_real_neopixel_module(agnostic_board, monkeypatch):
    import neopixel

    written = []
    monkeypatch.setattr(neopixel, "neopixel_write", lambda pin, buf: written.append((pin, bytes(buf))))
    monkeypatch.setattr(agnostic_board, "D18", agnostic_board.NEOPIXEL, raising=False)
    strip = open_strip("pwm", 2, order="GRB", brightness=1.0)
    strip.show([BLUE, RED])
    assert [buf for _pin, buf in written] == [bytes(6), bytes([0, 0, 255, 0, 255, 0])]
    assert written[-1][0]._pin.id == agnostic_board.NEOPIXEL.id  # a DigitalInOut on the chosen pin
    strip.close()
    assert written[-1][1] == bytes(6)


def test_pwm_without_root_says_it_needs_root(agnostic_board, monkeypatch):
    import neopixel

    def no_root(pin, buf):
        raise RuntimeError("NeoPixel support requires running with sudo, please try again!")

    monkeypatch.setattr(agnostic_board, "D18", agnostic_board.NEOPIXEL, raising=False)
    monkeypatch.setattr(neopixel, "neopixel_write", no_root)
    with pytest.raises(StripUnavailable) as caught:
        open_strip("pwm", 8)
    assert_one_line(caught.value, "'pwm'", "needs root", "kind 'spi'")


def test_pi5_names_the_package_to_install(agnostic_board):
    with pytest.raises(StripUnavailable) as caught:
        open_strip("pi5", 8)
    assert_one_line(caught.value, "'pi5'", "install Adafruit-Blinka-Raspberry-Pi5-Neopixel")


@pytest.mark.skipif(on_raspberry_pi(), reason="a Raspberry Pi may really drive the strip")
@pytest.mark.parametrize("kind", ["spi", "pwm"])
def test_on_a_plain_pc_the_real_kinds_fail_in_one_line(monkeypatch, kind):
    fresh_blinka(monkeypatch, agnostic=False)
    with pytest.raises(StripUnavailable) as caught:
        open_strip(kind, 8)
    assert_one_line(caught.value, repr(kind), "fake")


colour = st.tuples(*[st.integers(0, 255)] * 3)


@given(st.lists(st.lists(colour, min_size=5, max_size=5), min_size=1, max_size=4), st.sampled_from(["GRB", "GRBW"]))
def test_a_frame_after_others_reaches_the_wire_as_it_would_on_a_fresh_strip(frames, order):
    # Only the pixels that changed are handed to the driver's buffer: what it sends must still be the whole frame.
    strip, fresh = FakeStrip(5, order=order, brightness=0.5), FakeStrip(5, order=order, brightness=0.5)
    for frame in frames:
        strip.show(frame)
    fresh.show(frames[-1])
    assert strip.wire == fresh.wire and strip.frames[-1] == tuple(frames[-1])


def test_blinka_is_told_never_to_offer_an_install_on_a_terminal(monkeypatch):
    # From an ssh shell Blinka's import asks whether to pip-install Pi extras and waits: check-hw would hang.
    # (The virtual Pi's test runs check-hw on a terminal against the real Blinka.)
    import os
    import types

    from companion.hardware import strip

    monkeypatch.setenv("BLINKA_SKIP_DEPENDENCY_CHECK", "0")  # so the test's end takes back what the call sets
    monkeypatch.delenv("BLINKA_SKIP_DEPENDENCY_CHECK")
    board = types.ModuleType("board")
    monkeypatch.setitem(sys.modules, "board", board)
    assert strip._import_board() is board
    assert os.environ["BLINKA_SKIP_DEPENDENCY_CHECK"] == "1"
