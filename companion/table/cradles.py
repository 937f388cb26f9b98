"""The physical glasses as the table knows them and the rules do not: their cradles' sensors.

A glass stands in its cradle either way round, so the table learns which
end of the cradle holds the model's bulb A (`swapped`) from an upright
reading: at the start, the end up holds the sand. For the first seconds of a
show (the start window) turns are the players setting the table up, not
flips. A glass that ran out stays empty in the model until its sensors see
it turned (the players turn it, never the table); until then the players are
reminded: the snapshot says `awaiting_turn`, the LEDs blink and the buzzer
sounds again every `remind_every_s`. That is a reminder, not a sensor fault.
Every move of the model that the sensors cause goes through `apply`, the
table's one way to put a line into the show.
"""

import logging
from dataclasses import dataclass

from companion.skyrockets import Pose
from companion.skyrockets.beams import beam_durations

log = logging.getLogger(__name__)

@dataclass
class Cradle:
    """What the table knows about one physical glass: its sensors' reading and how to map it."""

    physical: Pose | None = None
    swapped: bool | None = None  # None until an upright reading settles it
    sensor_fault: str | None = None
    remind_at: float | None = None  # monotonic instant of the next reminder to turn a glass that ran out
    changed_while_down: bool = False

    @property
    def fault(self) -> str | None:
        return self.sensor_fault

    def to_model(self, pose: Pose) -> Pose:
        return pose.turned if self.swapped else pose


NO_CRADLE = Cradle()  # what an emulated glass's sensors read: nothing (only ever read)


class Cradles(dict):
    """Every physical glass's Cradle by colour, with the start window and the reminders."""

    def __init__(self, poses: dict, *, start_window_s: float, remind_every_s: float, journal, changed):
        super().__init__({colour: Cradle(physical=pose) for colour, pose in poses.items()})
        self.start_window_s, self.remind_every_s = start_window_s, remind_every_s
        self.window_until: float | None = None
        self._journal, self._changed = journal, changed

    def due(self) -> list[float | None]:
        return [self.window_until, *(cradle.remind_at for cradle in self.values())]

    # ---- a show begins, resumes, ends --------------------------------------------

    def orientation_at_start(self, event) -> dict[str, bool | None]:
        """Which way round each glass sits as `event` (as played) starts: a standing one holds its sand on top.

        None for a glass not standing yet: its way round is learnt when it is first stood up.
        """
        return {colour: cradle.physical is Pose.B_UP
                if colour in event.running and cradle.physical is not None and cradle.physical.upright else None
                for colour, cradle in self.items()}

    def begin(self, show, mono: float) -> None:
        """A new show: glasses standing at the start hold their sand on top."""
        for colour, swapped in self.orientation_at_start(show.event).items():
            cradle = self[colour]
            cradle.swapped, cradle.remind_at, cradle.changed_while_down = swapped, None, False
        self._journal.orientation(self)
        in_play = [c for c in self if show.timers[c].glass is not None]
        self.window_until = mono + self.start_window_s if in_play else None

    def resume(self, show, orientation: dict, apply) -> None:
        """A show resumed: read every glass afresh and flag those moved while the table was down."""
        for colour, cradle in self.items():
            cradle.swapped = orientation.get(colour)
            if show.outcome == "running" and show.timers[colour].glass is not None:
                cradle.changed_while_down = self.follow(show, colour, None, apply)

    def end(self) -> None:
        self.window_until = None
        for cradle in self.values():
            cradle.remind_at = None

    def beam_timed(self, show) -> dict[str, tuple[float, float]]:
        """The durations a finished show's neck beams timed, by the cradle's ends: (A up, B up) per colour."""
        timed = {}
        for colour, (a_up, b_up) in beam_durations(show.setup, show.beam_runs).items():
            cradle = self.get(colour)
            timed[colour] = (b_up, a_up) if cradle is not None and cradle.swapped else (a_up, b_up)  # bulbs -> ends
        return timed

    # ---- what the sensors say ---------------------------------------------------------

    def on_pose(self, show, change, apply) -> None:
        cradle = self[change.name]
        cradle.physical = change.pose
        if show is None or show.outcome != "running":
            self._changed()  # between shows the page's setup check follows the glasses
            return
        if show.timers[change.name].glass is None:
            return
        if cradle.sensor_fault:
            return  # a faulty pair is not believed; the page's manual flips stand in for it
        if self.window_until is not None:
            if change.name in show.event.running and change.pose.upright:
                self.orient(change.name, swapped=change.pose is Pose.B_UP)  # turned to start: sand on top
            # Said in the log, as the phones see no flip: the glass follows its sensors when the window closes.
            log.info("%s seen %s within the start window (the first %g s of a show): taken as setting the table "
                     "up, not as a flip", change.name, change.pose.value, self.start_window_s)
            return
        if self.follow(show, change.name, change.t, apply) and change.resync:
            cradle.changed_while_down = True  # it moved while its source could not see it

    def on_beam(self, show, change, apply) -> None:
        """A neck beam saw the sand stop (or start): the rules judge it against the model."""
        if show is None or show.outcome != "running" or show.timers[change.name].glass is None:
            return
        if not self[change.name].sensor_fault:
            apply(change.t, "beam", change.name, state="flowing" if change.flowing else "stopped")

    def on_fault(self, show, change, apply) -> None:
        cradle = self[change.name]
        cradle.sensor_fault = change.fault
        self._changed()
        if change.fault is None and show is not None and show.outcome == "running" \
                and show.timers[change.name].glass is not None:
            self.follow(show, change.name, change.t, apply)

    def follow(self, show, colour: str, mono: float | None, apply) -> bool:
        """Bring the model to the pose the sensors read; True if it had to move."""
        cradle, glass = self[colour], show.timers[colour].glass
        if cradle.physical is None:
            return False
        if cradle.swapped is None and cradle.physical.upright:
            fuller_up = Pose.A_UP if glass.sand_in_a(show.now) >= glass.duration / 2 else Pose.B_UP
            self.orient(colour, swapped=cradle.physical is not fuller_up)
        pose = cradle.to_model(cradle.physical)
        if pose is glass.pose:
            return False
        apply(mono, "pose", colour, pose)
        return True

    def orient(self, colour: str, swapped: bool) -> None:
        self[colour].swapped = swapped
        self._journal.orientation(self)

    # ---- time passing ---------------------------------------------------------------------

    def settle(self, show, now: float, apply, remind) -> None:
        """Close the start window, and `remind(colour)` again for each glass still waiting to be turned."""
        if self.window_until is not None and now >= self.window_until:
            mono, self.window_until = self.window_until, None
            for colour, cradle in self.items():
                if show.timers[colour].glass is not None and not cradle.sensor_fault:
                    self.follow(show, colour, mono, apply)
        for colour, cradle in self.items():
            if cradle.remind_at is None:
                continue
            if not show.timers[colour].spent:
                cradle.remind_at = None  # turned: the model runs from the real turn
            elif now >= cradle.remind_at:
                cradle.remind_at = now + self.remind_every_s
                remind(colour)

    def ran_out(self, colour: str, mono: float) -> None:
        """A glass ran out: remind the players until its sensors see it turned."""
        if colour in self:
            self[colour].remind_at = mono + self.remind_every_s
