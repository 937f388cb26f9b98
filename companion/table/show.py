"""The show in progress: its clock, its journal, and every line that goes into it.

Every input (a sensor's pose, a button's flip, a page's flip) reaches the
rules as one show-log line through `input`, stamped in show time and kept
for the journal, so a replay of the journal is the live show. Notices the
rules raise (low sand, a run-out) and its end go to the step that listens
(`listen`, step.py); a show that
ends is written off with its `end` line at once. The journal stays a log
that `companion replay` takes: no line after the end instant is written, and
a show that would outrun a log's length is ended, as aborted, at its limit.

The rules never turn a glass. An LED glass has no hands, so the table turns
it itself after its run-out: an ordinary `flip` line at the next
representable instant after the run-out. Time is let run one deadline at a
time so that this flip lands at that instant however late the runtime
wakes, and a replay of the journal reaches the same result.
"""

import math

from companion.skyrockets import Pose, Show
from companion.skyrockets.log import MAX_SHOW_S, apply_line
from companion.table.journal import Journal
from companion.table.timebase import TimeBase

FIRING = ("low_sand", "empty", "runout")  # notices that happen at an instant of their own


class LiveShow:
    """The table's current show (or none), in show time."""

    def __init__(self, clock, journal: Journal, speed: float, *, changed, turned_by_table: set[str] = frozenset()):
        self.clock, self.journal = clock, journal
        self.turned_by_table = frozenset(turned_by_table)
        self.time = TimeBase(clock, speed)
        self._changed = changed
        self._step = None  # told each notice and the end: the runtime's step, once it is built (listen)
        self.begin(None, None, 0.0, speed, 0.0)

    def begin(self, show: Show | None, show_id: int | None, t: float, speed: float, started_wall: float) -> None:
        """Make `show` the current one from show time `t` on: a new one, a resumed one, or none."""
        self.show, self.show_id, self.finished, self.started_wall = show, show_id, False, started_wall
        self.time.restart(t, speed)
        self._settled = self._fired = -math.inf
        self.journal.begin(show_id)
        self._changed()

    def listen(self, step) -> None:
        """Tell `step` (its `notice(notice)` and `ended()`) what the show raises, from now on."""
        self._step = step

    @property
    def running(self) -> bool:
        return self.show is not None and self.show.outcome == "running"

    def next_due(self) -> float | None:
        """The monotonic instant of the rules' next deadline (or the log's limit), if a show runs."""
        if not self.running:
            return None
        due = self.show.next_due()  # may be 0.0: a glass turned empty at the very start
        due = MAX_SHOW_S if due is None else min(due, MAX_SHOW_S)
        return self.time.to_mono(due)

    def advance(self, mono: float) -> None:
        """Let the show run to monotonic instant `mono`."""
        if self.running and (t := self.time.to_show(mono)) > self._settled:
            self._run_to(t)

    def _run_to(self, t: float) -> None:
        """Run one deadline at a time, so a glass the table turns is turned at its instant; never past a log's end."""
        end = min(t, MAX_SHOW_S)
        while self.running and (due := self.show.next_due()) is not None and due <= end:
            self.show.advance(due)
            self.after_change()
        if self.running:
            self.show.advance(max(end, self.show.now))  # a glass the table turned may lie just after `end`
            self.after_change()
        self._settled = t
        if self.running and t >= MAX_SHOW_S:
            self.finish("aborted", MAX_SHOW_S)
            self.begin(None, None, 0.0, self.time.speed, 0.0)

    def input(self, mono: float | None, kind: str, colour: str, pose: Pose | None = None, *,
              state: str | None = None) -> bool:
        """Apply one line (at `mono`, or now) and keep it for the journal; False if the show ended first."""
        return self.input_at(self.time.now() if mono is None else self.time.to_show(mono), kind, colour, pose,
                             state=state)

    def input_at(self, t: float, kind: str, colour: str, pose: Pose | None = None, *,
                 state: str | None = None) -> bool:
        """Apply one line at show time `t` (never before the show's now, nor at an instant already fired)."""
        t = max(self.show.now, t)
        while self.running and (due := self.show.next_due()) is not None and due < min(t, MAX_SHOW_S):
            self.show.advance(due)  # what happens before t happens first, the table's own turns included
            self.after_change()
        if not self.running:
            return False
        if t <= self._fired:  # something already happened at this instant: an input now comes just after it
            t = math.nextafter(self._fired, math.inf)
        if t >= MAX_SHOW_S:
            self._run_to(t)
            return False
        line = {"t": t, "type": kind, "timer": colour, **({"pose": pose.value} if pose is not None else {}),
                **({"state": state} if state is not None else {})}
        apply_line(self.show, line)  # what was due before this instant happens first, and may end the show
        if self.show.ended_at is not None and self.show.ended_at < t:
            self.after_change()
            return False  # the show was over before this line: it never happened, and is not journaled
        self.journal.add(line)
        self._changed()
        self.after_change()
        return True

    def after_change(self) -> None:
        ran_out = []
        for notice in self.show.drain_notices():
            self._changed()
            if notice["kind"] in FIRING:
                self._fired = max(self._fired, notice["t"])
            if notice["kind"] == "runout":
                ran_out.append(notice["timer"])
            self._step.notice(notice)
        if self.show.outcome != "running" and not self.finished:
            self.finish(self.show.outcome, self.show.ended_at)
        for colour in ran_out:
            if colour in self.turned_by_table and self.running and self.show.timers[colour].spent:
                self.input_at(self.show.now, "flip", colour)

    def finish(self, outcome: str, t: float) -> None:
        """Close the show as `outcome` at show time `t`: its journal ends there."""
        self.finished = True
        self._step.ended()
        self.journal.finish(t, outcome, self.show.stars, self.clock.wall())
        self._changed()

    def resumed_at(self, t: float) -> None:
        """A show brought back from its journal: run it to `t` at once (turning LED glasses on the way)."""
        self.after_change()  # what the replay itself raised
        if self.running:
            self._run_to(t)
