"""The table's commands for setting it up: new settings applied without a restart, the wiring check,
timing a glass. The web's setup page calls these; the readings are companion.table.wiring's, the same
as `companion check-hw` and `companion calibrate` print.

New settings rebuild the hardware in place, on the runtime thread, between
shows: the old rig is closed (its pins released), a new one opened from the
new config, and the parts built on it (cradles, the strip's frame tap, the
LED show) made afresh. Raw items the old rig's devices queued are dropped:
each carries the generation of the rig that made it.
"""

import logging
from dataclasses import dataclass

from companion.config import Config, mark_set_up, set_duration, write_settings
from companion.errors import BadInput, Conflict
from companion.skyrockets.colours import check_colour, directions_json
from companion.table import wiring
from companion.table.firstrun import grouped
from companion.table.cradles import Cradles
from companion.table.publisher import FrameTap
from companion.table.rig import Rig

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FromRig:
    """A raw item from the devices of rig number `generation`."""

    generation: int
    item: object


class TableSetting:
    """Setting a table up while it runs (mixed into Table, whose parts it uses)."""

    _generation = 0
    _started = False  # the table's threads run (the LED show's too)
    timing: wiring.Timing | None = None

    # ---- building the hardware (Table.__init__ and reconfigure) ------------------

    def _open_rig(self, config: Config, pin_factory) -> Rig:
        generation = self._generation + 1
        rig = Rig(config, pin_factory, lambda item: self.runtime.put(FromRig(generation, item)),
                  self.clock.monotonic, show_clock=self.show_time)
        self._generation = generation
        return rig

    def _take(self, item) -> None:
        if isinstance(item, FromRig):
            if item.generation != self._generation:
                return  # from the rig before the settings changed: its devices are closed
            item = item.item
        self.rig.take(item)

    def _build_on_rig(self, config: Config) -> None:
        """The parts made from the rig: cradles, the strip's frame tap, the LED show's place in the publisher."""
        self.cradles = Cradles(self.rig.poses(), start_window_s=config.tilt.start_window_s,
                               remind_every_s=config.tilt.remind_every_s, journal=self.journal, changed=self._touch)
        previous = getattr(self, "_frames", None)
        self._frames = FrameTap(self.rig.strip, self.rig.layout, after=previous.count if previous else 0)
        self.live.turned_by_table = frozenset(c for c, t in config.timers.items() if t.source == "emulated")

    def _draw_leds(self, snapshot: dict) -> None:
        if self.rig.leds is not None:
            self.rig.leds.update(snapshot)

    # ---- the table's settings -------------------------------------------------------

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def language(self) -> str | None:
        return self.config.language

    def setup_door(self) -> dict:
        """The setup flow's state for the pages: open (with the code as shown) or closed, and whether it can reopen."""
        code = self.first_run.code
        return {"open": code is not None, "code": grouped(code) if code else None,
                "can_reopen": self.config.path is not None, "name": self.config.name}

    def setup_code(self) -> str | None:
        """The setup code while setup is open (for the session's keyed mark), else None."""
        return self.first_run.code

    def accepts_setup_code(self, given: object) -> bool:
        return self.first_run.accepts(given)

    def setup_choices(self) -> dict:
        """What the setup page offers: sources, languages, strip drivers, the pin map's defaults, the limits."""
        from companion.config import LANGUAGES, MAX_TABLE_NAME, SOURCES, default_timers
        from companion.hardware.pins import load_pinout
        from companion.hardware.strip import DRIVERS

        return {"sources": list(SOURCES), "languages": list(LANGUAGES), "drivers": list(DRIVERS),
                "name_max": MAX_TABLE_NAME,
                "pin_map": {"timers": {c: list(t.pins) for c, t in default_timers().items()},
                            "buzzer": load_pinout()["buzzer"]["pin"]}}

    def settings(self) -> dict:
        """What the setup page shows: the settings it may change, as they are now."""
        c = self.config
        return {
            "table": {"name": c.name, "language": c.language or ""},
            "web": {"pin_set": c.web.pin is not None},
            "timers": {colour: {"source": t.source, "pins": list(t.pins),
                                "duration": directions_json(t.directions) if t.directions else None}
                       for colour, t in c.timers.items()},
            "strip": {"enabled": c.strip.enabled, "driver": c.strip.driver},
            "buzzer": {"enabled": c.buzzer.enabled, "pin": c.buzzer.pin},
            "hub": {"port": c.hub.port if c.hub else ""},
            "mqtt": {"url": c.mqtt.url if c.mqtt else ""},
            "saved_in": str(c.path) if c.path else None,
        }

    def change_settings(self, settings) -> dict:
        """Write the page's settings into the config file (checked first) and apply them now."""
        before = self.config
        answer = self.runtime.submit(self._change_settings, settings)
        for listener in self.reconfigured:  # here, not on the runtime thread: a broker may take its time
            listener(before, self.config)
        return answer

    def _change_settings(self, settings) -> dict:
        if self.live.running:
            raise Conflict("show", "a show is running: finish or abort it before changing the table's settings",
                           code="errors.show.running")
        before = self.config
        config = write_settings(before, settings, dry_run=True)  # refused here: nothing written, nothing changed
        try:
            self._reconfigure(config)
            config = write_settings(before, settings)
        except Exception:  # the hardware refused (a pin busy) or the disk did: back as it was
            self._reconfigure(before)
            raise
        self.config = config
        if config.web.pin is not None:
            self.pin = config.web.pin
        return self.settings()

    def _reconfigure(self, config: Config) -> None:
        self.timing = None
        self.rig.close()  # release the pins first: the new rig may want the same ones
        self.rig = self._open_rig(config, self.rig.pin_factory)
        self.config = config
        self._build_on_rig(config)
        if self._started and self.rig.leds is not None:
            self.rig.leds.start()
        self._dirty = True
        self._publish()

    def finish_setup(self) -> None:
        """The setup page is done: the file says so, and the setup code is void."""
        self.runtime.submit(self._finish_setup)

    def _finish_setup(self) -> None:
        if self.config.path is not None:
            self.config = mark_set_up(self.config, True)
        self.first_run.close()

    def reopen_setup(self) -> str:
        """Open the setup flow again with a fresh code (said on the journal and the table's screen)."""
        return self.runtime.submit(self._reopen_setup)

    def _reopen_setup(self) -> str:
        if self.config.path is None:
            raise Conflict("setup", "this table runs without a config file (the demo): there is nothing to set up",
                           code="errors.setup.demo")
        self.config = mark_set_up(self.config, False)
        return self.first_run.reopen()

    # ---- the wiring check -------------------------------------------------------------

    def wiring(self) -> dict:
        """Every glass as its sensors read it now, the hub as last heard, the strip's parts, the buzzer."""
        return self.runtime.submit(self._wiring)

    def _wiring(self) -> dict:
        strip = self.config.strip
        return {"glasses": wiring.glasses(self.rig), "hub": wiring.hub_status(self.rig),
                "strip": [_part(i, name, leds, colour) for i, (name, leds, colour)
                          in enumerate(wiring.strip_parts(self.rig.layout))] if strip.enabled else None,
                "buzzer": {"pin": self.config.buzzer.pin} if self.config.buzzer.enabled else None}

    def light_part(self, part: object) -> dict:
        """Light one part of the strip in its colour (the others dark) until the next show or snapshot."""
        return self.runtime.submit(self._light_part, part)

    def _light_part(self, part) -> dict:
        if self.rig.strip is None:
            raise Conflict("part", "no LED strip is fitted: set strip.enabled first", code="errors.setup.no_strip")
        parts = wiring.strip_parts(self.rig.layout)
        if isinstance(part, bool) or not isinstance(part, int) or not 0 <= part < len(parts):
            raise BadInput("part", f"expected a part number from 0 to {len(parts) - 1}",
                           code="errors.range", params={"low": 0, "high": len(parts) - 1})
        if self.live.running:
            raise Conflict("part", "a show is running: its LEDs are in use", code="errors.show.running")
        name, leds, colour = parts[part]
        self.rig.strip.show(wiring.part_frame(self.rig.layout, leds, colour))
        return {"part": part, "name": name, "leds": [leds.start, leds.stop - 1]}

    def beep(self) -> dict:
        """Play the wiring check's tune on the buzzer, muted or not."""
        return self.runtime.submit(self._beep)

    def _beep(self) -> dict:
        if not self.config.buzzer.enabled:
            raise Conflict("buzzer", "no buzzer is fitted: set buzzer.enabled first", code="errors.setup.no_buzzer")
        self.rig.buzzer.play(wiring.BEEP)
        return {"pin": self.config.buzzer.pin}

    # ---- timing a glass -----------------------------------------------------------------

    def start_timing(self, colour: object, runs: object = 2) -> dict:
        """Start timing `colour`'s glass: turn it, and turn it again each time its top runs dry."""
        return self.runtime.submit(self._start_timing, colour, runs)

    def _start_timing(self, colour, runs) -> dict:
        colour = check_colour(colour, "timer")
        if isinstance(runs, bool) or not isinstance(runs, int):
            raise BadInput("runs", f"expected a whole number, got {str(runs)[:20]!r}", code="errors.whole")
        if self.live.running:
            raise Conflict("timer", "a show is running: time the glass between shows", code="errors.show.running")
        upright = self.rig.tilts[colour].pose if colour in self.rig.tilts else None
        self.timing = wiring.Timing(colour, runs, upright)
        return self.timing.status()

    def timing_status(self) -> dict | None:
        return self.runtime.submit(lambda: self.timing.status() if self.timing else None)

    def save_timing(self) -> dict:
        """Store the medians of the glass being timed, with the same rules and band as `companion calibrate`."""
        return self.runtime.submit(self._save_timing)

    def _save_timing(self) -> dict:
        if self.timing is None:
            raise Conflict("timer", "no glass is being timed", code="errors.setup.not_timing")
        colour, (a_up, b_up) = self.timing.colour, self.timing.calibration.result()
        self.config = set_duration(self.config, colour, (a_up, b_up))
        self.timing = None
        return {"timer": colour, "duration": directions_json(self.config.timers[colour].directions)}

    def _time_change(self, change) -> None:
        if self.timing is not None and not self.timing.done:
            self.timing.see(change)


def _part(index: int, name: str, leds: range, colour) -> dict:
    """One part of the strip as the page offers it: what it is, its LEDs, the colour it lights in."""
    first = name.split()[0]
    kind = "segment" if name.endswith(" segment") else "countdown" if first == "countdown" else "tokens"
    return {"part": index, "name": name, "kind": kind, "colour": first if kind == "segment" else None,
            "leds": [leds.start, leds.stop - 1], "swatch": "#%02x%02x%02x" % tuple(colour[:3])}
