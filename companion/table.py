"""The running table: sensors in, the rules core in the middle, a durable record out.

One runtime thread owns the show (companion.runtime). It wakes for each raw
edge and command, and at the next deadline (a debounce settling, a glass
running low or out, the start window closing), and catches up: edges become
poses, poses and flips become journal lines and show inputs, and every change
is published as a snapshot to the web, the LEDs and the buzzer.

Show time is the monotonic clock since the start, times `speed` (the demo
runs faster). Every input is journaled exactly as it was applied, so a replay
of the journal is the live show, and a restart after a crash resumes it. The
lines of one step are written just after its snapshot is published: phones
do not wait for the disk, and a crash loses at most the lines in flight.
"""

import logging
import math
import secrets
import threading
from dataclasses import dataclass

from companion.clock import SystemClock
from companion.config import Config, demo_config, set_duration
from companion.errors import BadInput, Conflict
from companion.games import GameShelf
from companion.hardware.buttons import ButtonAction
from companion.hardware.pins import RawEdge, mock_pin_factory
from companion.hardware.tilt import FaultChange, PoseChange
from companion.rig import Rig
from companion.runtime import Runtime
from companion.skyrockets import COLOURS, Pose, Setup, Show, parse_event, replay, setup_line
from companion.skyrockets.colours import check_colour
from companion.skyrockets.snapshot import carried
from companion.skyrockets.log import LogError, apply_line
from companion.store import MAX_PLAYERS, Store, iso

log = logging.getLogger(__name__)

SEQ_PER_BOOT = 10**9


@dataclass
class Cradle:
    """What the runtime knows about a physical glass that the rules do not: its sensors.

    `swapped` maps the cradle's ends onto the model's bulbs (None until an
    upright reading settles it: the end that is up then holds the fuller bulb).
    """

    physical: Pose | None = None
    swapped: bool | None = None
    sensor_fault: str | None = None
    stuck: str | None = None
    turn_due: float | None = None  # monotonic instant by which a run-out glass must be seen turned
    changed_while_down: bool = False

    @property
    def fault(self) -> str | None:
        return self.sensor_fault or self.stuck

    def to_model(self, pose: Pose) -> Pose:
        return pose.turned if self.swapped else pose


class Table:
    """A game table: its config, its hardware, its records, and the show in progress."""

    def __init__(self, config: Config, store: Store, pin_factory, *, clock=None, speed: float = 1.0,
                 pin: str | None = None):
        if not 0.1 <= speed <= 100:
            raise BadInput("speed", f"{speed:g} is out of range (0.1-100)")
        self.config = config
        self.store = store
        self.games = GameShelf(store.path)  # the board games' records, beside the shows
        self.clock = clock or SystemClock()
        self.pin = pin or config.web.pin or f"{secrets.randbelow(10**4):04d}"
        self.has_strip = config.strip.enabled  # the pages ask the table, never its config
        self.listening = (config.web.host, config.web.port)  # where the web answers; the server's start sets it
        self.table_speed = speed
        self.speed = speed
        self.show: Show | None = None
        self.show_id: int | None = None
        self._changed = threading.Condition()
        self._boot = store.next_boot()
        self._published = 0
        self._snapshot: dict = {}
        self._dirty = False
        self._unsaved: list[dict] = []
        self._finished = False
        self._t_base, self._mono_base = 0.0, self.clock.monotonic()
        self._settled = self._fired = -math.inf
        self._window_until: float | None = None
        self._started_wall = 0.0
        self.runtime = Runtime(self.clock, self._take, self._settle_and_publish, self._next_due)
        self.rig = Rig(config, pin_factory, self.runtime.put, self.clock.monotonic)
        self.cradles = {colour: Cradle(physical=pair.pose) for colour, pair in self.rig.tilts.items()}
        self._frames = _FrameTap(self.rig.strip)
        if self.rig.strip is not None:
            from companion.hardware.ledshow import LedShow

            self.rig.leds = LedShow(self.rig.strip, self.rig.layout, self.show_time)
        self._recover()
        self._publish()
        self._save_journal()

    # ---- the runtime thread -------------------------------------------

    def start(self) -> "Table":
        """Run the runtime thread (and the LED thread) until stop()."""
        if self.rig.leds is not None:
            self.rig.leds.start()
        self.runtime.start()
        return self

    def stop(self) -> None:
        self.runtime.stop()
        self.rig.close()
        self.store.close()
        self.games.close()

    def pump(self) -> None:
        """Take everything queued and settle everything due by now (tests call this; the thread does)."""
        self.runtime.pump()

    def alive(self, timeout: float = 5.0) -> bool:
        return self.runtime.alive(timeout)

    def _next_due(self) -> float | None:
        """The next monotonic instant at which something is due, if any."""
        due = [pair.next_due() for pair in self.rig.tilts.values()]
        due += [button.next_due() for button in self.rig.buttons.values()]
        if self._running:
            show_due = self.show.next_due()
            due += [None if show_due is None else self._to_mono(show_due), self._window_until]
            due += [c.turn_due for c in self.cradles.values()]
        due = [d for d in due if d is not None]
        return min(due) if due else None

    def _settle_and_publish(self, now: float) -> None:
        self._settle(now)
        if self._dirty:
            self._publish()
        self._save_journal()

    def _take(self, edge: RawEdge) -> None:
        logic = self.rig.input_logic(edge.device)
        if edge.device in self.rig.tilts:
            logic.edge(edge.switch, edge.closed, edge.t)
        else:
            logic.edge(edge.closed, edge.t)

    def _settle(self, now: float) -> None:
        changes = [c for logic in (*self.rig.tilts.values(), *self.rig.buttons.values()) for c in logic.update(now)]
        for change in sorted(changes, key=lambda c: c.t):
            if isinstance(change, PoseChange):
                self._on_pose(change)
            elif isinstance(change, FaultChange):
                self._on_sensor_fault(change)
            elif isinstance(change, ButtonAction):
                self._on_button(change)
        if self._window_until is not None and now >= self._window_until:
            self._close_start_window()
        for colour, cradle in self.cradles.items():
            if cradle.turn_due is not None and now >= cradle.turn_due and self._running:
                cradle.turn_due = None
                cradle.stuck = "ran out, but its sensors never saw it turned: stuck or unplugged?"
                self._dirty = True
        if self._running:
            t = self._to_show(now)
            if t > self._settled:
                self.show.advance(t)
                self._settled = t
                self._after_change()

    # ---- time -------------------------------------------------------------

    @property
    def _running(self) -> bool:
        return self.show is not None and self.show.outcome == "running"

    def show_time(self) -> float:
        """Show seconds now."""
        return self._to_show(self.clock.monotonic())

    def _to_show(self, mono: float) -> float:
        return self._t_base + (mono - self._mono_base) * self.speed

    def _to_mono(self, t: float) -> float:
        return self._mono_base + (t - self._t_base) / self.speed

    # ---- inputs into the show -----------------------------------------

    def _input(self, mono: float | None, kind: str, colour: str, pose: Pose | None = None) -> None:
        """Apply one line and keep it for the journal: a replay of the journal is the live show."""
        t = max(self.show.now, self.show_time() if mono is None else self._to_show(mono))
        if t <= self._fired:  # something already happened at this instant: an input now comes just after it
            t = math.nextafter(self._fired, math.inf)
        line = {"t": t, "type": kind, "timer": colour}
        if pose is not None:
            line["pose"] = pose.value
        apply_line(self.show, line)
        self._unsaved.append(line)
        self._dirty = True
        self._after_change()

    def _after_change(self) -> None:
        for notice in self.show.drain_notices():
            self._dirty = True
            if notice["kind"] in ("low_sand", "empty", "runout"):
                self._fired = max(self._fired, notice["t"])
            cradle = self.cradles.get(notice["timer"])
            if notice["kind"] == "runout" and cradle is not None and self.show.outcome == "running":
                cradle.turn_due = self.clock.monotonic() + self.config.tilt.stuck_after_s
            self.rig.buzzer.notice(notice)
        if self.show.outcome != "running" and not self._finished:
            self._finish(self.show.outcome, self.show.ended_at)

    def _save_journal(self) -> None:
        if self._unsaved:
            lines, self._unsaved = self._unsaved, []
            self.store.append(self.show_id, lines)

    def _finish(self, outcome: str, t: float) -> None:
        self._save_journal()
        self._finished = True
        self._window_until = None
        for cradle in self.cradles.values():
            cradle.turn_due = None
        self.store.finish_show(self.show_id, {"t": t, "type": "end"}, outcome, self.show.stars, self.clock.wall())
        self._dirty = True

    def _on_pose(self, change: PoseChange) -> None:
        cradle = self.cradles[change.name]
        cradle.physical = change.pose
        self._dirty = self._dirty or not self._running  # the setup check follows the glasses between shows
        if not self._running or self.show.timers[change.name].glass is None:
            return
        if cradle.turn_due is not None or cradle.stuck:
            cradle.turn_due, cradle.stuck = None, None
            self._dirty = True
        if cradle.sensor_fault:
            return  # a faulty pair is not believed; the page's manual flips stand in for it
        if self._window_until is not None:
            if change.name in self.show.event.running and change.pose.upright:
                self._orient(change.name, swapped=change.pose is Pose.B_UP)  # turned to start: sand on top
            return
        self._follow_sensor(change.name, change.t)

    def _follow_sensor(self, colour: str, mono: float | None) -> bool:
        """Bring the model to the pose the sensors read; True if it had to move."""
        cradle, glass = self.cradles[colour], self.show.timers[colour].glass
        if cradle.physical is None:
            return False
        if cradle.swapped is None and cradle.physical.upright:
            fuller_up = Pose.A_UP if glass.sand_in_a(self.show.now) >= glass.duration / 2 else Pose.B_UP
            self._orient(colour, swapped=cradle.physical is not fuller_up)
        pose = cradle.to_model(cradle.physical)
        if pose is glass.pose:
            return False
        self._input(mono, "pose", colour, pose)
        return True

    def _orient(self, colour: str, swapped: bool) -> None:
        self.cradles[colour].swapped = swapped
        self._save_orientation()

    def _save_orientation(self) -> None:
        """Which way round each cradle holds its glass, kept so a restart reads the sensors right."""
        if self.cradles:
            self.store.set_orientation(self.show_id, {c: k.swapped for c, k in self.cradles.items()})

    def _close_start_window(self) -> None:
        """Glasses turned in the first seconds were the start; from now on every turn counts."""
        mono, self._window_until = self._window_until, None
        for colour, cradle in self.cradles.items():
            if self.show.timers[colour].glass is not None and not cradle.sensor_fault:
                self._follow_sensor(colour, mono)

    def _on_sensor_fault(self, change: FaultChange) -> None:
        cradle = self.cradles[change.name]
        cradle.sensor_fault = change.fault
        self._dirty = True
        if change.fault is None and self._running and self.show.timers[change.name].glass is not None:
            self._follow_sensor(change.name, change.t)

    def _on_button(self, action: ButtonAction) -> None:
        if not self._running or self.show.timers[action.name].glass is None:
            return
        glass = self.show.timers[action.name].glass
        if action.action == "lay" and glass.pose.upright:
            self._input(action.t, "pose", action.name, Pose.SIDE)
        else:
            self._input(action.t, "flip", action.name)

    # ---- commands (thread-safe; run on the runtime thread) -------------

    def start_show(self, event, challenge: bool = False) -> dict:
        """Start a show of `event` (an id, or an inline event object, which is saved for next time)."""
        return self.runtime.submit(self._start_show, event, challenge)

    def flip(self, colour: str) -> dict:
        """Flip a timer from the page: an emulated one, or a physical one whose sensors are faulty."""
        return self.runtime.submit(self._flip, colour)

    def abort(self) -> dict:
        """Stop the running show (recorded as aborted), or dismiss a finished one."""
        return self.runtime.submit(self._abort)

    def set_muted(self, muted: bool) -> dict:
        if not isinstance(muted, bool):
            raise BadInput("muted", f"expected true or false, got {muted!r}")
        return self.runtime.submit(self._set_muted, muted)

    def calibrate(self, colour: str, seconds: float) -> dict:
        """Store a glass's measured duration (used from the next show on)."""
        return self.runtime.submit(self._calibrate, colour, seconds)

    def set_players(self, names: list) -> dict:
        """The players in clockwise order from the next start player."""
        names = _check_players(names)
        self.store.set_players(names)
        return self.store.scorepad()

    def _start_show(self, event, challenge) -> dict:
        if self._running:
            raise Conflict("show", "a show is already running: abort it first")
        if not isinstance(challenge, bool):
            raise BadInput("challenge", f"expected true or false, got {challenge!r}")
        chosen = parse_event(event, "event", self.store.events())
        physical = any(self.config.timers[c].source != "emulated" for c in COLOURS if chosen.in_play(c))
        setup = Setup(chosen, challenge, durations=self.config.durations(), nominal=self.config.nominal,
                      warn_lead_s=self.config.warn_lead_s,
                      runout_grace_s=self.config.runout_grace_s if physical else 0.0,
                      advance_tolerance_s=self.config.advance_tolerance_s if physical else 0.0)
        setup.played_event  # no challenge for a purple countdown: refused before anything is written
        wall = self.clock.wall()
        if isinstance(event, dict):
            self.store.save_event(chosen, wall)
        self.show, self._finished, self.speed = Show(setup), False, self.table_speed
        self._t_base, self._mono_base = 0.0, self.clock.monotonic()
        self._settled = self._fired = -math.inf
        self._started_wall = wall
        self.show_id = self.store.begin_show(chosen, challenge, setup_line(setup), wall, self.speed)
        for colour, cradle in self.cradles.items():
            cradle.swapped = cradle.stuck = cradle.turn_due = None
            cradle.changed_while_down = False
            if colour in self.show.event.running and cradle.physical is not None and cradle.physical.upright:
                cradle.swapped = cradle.physical is Pose.B_UP  # already turned: the end up holds the sand
        self._save_orientation()
        in_play_tilts = [c for c in self.cradles if self.show.timers[c].glass is not None]
        self._window_until = self._mono_base + self.config.tilt.start_window_s if in_play_tilts else None
        self._dirty = True
        return self._snapshot_now()

    def _flip(self, colour) -> dict:
        colour = check_colour(colour, "timer")
        if not self._running:
            raise Conflict("timer", "no show is running")
        if self.show.timers[colour].glass is None:
            raise Conflict("timer", f"{colour} is not in play in this event")
        cradle = self.cradles.get(colour)
        if cradle is not None and not cradle.fault:
            raise Conflict("timer", f"{colour} is read by its tilt sensors: turn the glass itself")
        self._input(None, "flip", colour)
        return self._snapshot_now()

    def _abort(self) -> dict:
        if self._running:
            self._finish("aborted", max(self.show.now, self.show_time()))
        self.show = self.show_id = None
        self._dirty = True
        return self._snapshot_now()

    def _set_muted(self, muted: bool) -> dict:
        self.rig.buzzer.muted = muted
        self._dirty = True
        return self._snapshot_now()

    def _calibrate(self, colour, seconds) -> dict:
        self.config = set_duration(self.config, colour, seconds)
        return {"timer": colour, "duration": self.config.timers[colour].duration}

    # ---- recovery ---------------------------------------------------------

    def _recover(self) -> None:
        """Resume the show that was running when the daemon died, as the journal and the physics say."""
        row = self.store.unfinished_show()
        if row is None:
            return
        try:
            show = replay(row["lines"], self.store.events())
        except LogError as e:
            log.error("show %s cannot be resumed (journal %s); recorded as aborted", row["id"], e)
            self.store.finish_show(row["id"], {"t": 0, "type": "end"}, "aborted", 0, self.clock.wall())
            return
        self.show, self.show_id, self.speed, self._finished = show, row["id"], row["speed"], False
        self._started_wall = row["started_wall"]
        # Time ran on while the table was down; a wall clock set back (a Pi without a
        # real-time clock) must not rewind the show, so never resume before the last line.
        resume = max(show.now, (self.clock.wall() - row["started_wall"]) * self.speed)
        self._t_base, self._mono_base = resume, self.clock.monotonic()
        show.advance(resume)
        self._settled = resume
        self._after_change()
        for colour, cradle in self.cradles.items():
            cradle.swapped = row["orientation"].get(colour)
            if self._running and show.timers[colour].glass is not None:
                cradle.changed_while_down = self._follow_sensor(colour, None)
        log.info("resumed show %s at %.1f s", self.show_id, resume)
        self._dirty = True

    # ---- what the table looks like --------------------------------------

    def _snapshot_now(self) -> dict:
        self.pump()
        return self._snapshot

    def _publish(self) -> None:
        self._dirty = False
        self._published += 1
        snapshot = self._describe()
        snapshot["seq"] = self._boot * SEQ_PER_BOOT + self._published
        with self._changed:
            self._snapshot = snapshot
            self._changed.notify_all()
        if self.rig.leds is not None:
            self.rig.leds.update(snapshot)

    def _describe(self) -> dict:
        extras = {"speed": self.speed, "muted": self.rig.buzzer.muted, "sensors": self._sensors()}
        if self.show is None:
            return {"outcome": "idle", "warn_lead_s": self.config.warn_lead_s, **extras}
        show, setup = self.show, self.show.setup
        state = show.result()
        state.update(id=self.show_id, event=setup.event.to_json(), challenge=setup.challenge,
                     started=iso(self._started_wall), warn_lead_s=setup.warn_lead_s,
                     runout_grace_s=setup.runout_grace_s, advance_tolerance_s=setup.advance_tolerance_s, **extras)
        for colour, timer in state["timers"].items():
            cradle = self.cradles.get(colour, Cradle())
            timer.update(duration=setup.duration(colour), role=show.timers[colour].role,
                         source=self.config.timers[colour].source, fault=cradle.fault,
                         awaiting_turn=cradle.turn_due is not None or cradle.stuck is not None,
                         changed_while_down=cradle.changed_while_down)
        return state

    def _sensors(self) -> dict:
        """What each glass's sensors read before a show, for the page's setup check."""
        sensors = {}
        for colour in COLOURS:
            cradle = self.cradles.get(colour, Cradle())
            pose = cradle.physical.value if cradle.physical else None
            sensors[colour] = {"source": self.config.timers[colour].source, "pose": pose, "fault": cradle.fault}
        return sensors

    def snapshot(self) -> dict:
        """The latest published state of the table."""
        with self._changed:
            return self._snapshot

    def current(self) -> dict:
        """The show as it is now: the latest snapshot, its running glasses drained to this instant."""
        return carried(self.snapshot(), self.show_time())

    def wait_for_change(self, after_seq: int, timeout: float) -> dict:
        """The snapshot as soon as its seq is past `after_seq`, or the current one after `timeout` s."""
        with self._changed:
            self._changed.wait_for(lambda: self._snapshot["seq"] > after_seq, timeout)
            return self._snapshot

    # ---- records (what the web and the bridges read; they never reach into the store) ----

    def scorepad(self) -> dict:
        """Per event: best stars, attempts, last played; and the start-player rotation."""
        return self.store.scorepad()

    def shows(self) -> list[dict]:
        """Past shows, newest first: id, event, outcome, stars, started."""
        return self.store.shows()

    def show_record(self, show_id: int) -> dict | None:
        """One past show's row, or None."""
        return self.store.show(show_id)

    def show_log(self, show_id: int) -> list[dict] | None:
        """One show's journal as a show log, or None."""
        return self.store.show_log(show_id)

    def events(self) -> list[dict]:
        return [dict(e.to_json(), builtin=e.builtin) for e in self.store.events().values()]

    def strip_frame(self, after: int, timeout: float) -> dict | None:
        """The LED strip as last drawn, as soon as a frame newer than `after` exists (None: no strip)."""
        return self._frames.wait(after, timeout, self.rig)


class _FrameTap:
    """Keeps the newest frame a fake strip showed, for the page that draws the strip on screen."""

    def __init__(self, strip):
        self._cond = threading.Condition()
        self._n, self._pixels = 0, []
        if strip is not None and hasattr(strip, "subscribe"):
            strip.subscribe(self._frame)
        self.enabled = strip is not None and hasattr(strip, "subscribe")

    def _frame(self, frame) -> None:
        with self._cond:
            self._n += 1
            self._pixels = frame
            self._cond.notify_all()

    def wait(self, after: int, timeout: float, rig) -> dict | None:
        if not self.enabled:
            return None
        with self._cond:
            self._cond.wait_for(lambda: self._n > after, timeout)
            pixels = ["#%02x%02x%02x" % tuple(p[:3]) for p in self._pixels]
            layout = rig.layout
            return {"n": self._n, "pixels": pixels,
                    "layout": {"segment_len": layout.segment_len, "colours": list(layout.colours),
                               "countdown_leds": layout.countdown_leds, "token_leds": layout.token_leds}}


def _check_players(names) -> list[str]:
    if not isinstance(names, list) or not 1 <= len(names) <= MAX_PLAYERS:
        raise BadInput("players", f"expected a list of 1 to {MAX_PLAYERS} names")
    cleaned = []
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > 40:
            raise BadInput(f"players[{i}]", "expected a name of 1 to 40 characters")
        if name.strip() in cleaned:
            raise BadInput(f"players[{i}]", f"{name.strip()!r} is listed twice")
        cleaned.append(name.strip())
    return cleaned


def demo_table(db_path, *, speed: float = 1.0, pin: str | None = "1234", clock=None) -> Table:
    """The embedded default table: mock pins, six emulated timers, a fake strip, a buzzer."""
    return Table(demo_config(db_path), Store(db_path), mock_pin_factory(), clock=clock, speed=speed, pin=pin)

