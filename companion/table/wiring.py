"""Checking a table's wiring and timing its glasses: what `companion check-hw`, `companion calibrate` and the
setup page share, so the terminal and the phone read the same switches the same way.

`glasses(rig)` is every glass as its sensors read it now; `readout(rig)` the
same as the terminal's lines; `strip_parts(layout)` the parts of the strip a
wiring check lights one by one; `Timing` follows one glass being calibrated
through the rig's changes.

>>> from companion.config import parse_config
>>> from companion.hardware.mock import mock_pin_factory
>>> from companion.table.rig import Rig
>>> rig = Rig(parse_config({}, None), mock_pin_factory(), lambda item: None, lambda: 0.0)
>>> glasses(rig)[0]["switches"]
[{'pin': 4, 'closed': False}, {'pin': 5, 'closed': False}]
>>> rig.close()
"""

from companion.calibration import Calibration
from companion.hardware import sensors
from companion.hardware.source import BeamChange, ButtonAction, PoseChange, fault_json
from companion.skyrockets.colours import DIRECTIONS

STEP_S = 1.0  # how long each strip part stays lit when the terminal tries the outputs in turn
BEEP = (("A4", 0.3), (None, 0.1), ("A5", 0.3))  # the buzzer's test tune


def glasses(rig) -> list[dict]:
    """Each glass as its sensors read it now: its source (and what the page shows of its kind), every switch's
    level, the settled pose, any fault."""
    found = []
    for colour, timer in rig.config.timers.items():
        kind = sensors.kind(timer.source)
        glass = {"colour": colour, "source": timer.source, "kind": kind.for_page(), "switches": [], "pose": None,
                 **fault_json(None), "pressed": None}
        kind.describe(rig, colour, glass)
        found.append(glass)
    return found


def statuses(rig) -> dict:
    """What the wiring check shows of each kind of source as a whole, by its section (None: it has none)."""
    return {kind.section: kind.status(rig) for kind in sensors.kinds() if kind.status is not None}


def readout(rig) -> list[str]:
    """One line per timer: its source, every switch's raw level, the debounced pose, any fault."""
    lines = []
    for glass in glasses(rig):
        switches, state = sensors.kind(glass["source"]).readout(glass)
        lines.append(f"{glass['colour']:<7} {glass['source']:<9} {switches:<32} {state}")
    return lines


def strip_parts(layout) -> list[tuple[str, range, tuple[int, int, int]]]:
    """Each part of the strip, in order along it: (its name, its LEDs, the colour it is lit in to test it)."""
    from companion.leds import AMBER, GOLD, TIMER_COLOURS

    parts = [(f"{colour} segment", range(layout.segment_start(colour), layout.segment_start(colour) + layout.segment_len),
              TIMER_COLOURS[colour]) for colour in layout.colours]
    if layout.countdown_leds:
        parts.append(("countdown track", range(layout.countdown_start, layout.countdown_start + layout.countdown_leds), AMBER))
    if layout.token_leds:
        parts.append(("crowd tokens", range(layout.tokens_start, layout.tokens_start + layout.token_leds), GOLD))
    return parts


def part_frame(layout, leds: range, colour) -> list[tuple[int, int, int]]:
    """A frame with only `leds` lit in `colour`: one part of the strip, as a wiring check shows it."""
    return [colour if i in leds else (0, 0, 0) for i in range(layout.total)]


def turn_of(change, colour: str, last_upright):
    """Whether `change` turned `colour`'s glass: (its new pose, "" for a button press, or None; the upright pose)."""
    if isinstance(change, PoseChange) and change.name == colour and change.pose.upright:
        return (change.pose.value if change.pose != last_upright else None), change.pose
    if isinstance(change, ButtonAction) and change.name == colour:
        return "", last_upright
    return None, last_upright


class Timing:
    """One glass being calibrated: the rig's changes in, its runs out (a neck beam, if any, ends each run).

    >>> from companion.skyrockets import Pose
    >>> timing = Timing("red", runs=1, upright=Pose.A_UP)
    >>> [timing.see(PoseChange("red", pose, t)) for pose, t in ((Pose.B_UP, 0.0), (Pose.A_UP, 30.0), (Pose.B_UP, 61.0))]
    [None, 30.0, 31.0]
    >>> timing.status()["median"]
    {'a_up': 31.0, 'b_up': 30.0}
    """

    def __init__(self, colour: str, runs: int = 2, upright=None, sensed: bool = True):
        self.colour = colour
        self.calibration = Calibration(runs)
        self.started = False
        self.sensed = sensed  # the table sees this glass turn (sensors or a button); else the player says so
        self._upright = upright

    def see(self, change) -> float | None:
        """Take one change from the rig; returns the run it ended, if any."""
        if isinstance(change, BeamChange) and change.name == self.colour and not change.flowing:
            return self.calibration.ran_dry(change.t)
        turned, self._upright = turn_of(change, self.colour, self._upright)
        if turned is None:
            return None
        self.started = True
        return self.calibration.turned(change.t, turned or None)

    @property
    def done(self) -> bool:
        return self.calibration.done

    def status(self) -> dict:
        """The runs so far each way, the median of each way, and whether enough runs are in."""
        by_way = self.calibration.by_direction
        medians = dict(zip(DIRECTIONS, self.calibration.result())) if self.calibration.durations else None
        return {"timer": self.colour, "started": self.started, "sensed": self.sensed,
                "runs_each_way": self.calibration.runs,
                "runs": {way: [round(r, 2) for r in by_way[way]] for way in DIRECTIONS},
                "median": {way: round(s, 2) for way, s in medians.items()} if medians else None,
                "done": self.calibration.done}
