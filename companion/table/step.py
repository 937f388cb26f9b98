"""The runtime's step: what the table does each time its runtime wakes (runtime.py), in a room of its own.

A flip's walk: a pin's edge is queued on the runtime (pins.py); the runtime
hands it to the rig (fitted.py) and calls this step, which takes the rig's
changes (inputs.py) to the cradles and the live show (show.py), lets the
show run to now, and publishes what changed (publisher.py), from which the
web's fan-out writes to every phone. The step is built from those parts and
owns what happens between them: what is due next, the notices the show
raises (to the buzzer, to the cradles), the end of a show, and when to
publish.

>>> changes = Changes()
>>> changes.dirty, changes.touch(), changes.dirty
(False, None, True)
"""

from collections.abc import Callable

from companion.hardware.debounce import earliest
from companion.table.describer import Describer
from companion.table.inputs import take_change


class Changes:
    """Whether something the pages show has changed since the last publish: each part marks it, the step reads it."""

    def __init__(self):
        self.dirty = False

    def touch(self) -> None:
        self.dirty = True


class Step:
    """The runtime's step, from the parts it stands on; the live show tells it its notices and its end."""

    def __init__(self, *, clock, live, fitted, journal, publisher, configured, changes: Changes):
        self._clock, self._live, self._fitted, self._journal = clock, live, fitted, journal
        self._publisher, self._configured, self._changes = publisher, configured, changes
        self._describe = Describer()
        self._journal_problem = None
        self._watchers: list[Callable[[object], None]] = []

    def watch(self, see: Callable[[object], None]) -> None:
        """Have `see(change)` called with each change from the rig (the setup page times a glass by them)."""
        self._watchers.append(see)

    # ---- the step ---------------------------------------------------------------------

    def next_due(self) -> float | None:
        """The next monotonic instant at which something is due, if any."""
        rig, cradles = self._fitted.rig, self._fitted.cradles
        return earliest(rig.next_due(), *(cradles.due() if self._live.running else ()), self._live.next_due())

    def __call__(self, now: float) -> None:
        """Settle everything due by `now`, then publish what changed."""
        cradles = self._fitted.cradles
        for change in self._fitted.rig.update(now):
            take_change(change, self._live, cradles)
            for see in self._watchers:
                see(change)
        if self._live.running:
            cradles.settle(self._live.show, now, self._live.input, self.remind)
        self._live.advance(now)
        if self._journal.problem != self._journal_problem:
            self._journal_problem = self._journal.problem
            self._changes.touch()
        self.publish_changes()
        # After publishing: the journal's writer, woken now, does not compete with the writes to the phones.
        self._journal.flush()

    # ---- what the live show tells it --------------------------------------------------

    def notice(self, notice: dict) -> None:
        """A notice the show raised: a run-out ends the glass's cradle turn; the buzzer sounds each."""
        if notice["kind"] == "runout" and self._live.show.outcome == "running":
            self._fitted.cradles.ran_out(notice["timer"], self._clock.monotonic())
        self._fitted.rig.buzzer.notice(notice)

    def remind(self, colour: str) -> None:
        self._fitted.rig.buzzer.notice({"kind": "turn_reminder", "timer": colour, "t": self._live.show.now})

    def ended(self) -> None:
        """The show ended: the cradles stop watching, and the glasses the beams timed are kept for calibration."""
        cradles = self._fitted.cradles
        cradles.end()
        self._configured.keep_timed(cradles.beam_timed(self._live.show))

    # ---- publishing ---------------------------------------------------------------------

    def publish_changes(self) -> None:
        """Publish now if anything changed since the last publish."""
        if self._changes.dirty:
            self.publish()

    def publish(self) -> None:
        """Publish the table's state now (holding the runtime)."""
        self._changes.dirty = False
        live, rig = self._live, self._fitted.rig
        extras = {"speed": live.time.speed, "muted": rig.buzzer.muted, "journal_problem": self._journal_problem}
        self._publisher.publish(self._describe(live.show, live.show_id, live.started_wall, self._fitted.cradles,
                                               self._configured.now, extras))
