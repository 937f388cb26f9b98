"""The LED strip: one small interface over the NeoPixel drivers, and a fake that records frames.

Kinds of strip (`open_strip(kind, ...)`):

| kind   | driver                                   | data line         | root? |
|--------|------------------------------------------|-------------------|-------|
| `spi`  | adafruit-circuitpython-neopixel-spi      | GPIO10 (SPI MOSI) | no (`spi` group) |
| `pwm`  | adafruit-circuitpython-neopixel          | GPIO18 (`pin`)    | yes   |
| `pi5`  | Adafruit-Blinka-Raspberry-Pi5-Neopixel   | GPIO18 (`pin`)    | no (`/dev/pio0` access) |
| `fake` | `FakeStrip`, in memory                   | -                 | no    |

Driver modules are imported only when a strip of that kind is opened, so this
module imports on any machine. A driver that cannot start raises
`StripUnavailable` with one line naming the kind and the fix.

>>> strip = open_strip("fake", 3)
>>> strip.show([(255, 0, 0), (0, 255, 0), (0, 0, 255)])
>>> strip.frames[-1]
((255, 0, 0), (0, 255, 0), (0, 0, 255))
"""

import logging
import os
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import adafruit_pixelbuf

from companion.errors import BadInput
from companion.fields import real, whole
from companion.leds import StripLayout

log = logging.getLogger(__name__)

Colour = tuple[int, int, int]
Frame = tuple[Colour, ...]

ORDERS = ("GRB", "RGB", "GRBW", "RGBW")
SPI_MOSI = 10
DEFAULT_PIN = 18
DRIVERS = ("spi", "pwm", "pi5", "fake")
MAX_LEDS = 1024  # a strip SPI still refreshes many times a second; the longest layout of ours is some 400


@dataclass(frozen=True)
class StripConfig:
    """The [strip] section: whether a strip is fitted, how it is driven, and its layout."""

    enabled: bool = False
    driver: str = "spi"
    order: str = "GRB"
    brightness: float = 0.3
    layout: StripLayout = StripLayout()

    @classmethod
    def read(cls, s) -> "StripConfig":
        """Read and check the [strip] section (a companion.section.Section); each key is checked here once."""
        d, layout = cls(), StripLayout()
        return cls(enabled=s.boolean("enabled", d.enabled),
                   driver=s.choice("driver", DRIVERS, d.driver),
                   order=check_order(s.value("order", d.order)),
                   brightness=check_brightness(s.value("brightness", d.brightness)),
                   layout=StripLayout(segment_len=s.value("segment_leds", layout.segment_len),
                                      countdown_leds=s.value("countdown_leds", layout.countdown_leds),
                                      token_leds=s.value("token_leds", layout.token_leds),
                                      markers=s.boolean("markers", layout.markers)))


class Strip(Protocol):
    """A chain of `n` RGB LEDs that shows one frame at a time."""

    n: int

    def show(self, pixels: Sequence[Colour]) -> None:
        """Light the LEDs in these colours (exactly `n` of them), at the strip's brightness cap."""

    def close(self) -> None:
        """Turn the LEDs off and let go of the hardware."""


class StripUnavailable(RuntimeError):
    """The strip's driver cannot run on this machine; the message says why and what to do, in one line."""

    def __init__(self, kind: str, reason: str, fix: str):
        super().__init__(f"LED strip {kind!r} unavailable: {reason}; {fix}")
        self.kind = kind


class PixelStrip:
    """A Strip over any adafruit_pixelbuf.PixelBuf driver (NeoPixel, NeoPixel_SPI, the fake's buffer).

    The white channel of RGBW strips stays 0: every colour is drawn with the RGB LEDs.
    """

    def __init__(self, pixels: adafruit_pixelbuf.PixelBuf):
        self._pixels = pixels
        self.n = len(pixels)
        self._closed = False
        # PixelBuf moves grey onto the white LED unless a fourth channel is given.
        self._white = (0,) if pixels.bpp == 4 else ()
        self._set: list | None = None  # the colours the buffer holds (None: not known yet)

    def show(self, pixels: Sequence[Colour]) -> None:
        if len(pixels) != self.n:
            raise ValueError(f"a frame for this strip needs {self.n} pixels, not {len(pixels)}")
        held, white = self._set, self._white
        if held is None:
            self._pixels[:] = [(*rgb, *white) for rgb in pixels]
        else:  # PixelBuf parses each colour in Python: only those that changed (a running glass moves a few)
            for i, rgb in enumerate(pixels):
                if rgb != held[i]:
                    self._pixels[i] = (*rgb, *white)
        self._set = list(pixels)
        self._pixels.show()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pixels.deinit()  # every driver blanks the LEDs here


class _RecordingPixels(adafruit_pixelbuf.PixelBuf):
    """A pixel buffer whose "transmission" hands each frame's colours (before brightness) to `record`."""

    def __init__(self, n: int, order: str, brightness: float, record: Callable[[Frame], None]):
        self._record = record
        self.wire = b""
        self.shown: Frame | None = None  # the frame being shown, as given (reading it back costs a call per pixel)
        super().__init__(n, byteorder=order, brightness=brightness, auto_write=False)

    def _transmit(self, buffer: bytearray) -> None:
        self.wire = bytes(buffer)
        frame = self.shown if self.shown is not None else tuple((r, g, b) for r, g, b, *_white in self[:])
        self._record(frame)

    def deinit(self) -> None:
        self.fill(0)
        self.show()


class FakeStrip(PixelStrip):
    """An in-memory strip that keeps the last `history` frames shown and tells listeners about each.

    Frames are tuples of RGB tuples as they were rendered, *before* the
    brightness cap (what a screen should draw); `wire` holds the bytes a real
    strip would have been sent last (pixel order, brightness applied).

    >>> strip = FakeStrip(2, brightness=0.5)
    >>> unsubscribe = strip.subscribe(print)
    >>> strip.show([(200, 0, 0), (0, 0, 0)])
    ((200, 0, 0), (0, 0, 0))
    >>> strip.wire.hex()
    '006400000000'
    """

    def __init__(self, n: int, *, order: str = "GRB", brightness: float = 1.0, history: int = 300):
        self._frames: deque[Frame] = deque(maxlen=history)
        self._listeners: list[Callable[[Frame], None]] = []
        self._lock = threading.Lock()
        self._buffer = _RecordingPixels(n, check_order(order), check_brightness(brightness), self._record)
        super().__init__(self._buffer)

    def show(self, pixels: Sequence[Colour]) -> None:
        self._buffer.shown = tuple(tuple(rgb) for rgb in pixels)
        try:
            super().show(pixels)
        finally:
            self._buffer.shown = None

    @property
    def frames(self) -> list[Frame]:
        """The frames shown, oldest first (at most `history` of them)."""
        with self._lock:
            return list(self._frames)

    @property
    def wire(self) -> bytes:
        return self._buffer.wire

    def subscribe(self, listener: Callable[[Frame], None]) -> Callable[[], None]:
        """Call `listener(frame)` after every frame shown (on the showing thread); returns the unsubscribe."""
        with self._lock:
            self._listeners.append(listener)
        return lambda: self._unsubscribe(listener)

    def _unsubscribe(self, listener: Callable[[Frame], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def _record(self, frame: Frame) -> None:
        with self._lock:
            self._frames.append(frame)
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(frame)
            except Exception:  # a broken viewer must not stop the strip
                log.exception("LED frame listener failed")


def check_order(order: object) -> str:
    """`order` if it is a pixel order this module drives, else BadInput."""
    if order not in ORDERS:
        raise BadInput("strip.order", f"{order!r} is not a pixel order (expected one of {', '.join(ORDERS)})",
                       code="errors.choice")
    return order


def check_brightness(brightness: object) -> float:
    """`brightness` as a float cap within 0..1, else BadInput."""
    return real(brightness, "strip.brightness", 0.01, 1.0)


@dataclass(frozen=True)
class _Driver:
    package: str  # what to install when its module is missing
    fix: str  # what to do when it is installed but cannot run
    permission: str  # what to do when the user may not drive it


_DRIVERS = {
    "spi": _Driver(
        "adafruit-circuitpython-neopixel-spi",
        "on a Raspberry Pi enable SPI (dtparam=spi=on) and wire the data line to GPIO10 (MOSI); "
        "elsewhere use kind 'fake'",
        "add the daemon's user to the 'spi' group",
    ),
    "pwm": _Driver(
        "adafruit-circuitpython-neopixel and rpi_ws281x",
        "on a Raspberry Pi 1-4 wire the data line to GPIO18 (or set the pin); elsewhere use kind 'spi' or 'fake'",
        "the PWM driver needs root: run as root or use kind 'spi'",
    ),
    "pi5": _Driver(
        "Adafruit-Blinka-Raspberry-Pi5-Neopixel",
        "this driver runs on a Raspberry Pi 5 only; elsewhere use kind 'spi' or 'fake'",
        "give the daemon's user access to /dev/pio0 (or use kind 'spi')",
    ),
}


def open_strip(kind: str = "spi", n: int = 104, *, order: str = "GRB", brightness: float = 0.3,
               pin: int | None = None) -> Strip:
    """Open an LED strip of `kind` ("spi", "pwm", "pi5" or "fake") with `n` LEDs, all off.

    `brightness` caps every LED (0..1); `pin` is the data GPIO of the pwm and pi5
    drivers (default 18; the spi driver always uses GPIO10). The pwm driver
    needs root. Raises BadInput for bad settings and StripUnavailable when the
    driver cannot start here.
    """
    whole(n, "strip.n", 1, MAX_LEDS)
    order, brightness = check_order(order), check_brightness(brightness)
    if kind == "fake":
        return FakeStrip(n, order=order, brightness=brightness)
    if kind not in _DRIVERS:
        raise BadInput("strip.kind", f"{kind!r} is not a strip kind (expected spi, pwm, pi5 or fake)",
                       code="errors.choice")
    if kind == "spi" and pin not in (None, SPI_MOSI):
        raise BadInput("strip.pin", f"the spi driver always sends on GPIO{SPI_MOSI} (MOSI), not GPIO{pin}",
                       code="errors.strip.spi_pin", params={"pin": SPI_MOSI})
    driver = _DRIVERS[kind]
    try:
        pixels = _open_spi(n, order, brightness) if kind == "spi" else _open_gpio(kind, n, order, brightness, pin)
        strip = PixelStrip(pixels)
        strip.show([(0, 0, 0)] * n)  # the first write is where a missing permission shows
    except _DRIVER_FAILURES as e:
        raise StripUnavailable(kind, _first_line(e), _fix_for(e, driver)) from None
    return strip


def _import_board():
    """Blinka's `board`, told never to offer a pip install: on a terminal (an ssh shell running check-hw) its
    import asks whether to install "missing" extras and waits for an answer. What the table needs comes
    from its own install; a driver that is truly missing fails here with its name, as any import does."""
    os.environ["BLINKA_SKIP_DEPENDENCY_CHECK"] = "1"
    import board

    return board


def _open_spi(n: int, order: str, brightness: float):
    board = _import_board()
    import neopixel_spi

    return neopixel_spi.NeoPixel_SPI(board.SPI(), n, pixel_order=order, brightness=brightness, auto_write=False)


def _open_gpio(kind: str, n: int, order: str, brightness: float, pin: int | None):
    if kind == "pi5":
        import adafruit_raspberry_pi5_neopixel_write  # noqa: F401 - neopixel writes through it on a Pi 5
    board = _import_board()
    import neopixel

    data = getattr(board, f"D{DEFAULT_PIN if pin is None else pin}")
    return neopixel.NeoPixel(data, n, pixel_order=order, brightness=brightness, auto_write=False)


# What Blinka and the drivers raise on a machine that cannot drive the strip: a missing module,
# "Board not supported", "No Hardware SPI", a pin this board lacks, no permission.
_DRIVER_FAILURES = (ImportError, AttributeError, ValueError, RuntimeError, OSError)


def _fix_for(error: BaseException, driver: _Driver) -> str:
    if isinstance(error, ModuleNotFoundError):
        return f"install {driver.package}"
    if isinstance(error, PermissionError) or "sudo" in str(error) or "permission" in str(error).lower():
        return driver.permission
    return driver.fix


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
