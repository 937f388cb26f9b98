"""The hardware fitted to the table now, and the parts built on it: refitted in place when the settings change.

New settings rebuild the hardware on the runtime thread, between shows:
the old rig is closed (its pins released), a new one opened from the new
config, and the parts built on it (cradles, the LED show) made afresh. Raw items the old rig's devices queued are dropped: each
carries the generation of the rig that made it.
"""

from dataclasses import dataclass

from companion.config import Config
from companion.hardware import sensors
from companion.table.cradles import Cradles
from companion.table.rig import Rig


@dataclass(frozen=True)
class FromRig:
    """A raw item from the devices of rig number `generation`."""

    generation: int
    item: object


class Fitted:
    """The rig and the cradles on it; `take` hands the rig its raw items."""

    def __init__(self, config: Config, pin_factory, *, runtime, clock, journal, live, changed):
        self._runtime, self._clock, self._journal, self._live, self._changed = runtime, clock, journal, live, changed
        self.pin_factory = pin_factory
        self.generation = 0
        self.started = False  # the table's threads run (the LED show's too)
        self.rig = self._open(config)
        self._build(config)

    def _open(self, config: Config) -> Rig:
        generation = self.generation + 1
        rig = Rig(config, self.pin_factory, lambda item: self._runtime.put(FromRig(generation, item)),
                  self._clock.monotonic, show_clock=self._live.time.now)
        self.generation = generation
        return rig

    def _build(self, config: Config) -> None:
        """The parts made from the rig: cradles, which glasses the table turns itself."""
        self.cradles = Cradles(self.rig.poses(), start_window_s=config.tilt.start_window_s,
                               remind_every_s=config.tilt.remind_every_s, journal=self._journal,
                               changed=self._changed)
        self._live.turned_by_table = frozenset(c for c, t in config.timers.items() if not sensors.physical(t))

    def refit(self, config: Config) -> None:
        """Close the rig and open one from `config` (on the runtime thread, between shows)."""
        self.rig.close()  # release the pins first: the new rig may want the same ones
        self.rig = self._open(config)
        self._build(config)
        if self.started and self.rig.leds is not None:
            self.rig.leds.start()

    def take(self, item) -> None:
        if isinstance(item, FromRig):
            if item.generation != self.generation:
                return  # from the rig before the settings changed: its devices are closed
            item = item.item
        self.rig.take(item)

    def start(self) -> None:
        self.started = True
        if self.rig.leds is not None:
            self.rig.leds.start()

    def draw_leds(self, snapshot: dict) -> None:
        if self.rig.leds is not None:
            self.rig.leds.update(snapshot)
