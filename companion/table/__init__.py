"""The running table: sensors in, the rules core in the middle, a durable record out.

One runtime thread owns the show (runtime.py). It wakes for each raw item
and command, and at the next deadline (a debounce settling, a glass running
low or out, the start window closing), and catches up: the rig's sources
turn raw items into changes, changes become journal lines and show inputs,
and every change is published as a snapshot to the web, the LEDs and the
buzzer. The parts: the show in progress and its time base (show.py,
timebase.py), the physical glasses (cradles.py), the journal (journal.py)
and recovery (recovery.py), the publisher (publisher.py), the hardware
(rig.py). `Table` is the commands, and the wiring between the parts.
"""

import logging
import secrets

from companion.clock import MAX_SPEED, MIN_SPEED, SystemClock
from companion.config import Config, demo_config, set_duration
from companion.errors import BadInput, Conflict
from companion.hardware.debounce import earliest
from companion.hardware.mock import mock_pin_factory
from companion.players import MAX_PLAYERS, check_players
from companion.records import GameShelf, Store
from companion.skyrockets import Pose, Show, parse_event, setup_line
from companion.skyrockets.beams import beam_durations
from companion.skyrockets.colours import check_colour, directions_json
from companion.table.games import KINDS, TableGames
from companion.table.inputs import take_change
from companion.table.journal import Journal
from companion.table.memory import few_arenas
from companion.table.publisher import Publisher, describe
from companion.table.records import Records
from companion.table.recovery import resume
from companion.table.firstrun import FirstRun
from companion.table.runtime import Runtime
from companion.table.setting import TableSetting
from companion.table.setup import show_setup
from companion.table.show import LiveShow

log = logging.getLogger(__name__)

PIN_DIGITS = 6  # a drawn PIN: 4 digits fall to a patient guesser in days, 6 in years (docs/security.md)
DURABLE_WAIT_S = 2.0  # how long a change from a phone waits for its line to be on disk


class Table(Records, TableGames, TableSetting):
    """A game table: its config, its hardware, its records, and the show in progress."""

    def __init__(self, config: Config, store: Store, pin_factory, *, clock=None, speed: float = 1.0,
                 pin: str | None = None):
        if not MIN_SPEED <= speed <= MAX_SPEED:
            raise BadInput("speed", f"{speed:g} is out of range ({MIN_SPEED:g}-{MAX_SPEED:g})",
                           code="errors.range", params={"low": MIN_SPEED, "high": MAX_SPEED})
        few_arenas()  # before any thread: the web's many threads must not each keep a malloc arena
        self.config, self.store, self.clock = config, store, clock or SystemClock()
        self.pin = pin or config.web.pin or f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"
        self.allowed_hosts = config.web.allowed_hosts  # names the web answers to besides the machine's own
        self.table_speed = speed
        self.listening = (config.web.host, config.web.port)  # where the web answers; the server's start sets it
        self._dirty = False
        self._journal_problem = None
        # The parts, each built from the ones before it ...
        self._games = GameShelf(store.database, KINDS)  # the board games' records, beside the shows
        self.runtime = Runtime(self.clock)
        self.journal = Journal(store, on_problem=self.runtime.poke)
        turned_by_table = {c for c, t in config.timers.items() if t.source == "emulated"}  # LED glasses have no hands
        self.live = LiveShow(self.clock, self.journal, speed, on_notice=self._notice, on_end=self._ended,
                             changed=self._touch, turned_by_table=turned_by_table)
        self.publisher = Publisher(store.next_boot())
        self.rig = self._open_rig(config, pin_factory)
        self._build_on_rig(config)  # the cradles, the strip's frame tap (rebuilt when the settings change)
        self.first_run = FirstRun(config.set_up or config.path is None, path=config.path)
        self.reconfigured = []  # listener(old config, new config), called after new settings are applied
        # ... then connected.
        self.runtime.drive(self._take, self._settle_and_publish, self._next_due)
        self.publisher.listen(self._draw_leds)
        resumed = resume(store, self.clock.wall())
        if resumed is not None:
            self.live.begin(resumed.show, resumed.show_id, resumed.t, resumed.speed, resumed.started_wall)
            self.live.resumed_at(resumed.t)
            self.cradles.resume(self.show, resumed.orientation, self.live.input)
        self._publish()
        self.journal.flush()

    # ---- the runtime thread -------------------------------------------------

    def start(self) -> "Table":
        """Run the runtime thread, the journal's writer (and the LED thread) until stop()."""
        self._started = True
        if self.rig.leds is not None:
            self.rig.leds.start()
        self.journal.start()
        self.runtime.start()
        return self

    def stop(self) -> None:
        self.runtime.stop()
        self.journal.stop()
        self.rig.close()
        self._games.close()
        self.store.close()

    def pump(self) -> None:
        """Take everything queued and settle everything due by now (tests call this; the thread does)."""
        self.runtime.pump()

    def alive(self, timeout: float = 5.0) -> bool:
        return self.runtime.alive(timeout)

    def _next_due(self) -> float | None:
        """The next monotonic instant at which something is due, if any."""
        return earliest(self.rig.next_due(), *(self.cradles.due() if self.live.running else ()), self.live.next_due())

    def _settle_and_publish(self, now: float) -> None:
        for change in self.rig.update(now):
            take_change(change, self.live, self.cradles)
            self._time_change(change)
        if self.live.running:
            self.cradles.settle(self.show, now, self.live.input, self._remind)
        self.live.advance(now)
        if self.journal.problem != self._journal_problem:
            self._journal_problem, self._dirty = self.journal.problem, True
        if self._dirty:
            self._publish()
        # After publishing: the journal's writer, woken now, does not compete with the writes to the phones.
        self.journal.flush()

    def _notice(self, notice: dict) -> None:
        if notice["kind"] == "runout" and self.show.outcome == "running":
            self.cradles.ran_out(notice["timer"], self.clock.monotonic())
        self.rig.buzzer.notice(notice)

    def _remind(self, colour: str) -> None:
        self.rig.buzzer.notice({"kind": "turn_reminder", "timer": colour, "t": self.show.now})

    def _ended(self) -> None:
        self.cradles.end()
        for colour, (a_up, b_up) in beam_durations(self.show.setup, self.show.beam_runs).items():
            cradle = self.cradles.get(colour)
            ends = (b_up, a_up) if cradle is not None and cradle.swapped else (a_up, b_up)  # model bulbs -> cradle ends
            try:  # the neck beams timed these glasses: they need no calibration by hand
                self.config = set_duration(self.config, colour, ends)
            except BadInput as e:
                log.warning("could not keep the beam-timed duration of %s: %s", colour, e)

    def _touch(self) -> None:
        self._dirty = True

    def show_time(self) -> float:
        """Show seconds now."""
        return self.live.time.now()

    # ---- commands (thread-safe; run on the runtime thread) -------------------

    def start_show(self, event, challenge: bool = False) -> dict:
        """Start a show of `event` (an id, or an inline event object, which is saved for next time)."""
        return self._durably(self._start_show, event, challenge)

    def flip(self, colour: str) -> dict:
        """Flip a timer from the page: an emulated one, or a physical one whose sensors are faulty."""
        return self._durably(self._flip, colour)

    def lay(self, colour: str) -> dict:
        """Lay a timer on its side from the page, as a long press on its button does."""
        return self._durably(self._flip, colour, Pose.SIDE)

    def abort(self) -> dict:
        """Stop the running show (recorded as aborted), or dismiss a finished one."""
        return self._durably(self._abort)

    def _durably(self, command, *args) -> dict:
        """Run a command and answer once its journal lines are written (or say they are still pending)."""
        snapshot = self.runtime.submit(command, *args)
        if self.journal.wait_for(self.journal.mark(), DURABLE_WAIT_S):
            return snapshot
        return dict(snapshot, saved=False)  # applied, and kept for the writer to retry: never a 500

    def set_muted(self, muted: bool) -> dict:
        if not isinstance(muted, bool):
            raise BadInput("muted", f"expected true or false, got {muted!r}", code="errors.yes_no")
        return self.runtime.submit(self._set_muted, muted)

    def calibrate(self, colour: str, seconds: float) -> dict:
        """Store a glass's measured duration (used from the next show on)."""
        return self.runtime.submit(self._calibrate, colour, seconds)

    def set_players(self, names: list) -> dict:
        """The players in clockwise order from the next start player."""
        self.store.set_players(check_players(names))
        return self.store.scorepad()

    def _start_show(self, event, challenge) -> dict:
        if self.live.running:
            raise Conflict("show", "a show is already running: abort it first", code="errors.show.running")
        if not isinstance(challenge, bool):
            raise BadInput("challenge", f"expected true or false, got {challenge!r}", code="errors.yes_no")
        chosen = parse_event(event, "event", self.store.events())
        played = chosen.challenged() if challenge else chosen  # no challenge for a purple countdown: refused here
        setup = show_setup(self.config, chosen, challenge, self.cradles.orientation_at_start(played))
        wall = self.clock.wall()
        if isinstance(event, dict):
            self.store.save_event(chosen, wall)
        show_id = self.store.begin_show(chosen, challenge, setup_line(setup), wall, self.table_speed)
        self.live.begin(Show(setup), show_id, 0.0, self.table_speed, wall)
        self.cradles.begin(self.show, self.clock.monotonic())
        return self._snapshot_now()

    def _flip(self, colour, pose: Pose | None = None) -> dict:
        colour = check_colour(colour, "timer")
        if not self.live.running:
            raise Conflict("timer", "no show is running", code="errors.show.none")
        if self.show.timers[colour].glass is None:
            raise Conflict("timer", f"{colour} is not in play in this event",
                           code="errors.show.not_in_play", params={"colour": colour})
        cradle = self.cradles.get(colour)
        if cradle is not None and not cradle.fault:
            raise Conflict("timer", f"{colour} is read by its tilt sensors: turn the glass itself",
                           code="errors.show.sensed", params={"colour": colour})
        if pose is not None and not self.show.timers[colour].glass.pose.upright:
            raise Conflict("timer", f"{colour} is already lying on its side",
                           code="errors.show.lying", params={"colour": colour})
        if not self.live.input(None, "flip" if pose is None else "pose", colour, pose):
            raise Conflict("timer", f"the show ended at {self.show.ended_at:.1f} s, before this flip",
                           code="errors.show.ended")
        return self._snapshot_now()

    def _abort(self) -> dict:
        if self.live.running:
            self.live.finish("aborted", max(self.show.now, self.show_time()))
        self.live.begin(None, None, 0.0, self.table_speed, 0.0)
        return self._snapshot_now()

    def _set_muted(self, muted: bool) -> dict:
        self.rig.buzzer.muted = muted
        self._dirty = True
        return self._snapshot_now()

    def _calibrate(self, colour, seconds) -> dict:
        self.config = set_duration(self.config, colour, seconds)
        return {"timer": colour, "duration": directions_json(self.config.timers[colour].directions)}

    # ---- what the table looks like ----------------------------------------------

    def _snapshot_now(self) -> dict:
        self.pump()
        return self.publisher.snapshot()

    def _publish(self) -> None:
        self._dirty = False
        sources = {c: t.source for c, t in self.config.timers.items()}
        extras = {"speed": self.live.time.speed, "muted": self.rig.buzzer.muted,
                  "journal_problem": self._journal_problem, "sensors": self.cradles.readings(sources)}
        self.publisher.publish(describe(self.show, self.show_id, self.live.started_wall, self.cradles, sources,
                                        extras, self.config.warn_lead_s))


def demo_table(db_path, *, speed: float = 1.0, pin: str | None = "1234", clock=None) -> Table:
    """The embedded default table: mock pins, six emulated timers, a fake strip, a buzzer."""
    return Table(demo_config(db_path), Store(db_path), mock_pin_factory(), clock=clock, speed=speed, pin=pin)


__all__ = ["MAX_PLAYERS", "Table", "demo_table", "show_setup"]
