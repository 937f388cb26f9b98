"""The buzzer: which tones reach a (mock) TonalBuzzer for each notice, muting, and never blocking."""

import threading

import pytest
from gpiozero import Device, TonalBuzzer
from gpiozero.pins.mock import MockFactory, MockPWMPin
from gpiozero.tones import Tone

from companion.hardware.buzzer import TUNES, Buzzer, NullBuzzer, TunePlayer


@pytest.fixture
def tonal_buzzer():
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    device = TonalBuzzer(19)
    yield device
    device.close()
    Device.pin_factory.reset()


class FakeClock:
    """A sleep that lets no time pass but notes what the buzzer was sounding, and for how long."""

    def __init__(self, device):
        self.device = device
        self.heard: list[tuple[str | None, float]] = []

    def sleep(self, seconds: float) -> None:
        tone = self.device.tone
        self.heard.append((tone.note if tone else None, seconds))


def synchronous(device):
    clock = FakeClock(device)
    return Buzzer(device, player=TunePlayer(device, sleep=clock.sleep, background=False)), clock


def notice(kind, timer=None, t=0.0):
    return {"kind": kind, "timer": timer, "t": t}


@pytest.mark.parametrize("kind", ["low_sand", "runout", "win", "loss"])
def test_each_alert_plays_its_tune_then_falls_silent(tonal_buzzer, kind):
    buzzer, clock = synchronous(tonal_buzzer)
    buzzer.notice(notice(kind, "red"))
    assert clock.heard == list(TUNES[kind])
    assert tonal_buzzer.tone is None


class LgpioLikePin(MockPWMPin):
    """A PWM pin that, as lgpio's does, stops its PWM at whatever level the wave was on."""

    def _set_frequency(self, value):
        self._frequency = value


@pytest.mark.parametrize("kind", ["runout", "win"])
def test_the_pin_rests_low_after_a_tune_even_where_stopping_pwm_leaves_it_high(kind):
    Device.pin_factory = MockFactory(pin_class=LgpioLikePin)
    device = TonalBuzzer(19)
    try:
        device.pwm_device.pin.state = 1  # the wave was high when the tune ended
        TunePlayer(device, sleep=lambda _s: None, background=False).play(TUNES[kind])
        assert device.tone is None and device.pwm_device.pin.state == 0
    finally:
        device.close()
        Device.pin_factory.reset()


def test_the_tunes_sound_as_intended():
    freq = {kind: [Tone(note).frequency for note, _s in tune if note] for kind, tune in TUNES.items()}
    assert len(TUNES["low_sand"]) == 1 and sum(s for _n, s in TUNES["low_sand"]) <= 0.2  # short
    assert freq["win"] == sorted(freq["win"]) and len(set(freq["win"])) > 2  # rising
    assert freq["loss"] == sorted(freq["loss"], reverse=True) and len(set(freq["loss"])) > 2  # falling
    assert len(freq["runout"]) >= 4 and sum(s for _n, s in TUNES["runout"]) >= 0.6  # an alarm, not a beep


def test_other_notices_make_no_sound(tonal_buzzer):
    buzzer, clock = synchronous(tonal_buzzer)
    for kind in ("empty", "advance", "warning"):
        buzzer.notice(notice(kind, "orange"))
    assert clock.heard == [] and tonal_buzzer.tone is None


def test_a_muted_buzzer_stays_silent_until_unmuted(tonal_buzzer):
    buzzer, clock = synchronous(tonal_buzzer)
    buzzer.muted = True
    buzzer.notice(notice("runout", "red"))
    assert clock.heard == [] and buzzer.muted
    buzzer.muted = False
    buzzer.notice(notice("low_sand", "red"))
    assert clock.heard == list(TUNES["low_sand"])


def test_muted_from_the_start(tonal_buzzer):
    clock = FakeClock(tonal_buzzer)
    buzzer = Buzzer(tonal_buzzer, muted=True, player=TunePlayer(tonal_buzzer, sleep=clock.sleep, background=False))
    buzzer.notice(notice("win"))
    assert clock.heard == []


class GatedClock(FakeClock):
    """A sleep that holds the player thread on each note until the test hands it a permit."""

    def __init__(self, device):
        super().__init__(device)
        self.noted = threading.Condition()
        self.permits = threading.Semaphore(0)

    def sleep(self, seconds: float) -> None:
        with self.noted:
            super().sleep(seconds)
            self.noted.notify_all()
        self.permits.acquire(timeout=5.0)

    def wait_for_notes(self, n: int) -> bool:
        with self.noted:
            return self.noted.wait_for(lambda: len(self.heard) >= n, timeout=5.0)


def test_a_notice_never_waits_for_the_tune(tonal_buzzer):
    clock = GatedClock(tonal_buzzer)
    buzzer = Buzzer(tonal_buzzer, player=TunePlayer(tonal_buzzer, sleep=clock.sleep))
    try:
        buzzer.notice(notice("runout", "red"))  # returns while the player still holds its first note
        assert clock.wait_for_notes(1)
        assert tonal_buzzer.tone.note == "A5"
        buzzer.muted = True  # silences at once, not after the tune
        assert tonal_buzzer.tone is None
    finally:
        clock.permits.release(len(TUNES["runout"]))
        buzzer.close()
    assert clock.heard == [("A5", 0.15)]  # the rest of the alarm was dropped


def test_tunes_queue_behind_each_other_and_a_full_queue_drops(tonal_buzzer):
    clock = GatedClock(tonal_buzzer)
    player = TunePlayer(tonal_buzzer, sleep=clock.sleep, backlog=1)
    expected = list(TUNES["low_sand"]) + list(TUNES["win"])
    try:
        player.play(TUNES["low_sand"])
        assert clock.wait_for_notes(1)  # the player holds the first tune
        player.play(TUNES["win"])  # waits its turn
        player.play(TUNES["loss"])  # the queue is full: dropped, without blocking
        clock.permits.release(len(expected))
        assert clock.wait_for_notes(len(expected))
    finally:
        clock.permits.release(len(TUNES["loss"]))
        player.close()
    assert clock.heard == expected


def test_the_null_buzzer_takes_everything_silently():
    buzzer = NullBuzzer()
    buzzer.notice(notice("runout", "red"))
    buzzer.muted = True
    assert buzzer.muted
    buzzer.close()
