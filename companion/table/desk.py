"""The show desk (ports.ShowDesk): the show's commands from the phones, and its state as published.

Every command runs holding the runtime (runtime.py), in order with the
sensors' changes; a change to the show answers once its journal lines are on disk
(`durable`). The state is published once per change, as a numbered
snapshot; readers on any thread take it, or wait for the next.
"""

from collections.abc import Callable

from companion.errors import Conflict
from companion.fields import yes_no
from companion.skyrockets import Pose, Show, parse_event, setup_line
from companion.skyrockets.colours import check_colour
from companion.skyrockets.snapshot import carried
from companion.table.parameters import show_setup
from companion.table.runtime import durable, on_runtime


class Desk:
    """The show in progress: start it, turn or lay a glass, abort it, mute the buzzer; read its state."""

    def __init__(self, *, clock, runtime, journal, live, fitted, publisher, store, configured, speed: float, changes,
                 step):
        self.runtime, self.journal = runtime, journal  # what @on_runtime holds, and what @durable waits for
        self._clock, self._live, self._fitted, self._publisher = clock, live, fitted, publisher
        self._store, self._configured, self._speed = store, configured, speed
        self._changes = changes  # the step publishes again on its next run ...
        self._step = step  # ... or now

    # ---- commands (thread-safe; run holding the runtime) ---------------------

    @durable
    def start_show(self, event, challenge: bool = False) -> dict:
        """Start a show of `event` (an id, or an inline event object, which is saved for next time)."""
        if self._live.running:
            raise Conflict("show", "a show is already running: abort it first", code="errors.show.running")
        challenge = yes_no(challenge, "challenge")
        chosen = parse_event(event, "event", self._store.events())
        played = chosen.challenged() if challenge else chosen  # no challenge for a purple countdown: refused here
        cradles = self._fitted.cradles
        setup = show_setup(self._configured.now, chosen, challenge, cradles.orientation_at_start(played))
        wall = self._clock.wall()
        if isinstance(event, dict):
            self._store.save_event(chosen, wall)
        show_id = self._store.begin_show(chosen, challenge, setup_line(setup), wall, self._speed)
        self._live.begin(Show(setup), show_id, 0.0, self._speed, wall)
        cradles.begin(self.show, self._clock.monotonic())
        return self._snapshot_now()

    @durable
    def flip(self, colour: str) -> dict:
        """Flip a timer from the page: an emulated one, or a physical one whose sensors are faulty."""
        return self._turn(colour)

    @durable
    def lay(self, colour: str) -> dict:
        """Lay a timer on its side from the page, as a long press on its button does."""
        return self._turn(colour, Pose.SIDE)

    @durable
    def abort(self) -> dict:
        """Stop the running show (recorded as aborted), or dismiss a finished one."""
        if self._live.running:
            self._live.finish("aborted", max(self.show.now, self.show_time()))
        self._live.begin(None, None, 0.0, self._speed, 0.0)
        return self._snapshot_now()

    @on_runtime
    def set_muted(self, muted: bool) -> dict:
        self._fitted.rig.buzzer.muted = yes_no(muted, "muted")
        self._changes.touch()
        return self._snapshot_now()

    def _turn(self, colour, pose: Pose | None = None) -> dict:
        colour = check_colour(colour, "timer")
        if not self._live.running:
            raise Conflict("timer", "no show is running", code="errors.show.none")
        if self.show.timers[colour].glass is None:
            raise Conflict("timer", f"{colour} is not in play in this event",
                           code="errors.show.not_in_play", params={"colour": colour})
        cradle = self._fitted.cradles.get(colour)
        if cradle is not None and not cradle.fault:
            raise Conflict("timer", f"{colour} is read by its tilt sensors: turn the glass itself",
                           code="errors.show.sensed", params={"colour": colour})
        if pose is not None and not self.show.timers[colour].glass.pose.upright:
            raise Conflict("timer", f"{colour} is already lying on its side",
                           code="errors.show.lying", params={"colour": colour})
        if not self._live.input(None, "flip" if pose is None else "pose", colour, pose):
            raise Conflict("timer", f"the show ended at {self.show.ended_at:.1f} s, before this flip",
                           code="errors.show.ended")
        # To the phones at once, the rest of the step after: nothing was queued or due as the command began, so
        # the step (the rig, the cradles, the show run on by the microseconds since) has nothing to add before it,
        # and it took a tenth of a flip's way to the phones.
        self._step.publish_changes()
        return self._snapshot_now()

    def _snapshot_now(self) -> dict:
        self.runtime.pump()
        return self._publisher.snapshot()

    # ---- what the table looks like (any thread) -----------------------------

    @property
    def show(self):
        """The show in progress (a companion.skyrockets.Show), or None."""
        return self._live.show

    @property
    def show_id(self) -> int | None:
        return self._live.show_id

    @property
    def has_strip(self) -> bool:
        """Whether an LED strip is fitted (the page then draws it)."""
        return self._fitted.rig.strip is not None

    def show_time(self) -> float:
        """Show seconds now."""
        return self._live.time.now()

    def snapshot(self) -> dict:
        """The latest published state of the table."""
        return self._publisher.snapshot()

    def current(self) -> dict:
        """The show as it is now: the latest snapshot, its running glasses drained to this instant."""
        return carried(self.snapshot(), self.show_time())

    def wait_for_change(self, after_seq: int, timeout: float) -> dict:
        """The snapshot as soon as its seq is past `after_seq`, or the current one after `timeout` s."""
        return self._publisher.wait_for_change(after_seq, timeout)

    def write_to(self, writer) -> None:
        """Have `writer(seq, text)` called, holding the runtime, with each new state's text as it is published."""
        self._publisher.write_to(writer)

    def snapshot_text(self, snapshot: dict) -> str:
        """A published snapshot as compact JSON for the live feed, as of now: serialised once for all phones."""
        return self._publisher.text(snapshot, self.show_time())

    def strip_picture(self, after: int, timeout: float) -> dict | None:
        """What the LED strip shows, as soon as it is newer than picture `after` (None: no strip is drawn)."""
        leds = self._fitted.rig.leds
        return None if leds is None else leds.picture(after, timeout)

    def ring_on_picture(self, bell) -> Callable[[], None]:
        """Set `bell` (a threading.Event) whenever the strip shows something new, and when its LED show ends
        (new settings: another strip, or none); at once if no strip is drawn. Returns the call that stops it."""
        leds = self._fitted.rig.leds
        if leds is None:
            bell.set()
            return lambda: None
        return leds.ring_on_picture(bell)
