"""The show in progress: its clock, its journal, and every line that goes into it.

Every input (a sensor's pose, a button's flip, a page's flip) reaches the
rules as one show-log line through `input`, stamped in show time and kept
for the journal, so a replay of the journal is the live show. Notices the
rules raise (low sand, a run-out, the end) go to `on_notice`; a show that
ends is written off with its `end` line at once. The journal stays a log
that `companion replay` takes: no line after the end instant is written, and
a show that would outrun a log's length is ended, as aborted, at its limit.
"""

import math

from companion.skyrockets import Pose, Show
from companion.skyrockets.log import MAX_SHOW_S, apply_line
from companion.table.journal import Journal
from companion.table.timebase import TimeBase

FIRING = ("low_sand", "empty", "runout")  # notices that happen at an instant of their own


class LiveShow:
    """The table's current show (or none), in show time."""

    def __init__(self, clock, journal: Journal, speed: float, *, on_notice, on_end, changed):
        self.clock, self.journal = clock, journal
        self.time = TimeBase(clock, speed)
        self._on_notice, self._on_end, self._changed = on_notice, on_end, changed
        self.begin(None, None, 0.0, speed, 0.0)

    def begin(self, show: Show | None, show_id: int | None, t: float, speed: float, started_wall: float) -> None:
        """Make `show` the current one from show time `t` on: a new one, a resumed one, or none."""
        self.show, self.show_id, self.finished, self.started_wall = show, show_id, False, started_wall
        self.time.restart(t, speed)
        self._settled = self._fired = -math.inf
        self.journal.begin(show_id)
        self._changed()

    @property
    def running(self) -> bool:
        return self.show is not None and self.show.outcome == "running"

    def next_due(self) -> float | None:
        """The monotonic instant of the rules' next deadline (or the log's limit), if a show runs."""
        if not self.running:
            return None
        due = min(MAX_SHOW_S, self.show.next_due() or MAX_SHOW_S)
        return self.time.to_mono(due)

    def advance(self, mono: float) -> None:
        """Let the show run to monotonic instant `mono`."""
        if self.running and (t := self.time.to_show(mono)) > self._settled:
            self._run_to(t)

    def _run_to(self, t: float) -> None:
        self.show.advance(min(t, MAX_SHOW_S))
        self._settled = t
        self.after_change()
        if self.running and t >= MAX_SHOW_S:
            self.finish("aborted", MAX_SHOW_S)
            self.begin(None, None, 0.0, self.time.speed, 0.0)

    def input(self, mono: float | None, kind: str, colour: str, pose: Pose | None = None) -> bool:
        """Apply one line (at `mono`, or now) and keep it for the journal; False if the show ended first."""
        t = max(self.show.now, self.time.now() if mono is None else self.time.to_show(mono))
        if t <= self._fired:  # something already happened at this instant: an input now comes just after it
            t = math.nextafter(self._fired, math.inf)
        if t >= MAX_SHOW_S:
            self._run_to(t)
            return False
        line = {"t": t, "type": kind, "timer": colour, **({"pose": pose.value} if pose is not None else {})}
        apply_line(self.show, line)  # what was due before this instant happens first, and may end the show
        if self.show.ended_at is not None and self.show.ended_at < t:
            self.after_change()
            return False  # the show was over before this line: it never happened, and is not journaled
        self.journal.add(line)
        self._changed()
        self.after_change()
        return True

    def after_change(self) -> None:
        for notice in self.show.drain_notices():
            self._changed()
            if notice["kind"] in FIRING:
                self._fired = max(self._fired, notice["t"])
            self._on_notice(notice)
        if self.show.outcome != "running" and not self.finished:
            self.finish(self.show.outcome, self.show.ended_at)

    def finish(self, outcome: str, t: float) -> None:
        """Close the show as `outcome` at show time `t`: its journal ends there."""
        self.finished = True
        self._on_end()
        self.journal.finish(t, outcome, self.show.stars, self.clock.wall())
        self._changed()

    def resumed_at(self, t: float) -> None:
        """A show brought back from its journal: run it to `t` at once."""
        self._run_to(t)
