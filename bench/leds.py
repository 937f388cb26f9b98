"""LED rendering cost: CPU time per frame for a busy six-timer show on 6x16 + 8 LEDs, at 30 fps.

Runs ten seconds of show time (300 frames) flat out through LedShow.frame and
prints figures, no verdict: mean and p99 CPU time per frame, and the share of
one core that 30 frames a second would take (target: at most 5 %). A second
row adds the SPI driver's bit encoding (adafruit NeoPixel_SPI on Blinka's
OS-agnostic board), the extra work a real strip costs.

    python bench/leds.py
"""

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("BLINKA_OS_AGNOSTIC", "1")  # lets the real SPI driver load on a PC

from companion.hardware.ledshow import LedShow  # noqa: E402
from companion.hardware.strip import FakeStrip, PixelStrip  # noqa: E402
from companion.leds import StripLayout  # noqa: E402

FPS = 30
SECONDS = 10.0
T0 = 100.0


def glass(state, top_s, duration, role="timer", **more):
    return {"pose": "side" if state == "lying" else "a_up", "top_s": top_s, "state": state, "duration": duration,
            "role": role, "source": "emulated", "fault": None, "awaiting_turn": False, **more}


def busy_show() -> dict:
    """Six glasses in play: two low on sand, one just run out, the countdown running, one lying."""
    return {
        "id": 1, "outcome": "running", "t": T0, "stars": 0, "countdown": {"timer": "orange", "position": 2},
        "crowd_tokens_turned": 1, "runouts": [{"timer": "yellow", "t": T0 - 1.0}], "advances": [], "warnings": [],
        "speed": 1.0, "warn_lead_s": 10.0,
        "timers": {
            "red": glass("running", 6.0, 30.0),
            "orange": glass("running", 25.0, 40.0, role="countdown"),
            "yellow": glass("running", 49.0, 50.0),
            "green": glass("running", 9.0, 60.0),
            "blue": glass("lying", 40.0, 70.0),
            "purple": glass("running", 55.0, 80.0),
        },
    }


def measure(strip) -> list[float]:
    """CPU seconds of each frame of SECONDS of show time, rendered and shown back to back."""
    layout = StripLayout()
    leds = LedShow(strip, layout, show_clock=lambda: T0)
    leds.update(busy_show())
    for i in range(FPS):  # warm up
        leds.frame(T0 + i / FPS)
    costs = []
    for i in range(int(SECONDS * FPS)):
        started = time.process_time()
        leds.frame(T0 + i / FPS)
        costs.append(time.process_time() - started)
    return costs


def spi_strip(n: int) -> PixelStrip:
    import board
    import busio
    import neopixel_spi

    spi = busio.SPI(board.SCK, board.MOSI)  # the agnostic board's SPI port; writes go nowhere
    return PixelStrip(neopixel_spi.NeoPixel_SPI(spi, n, pixel_order="GRB", brightness=0.3, auto_write=False))


def report(name: str, costs: list[float]) -> None:
    mean = statistics.fmean(costs)
    p99 = statistics.quantiles(costs, n=100)[98]
    print(f"{name:<40} {mean * 1e3:8.3f} {p99 * 1e3:8.3f} {FPS * mean * 100:9.2f} %")


def main() -> None:
    n = StripLayout().total
    print(f"LED frames: {n} LEDs (6x16 + 8), {int(SECONDS * FPS)} frames of a busy 6-timer show, flat out")
    print(f"{'strip':<40} {'mean ms':>8} {'p99 ms':>8} {'core @30fps':>11}")
    report("FakeStrip (render + show)", measure(FakeStrip(n)))
    try:
        report("NeoPixel_SPI (+ bit encoding, agnostic)", measure(spi_strip(n)))
    except Exception as e:  # the figure is optional: say why it is missing
        print(f"{'NeoPixel_SPI encoding':<40} not measured ({type(e).__name__}: {e})")
    print("target: FakeStrip row <= 5 % of one core")


if __name__ == "__main__":
    main()
