"""The strip's stream on its own: its layout once, a picture only when the strip shows something new, and an end
when new settings bring another strip (the page comes back for its layout)."""

import json
import threading

from companion.hardware.ledshow import LedShow
from companion.hardware.strip import FakeStrip
from companion.leds import StripLayout
from companion.web.show.api import strip_stream


class Shown:
    """The desk as the stream sees it: the LED show fitted now, and the show clock."""

    def __init__(self, leds):
        self.leds, self.now = leds, 3.0

    def strip_picture(self, after, timeout):
        return None if self.leds is None else self.leds.picture(after, 0)  # no real waits in a test

    def ring_on_picture(self, bell):
        bell.set()  # every wait returns at once: the test steps the LED show itself
        return lambda: None

    def show_time(self):
        return self.now


def led_show(shown: Shown) -> LedShow:
    return LedShow(FakeStrip(StripLayout().total), StripLayout(), show_clock=lambda: shown.now)


def events(stream, count: int) -> list[str]:
    return [next(stream) for _ in range(count)]


def test_a_picture_is_sent_when_the_strip_shows_something_new_and_then_nothing_but_keep_alives():
    shown = Shown(None)
    shown.leds = led_show(shown)
    ticks = iter(range(1000))
    stream = strip_stream(shown, shown.strip_picture(0, 0), keepalive_s=2.0, retry_ms=3000,
                          closing=threading.Event(), clock=lambda: float(next(ticks)))
    retry, layout, picture = events(stream, 3)
    assert retry == "retry: 3000\n\n" and layout.startswith("event: layout\n")
    assert json.loads(picture.split("data: ")[1]) == {"state": {"outcome": "idle"}, "hold": 0.0, "now": 3.0}
    shown.leds.update({"outcome": "idle", "sensors": {"red": [True]}})  # published, and nothing new to show
    shown.leds.step()
    assert events(stream, 3) == [": keep-alive\n\n"] * 3  # each after keepalive_s of the stream's own clock
    shown.leds.update({"outcome": "aborted", "timers": {"red": {"state": "lying", "top_s": 4.0, "duration": 30.0}}})
    shown.leds.step()
    sent = next(stream)
    assert sent.startswith("id: ") and "event: picture" in sent and '"lying"' in sent


def test_new_settings_end_the_stream():
    shown = Shown(None)
    shown.leds = led_show(shown)
    stream = strip_stream(shown, shown.strip_picture(0, 0), keepalive_s=15.0, retry_ms=3000,
                          closing=threading.Event())
    events(stream, 3)
    shown.leds = led_show(shown)  # another strip: its own layout
    assert list(stream) == []
    shown.leds = None
    stream = strip_stream(shown, {"layout": {}}, keepalive_s=15.0, retry_ms=3000, closing=threading.Event())
    assert events(stream, 2)[0] == "retry: 3000\n\n" and list(stream) == []  # no strip now: nothing to follow
