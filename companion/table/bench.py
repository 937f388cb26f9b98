"""The wiring check and timing a glass, between shows: the setup page's bench, on the hardware fitted now.

The readings are companion.table.wiring's, the same as `companion check-hw`
and `companion calibrate` print; every call runs holding the runtime.
"""

from companion.errors import Conflict
from companion.fields import whole
from companion.hardware.source import ButtonAction
from companion.skyrockets.beams import MAX_RUNS
from companion.skyrockets.colours import check_colour, directions_json
from companion.table import wiring
from companion.table.runtime import on_runtime

class Bench:
    """Every glass, the hub, the strip's parts and the buzzer as they read now; a glass being timed."""

    def __init__(self, *, runtime, live, fitted, configured, watch):
        self._runtime, self._live, self._fitted, self._configured = runtime, live, fitted, configured
        self._timing: wiring.Timing | None = None
        watch(self._see)  # the rig's changes, for the glass being timed

    @on_runtime
    def wiring(self) -> dict:
        """Every glass as its sensors read it now, the hub as last heard, the strip's parts, the buzzer."""
        config, rig = self._configured.now, self._fitted.rig
        return {"glasses": wiring.glasses(rig), **wiring.statuses(rig),
                "strip": [_part(i, name, leds, colour) for i, (name, leds, colour)
                          in enumerate(wiring.strip_parts(rig.layout))] if config.strip.enabled else None,
                "buzzer": {"pin": config.buzzer.pin} if config.buzzer.enabled else None}

    @on_runtime
    def light_part(self, part: object) -> dict:
        """Light one part of the strip in its colour (the others dark) until the next show or snapshot."""
        rig = self._fitted.rig
        if rig.strip is None:
            raise Conflict("part", "no LED strip is fitted: set strip.enabled first", code="errors.setup.no_strip")
        parts = wiring.strip_parts(rig.layout)
        part = whole(part, "part", 0, len(parts) - 1)
        if self._live.running:
            raise Conflict("part", "a show is running: its LEDs are in use", code="errors.show.running")
        name, leds, colour = parts[part]
        rig.strip.show(wiring.part_frame(rig.layout, leds, colour))
        return {"part": part, "name": name, "leds": [leds.start, leds.stop - 1]}

    @on_runtime
    def beep(self) -> dict:
        """Play the wiring check's tune on the buzzer, muted or not."""
        buzzer = self._configured.now.buzzer
        if not buzzer.enabled:
            raise Conflict("buzzer", "no buzzer is fitted: set buzzer.enabled first", code="errors.setup.no_buzzer")
        self._fitted.rig.buzzer.play(wiring.BEEP)
        return {"pin": buzzer.pin}

    # ---- timing a glass -----------------------------------------------------------------

    @on_runtime
    def start_timing(self, colour: object, runs: object = 2) -> dict:
        """Start timing `colour`'s glass: turn it, and turn it again each time its top runs dry."""
        colour = check_colour(colour, "timer")
        runs = whole(runs, "runs", 1, MAX_RUNS)
        if self._live.running:
            raise Conflict("timer", "a show is running: time the glass between shows", code="errors.show.running")
        rig = self._fitted.rig
        sensed = colour in rig.physical()  # an LED glass's turn is its button's press, or the player's tap
        self._timing = wiring.Timing(colour, runs, rig.tilts[colour].pose if colour in rig.tilts else None, sensed)
        return self._timing.status()

    @on_runtime
    def turn_timed(self) -> dict:
        """The glass being timed turned over now, as the player says from the page: for a glass whose sensors the
        table does not read (an LED glass), the tap is the turn, as its button's press is."""
        if self._timing is None:
            raise Conflict("timer", "no glass is being timed", code="errors.setup.not_timing")
        self._timing.see(ButtonAction(self._timing.colour, "flip", self._runtime.clock.monotonic()))
        return self._timing.status()

    @on_runtime
    def stop_timing(self) -> None:
        """Give up timing the glass: nothing is kept."""
        self._timing = None

    @on_runtime
    def timing_status(self) -> dict | None:
        return self._timing.status() if self._timing else None

    @on_runtime
    def save_timing(self) -> dict:
        """Store the medians of the glass being timed, with the same rules and band as `companion calibrate`."""
        if self._timing is None:
            raise Conflict("timer", "no glass is being timed", code="errors.setup.not_timing")
        colour, ends = self._timing.colour, self._timing.calibration.result()
        config = self._configured.keep_duration(colour, ends)
        self._timing = None
        return {"timer": colour, "duration": directions_json(config.timers[colour].directions)}

    def _see(self, change) -> None:
        """A change from the rig, for the glass being timed (on the runtime thread)."""
        if self._timing is not None and not self._timing.done:
            self._timing.see(change)


def _part(index: int, name: str, leds: range, colour) -> dict:
    """One part of the strip as the page offers it: what it is, its LEDs, the colour it lights in."""
    first = name.split()[0]
    kind = "segment" if name.endswith(" segment") else "countdown" if first == "countdown" else "tokens"
    return {"part": index, "name": name, "kind": kind, "colour": first if kind == "segment" else None,
            "leds": [leds.start, leds.stop - 1], "swatch": "#%02x%02x%02x" % tuple(colour[:3])}
