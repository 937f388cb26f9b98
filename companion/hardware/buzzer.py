"""The optional buzzer: a short tone at low sand, an alarm at a run-out, a jingle at the end.

Tunes are data: (note, seconds) steps, a None note being a rest. Every note
lies within A3..A5, the range of a gpiozero TonalBuzzer with its defaults.
A TunePlayer plays them on its own thread, so a notice never waits for a tune.

On a Pi, `Buzzer(TonalBuzzer(19)).notice({"kind": "runout", "timer": "red",
"t": 30.0})` plays the run-out tune on GPIO 19 (gpiozero's TonalBuzzer).
"""

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

Tune = tuple[tuple[str | None, float], ...]

TUNES: dict[str, Tune] = {
    "low_sand": (("E5", 0.12),),
    "runout": (("A5", 0.15), ("E5", 0.15)) * 3,
    "turn_reminder": (("A5", 0.1), (None, 0.1), ("A5", 0.1)),  # a glass ran out and is still not turned
    "win": (("C4", 0.12), ("E4", 0.12), ("G4", 0.12), ("C5", 0.5)),
    "loss": (("G4", 0.3), ("E4", 0.3), ("C4", 0.3), ("A3", 0.8)),
}


@dataclass(frozen=True)
class BuzzerConfig:
    """The [buzzer] section: whether a buzzer is fitted, on which pin, and whether it starts muted."""

    enabled: bool = False
    pin: int = 19
    muted: bool = False

    @classmethod
    def read(cls, s) -> "BuzzerConfig":
        d = cls()
        return cls(enabled=s.boolean("enabled", d.enabled), pin=s.pins("pin", (d.pin,), single=True)[0],
                   muted=s.boolean("muted", d.muted))


class TunePlayer:
    """Plays tunes on a TonalBuzzer one after another, on a thread of its own (or in the caller's).

    `sleep` waits out each note; tests pass a fake clock's sleep and
    `background=False` to play synchronously. At most `backlog` tunes wait;
    more are dropped rather than make anyone wait.
    """

    def __init__(self, device, *, sleep: Callable[[float], None] = time.sleep, background: bool = True,
                 backlog: int = 4):
        self._device = device
        self._sleep = sleep
        self._lock = threading.Lock()
        self._generation = 0  # bumped by silence(): queued and playing tunes of older generations stop
        self._queue: queue.Queue | None = None
        if background:
            self._queue = queue.Queue(maxsize=backlog)
            self._thread = threading.Thread(target=self._run, name="buzzer", daemon=True)
            self._thread.start()

    def play(self, tune: Tune) -> None:
        """Play `tune` after those already waiting (never blocks when in the background)."""
        if self._queue is None:
            self._play(tune, self._generation)
            return
        try:
            self._queue.put_nowait((tune, self._generation))
        except queue.Full:
            log.debug("buzzer busy, tune dropped")

    def silence(self) -> None:
        """Stop the tune playing now and drop those waiting."""
        with self._lock:
            self._generation += 1
            self._rest()

    def close(self) -> None:
        """Silence the buzzer and stop the player thread."""
        self.silence()
        if self._queue is not None:
            self._queue.put(None)
            self._thread.join()

    def _rest(self) -> None:
        # Stopping lgpio's PWM leaves the pin at the level the wave was on: a magnetic buzzer behind a
        # transistor would then draw current until the next tune. Drive the pin low as well.
        self._device.stop()
        self._device.pwm_device.off()

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            self._play(*item)

    def _play(self, tune: Tune, generation: int) -> None:
        for note, seconds in (*tune, (None, 0.0)):  # the final rest leaves the buzzer silent
            with self._lock:
                if generation != self._generation:
                    return
                if note is None:
                    self._rest()
                else:
                    self._device.play(note)
            if seconds:
                self._sleep(seconds)


class Buzzer:
    """A buzzer that answers show notices with tunes, unless muted (the page toggles `muted`).

    `tonal_buzzer` is a gpiozero TonalBuzzer; `player` defaults to a
    background TunePlayer on it.
    """

    def __init__(self, tonal_buzzer, *, muted: bool = False, player: TunePlayer | None = None,
                 tunes: dict[str, Tune] = TUNES):
        self._device = tonal_buzzer
        self._player = player or TunePlayer(tonal_buzzer)
        self._tunes = tunes
        self._muted = muted

    @property
    def muted(self) -> bool:
        return self._muted

    @muted.setter
    def muted(self, value: bool) -> None:
        self._muted = bool(value)
        if self._muted:
            self._player.silence()

    def notice(self, n: dict) -> None:
        """Play the tune for this notice's kind, if it has one (never blocks)."""
        tune = self._tunes.get(n.get("kind"))
        if tune and not self._muted:
            self._player.play(tune)

    def play(self, tune: Tune) -> None:
        """Play `tune` now, muted or not: the wiring check's beep (never blocks)."""
        self._player.play(tune)

    def close(self) -> None:
        """Silence the buzzer, stop its player and release its pin (new settings may want the same one)."""
        self._player.close()
        if self._device is not None:
            self._device.close()


class NullBuzzer:
    """The buzzer of a table without one: takes notices and mute toggles, makes no sound."""

    muted = False

    def notice(self, n: dict) -> None:
        pass

    def play(self, tune) -> None:
        pass

    def close(self) -> None:
        pass
