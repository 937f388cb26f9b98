"""A Skyrockets show: hourglasses, the countdown track and the crowd tokens, over time.

The show is fed inputs (a glass seen in a new pose, a glass flipped) at show
times that never go backwards, and is asked for its state at a time. Between
inputs things happen on their own at computed instants (a glass running low,
running empty, running out); `next_due()` says when the next one is, so a
runtime can sleep until then instead of polling.

>>> show = Show(Setup(TRAINING))
>>> show.next_due()                       # red's low-sand warning (30 s glass, 10 s lead)
20.0
>>> show.advance(30.0); show.crowd_tokens_turned, show.result()["timers"]["red"]["state"]
(1, 'empty')

Instants: an input at time t is applied before anything due at exactly t, so
turning a glass at the very instant it would run out saves it.

A run-out never turns the glass: the crowd token pays for it and the glass
stays empty, unable to run out again, until an input turns it (the players
turn a real glass a moment later, and the model must run from that moment).
"""

from bisect import insort
from dataclasses import dataclass, field
from typing import Mapping

from companion.skyrockets.beams import emptied_by_beam, full_run_s
from companion.skyrockets.colours import COLOURS, NOMINAL_S, check_seconds
from companion.skyrockets.events import TRAINING, Event
from companion.skyrockets.hourglass import SIDE, Hourglass, Pose

CROWD_TOKENS = 3
MAX_TOLERANCE_S = 60.0  # a grace or tolerance longer than a minute is a typo, not a table setting
MAX_WARN_LEAD_S = 600.0

# Order of things due at the same instant: a warning before the glass empties
# before it runs out; colours in table order after that.
_LOW, _EMPTY, _RUNOUT = 0, 1, 2
_KIND_NAMES = {_LOW: "low_sand", _EMPTY: "empty", _RUNOUT: "runout"}
_KINDS = {name: kind for kind, name in _KIND_NAMES.items()}
_POSES = {pose.value: pose for pose in Pose}  # a log's pose text to its Pose, without the Enum call
CHECKPOINT_VERSION = 1


@dataclass(frozen=True)
class Setup:
    """Everything a show starts from: the event and the table's measured data."""

    event: Event = TRAINING
    challenge: bool = False
    # Calibrated seconds per colour: one number, or (A up, B up); the nominal table fills the rest.
    durations: Mapping[str, float | tuple[float, float]] = field(default_factory=dict)
    runout_grace_s: float = 0.0
    advance_tolerance_s: float = 0.0
    warn_lead_s: float = 10.0
    nominal: Mapping[str, float] = field(default_factory=lambda: dict(NOMINAL_S))

    def __post_init__(self):
        check_seconds(self.runout_grace_s, "runout_grace_s", limit=MAX_TOLERANCE_S)
        check_seconds(self.advance_tolerance_s, "advance_tolerance_s", limit=MAX_TOLERANCE_S)
        check_seconds(self.warn_lead_s, "warn_lead_s", limit=MAX_WARN_LEAD_S)

    def directions(self, colour: str) -> tuple[float, float]:
        """The seconds `colour` runs standing A up and standing B up."""
        value = self.durations.get(colour, self.nominal[colour])
        a_up, b_up = value if isinstance(value, (tuple, list)) else (value, value)
        return float(a_up), float(b_up)

    def duration(self, colour: str) -> float:
        """The seconds `colour` runs standing A up (its only figure when both ways agree)."""
        return self.directions(colour)[0]

    def glass(self, colour: str, standing: bool) -> Hourglass:
        """`colour` as the event sets it out: standing with all sand on top, or lying, all sand in A."""
        a_up, b_up = self.directions(colour)
        make = Hourglass.standing if standing else Hourglass.lying
        return make(a_up, duration_b_up=None if b_up == a_up else b_up)

    @property
    def played_event(self) -> Event:
        """The event as played: challenge mode swaps the countdown timer."""
        return self.event.challenged() if self.challenge else self.event


class Timer:
    """One colour's glass in the show, with what the rules need to remember about it.

    The show keeps every glass's deadlines in order, so `glass`, `noted` and
    `spent` change only through the show, which then reschedules the glass.
    """

    __slots__ = ("colour", "role", "glass", "last_upright", "noted", "spent")

    def __init__(self, colour: str, role: str | None, glass: Hourglass | None):
        self.colour = colour
        self.role = role  # "countdown", "timer", or None when out of play
        self.glass = glass
        self.last_upright = glass.pose if glass and glass.pose is not SIDE else None
        self.noted: set[int] = set()  # things already due since the glass was last moved
        self.spent = False  # ran out and not turned since: it cannot run out again

    @property
    def in_play(self) -> bool:
        return self.glass is not None

    def move(self, glass: Hourglass) -> None:
        if glass.pose is not SIDE:
            if glass.pose is not self.last_upright:
                self.spent = False  # turned: the sand that paid the token is on top again
            self.last_upright = glass.pose
        self.glass = glass
        self.noted.clear()

    def state(self, t: float) -> str:
        if self.glass is None:
            return "out_of_play"
        if self.glass.pose is SIDE:
            return "lying"
        return "running" if _seconds(self.glass.top(t)) > 0 else "empty"  # as told: no sand shown is empty

    def due(self, grace: float, lead: float) -> list[tuple[float, int]]:
        """What this glass will do on its own, as (instant, kind)."""
        if self.spent or self.glass is None or self.glass.pose is SIDE:
            return []  # a spent glass cannot run out again; a lying one does not run
        empties = self.glass.empties_at()
        due = [(empties, _EMPTY)]
        if self.role == "timer":
            due.append((empties + grace, _RUNOUT))
            if lead > 0 and empties > self.glass.since:
                due.append((max(self.glass.since, empties - lead), _LOW))
        if not self.noted:  # a glass just moved has nothing noted: most lines of a chattering log
            return due
        return [(t, kind) for t, kind in due if kind not in self.noted]


class Show:
    """The live rules of one show. Time is always passed in, in show seconds."""

    def __init__(self, setup: Setup, *, notices: bool = True):
        self.setup = setup
        self.event = setup.played_event
        self.now = 0.0
        self.position = self.event.countdown_start
        self.crowd_tokens_turned = 0
        self.outcome = "running"
        self.ended_at: float | None = None
        self.runouts: list[dict] = []
        self.advances: list[dict] = []
        self.warnings: list[dict] = []
        self.beam_runs: list[dict] = []  # full runs timed by a neck beam: {"timer", "pose", "seconds"}
        # Notices are for lights, buzzer and pages; a replay that has none of them can do without.
        self._notices: list[dict] | None = [] if notices else None
        self.timers: dict[str, Timer] = {}
        for colour in COLOURS:
            if colour in self.event.running or colour in self.event.lying:
                glass = setup.glass(colour, standing=colour in self.event.running)
            else:
                glass = None
            role = None if glass is None else "countdown" if colour == self.event.countdown else "timer"
            self.timers[colour] = Timer(colour, role, glass)
        self._order = list(self.timers.values())  # a timer's index: its place in table order
        self._index = {colour: i for i, colour in enumerate(self.timers)}
        # Everything due, as (instant, kind, timer index), kept sorted: a timer's entries are
        # replaced whenever its glass, its `noted` or its `spent` changes, so a line costs a look
        # at the first entry instead of every glass's deadlines worked out and sorted again.
        self._due: list[tuple[float, int, int]] = []
        self._reschedule_all()

    # ---- inputs ---------------------------------------------------------

    def pose(self, t: float, colour: str, pose: Pose | str) -> None:
        """A sensor saw `colour` in `pose` from t on."""
        self._settle(t, inclusive=False)
        timer = self._playing(t, colour)
        if timer is not None:
            self._put(t, timer, _POSES.get(pose) or Pose(pose))

    def flip(self, t: float, colour: str) -> None:
        """`colour` was turned over at t (a lying glass: stood up with the fuller bulb on top)."""
        self._settle(t, inclusive=False)
        timer = self._playing(t, colour)
        if timer is not None:
            self._put(t, timer, timer.glass.flipped_pose(t))

    def _playing(self, t: float, colour: str) -> Timer | None:
        """The timer an input at t is about, or None when it changes nothing (a warning if out of play)."""
        if self.ended_at is not None:
            return None
        timer = self.timers[colour]
        if timer.glass is None:
            self._warn(t, colour, "not_in_play")
            return None
        return timer

    def _put(self, t: float, timer: Timer, pose: Pose) -> None:
        if pose is timer.glass.pose:
            return
        turned = pose is not SIDE and timer.last_upright is not None and pose is not timer.last_upright
        advanced = False
        if turned and timer.role == "countdown":
            if timer.glass.sand_under(timer.last_upright, t) <= self.setup.advance_tolerance_s:
                advanced = True
            else:
                self._warn(t, timer.colour, "countdown_turned_while_running")
        timer.move(timer.glass.posed(pose, t))
        self._reschedule(self._index[timer.colour])
        if advanced:
            self._advance(t)

    def beam(self, t: float, colour: str, flowing: bool) -> None:
        """The beam at `colour`'s neck saw the sand start (`flowing`) or stop at t: a stop empties the top.

        A stop outside the sanity window of companion/skyrockets/beams.py, or
        of a glass that is not upright, changes nothing.
        """
        self._settle(t, inclusive=False)
        timer = self.timers[colour]
        if self.ended_at is not None:
            return
        if not timer.in_play:
            self._warn(t, colour, "not_in_play")
            return
        if flowing:
            return
        emptied = emptied_by_beam(timer.glass, t)
        if emptied is None:
            return
        run = full_run_s(timer.glass, t)
        if run is not None:
            self.beam_runs.append({"timer": colour, "pose": timer.glass.pose.value, "seconds": round(run, 3)})
        timer.glass = emptied  # not a move: what already happened to this run stays noted
        self._reschedule(self._index[timer.colour])

    # ---- time -------------------------------------------------------------

    def advance(self, t: float) -> None:
        """Let time run to t, settling everything due up to and including t."""
        self._settle(t, inclusive=True)

    def next_due(self) -> float | None:
        """The next instant at which the show changes on its own, or None."""
        return self._due[0][0] if self._due else None

    def _reschedule_all(self) -> None:
        self._due = []
        for i in range(len(self._order)):
            self._reschedule(i)

    def _reschedule(self, i: int) -> None:
        """Replace timer `i`'s entries in the deadlines by what it is due to do now (nothing, once over)."""
        if self.ended_at is not None:
            return
        due = [entry for entry in self._due if entry[2] != i]
        for when, kind in self._order[i].due(self.setup.runout_grace_s, self.setup.warn_lead_s):
            insort(due, (when, kind, i))
        self._due = due

    def _settle(self, t: float, inclusive: bool) -> None:
        if t < self.now:
            raise ValueError(f"show time went backwards: {t} < {self.now}")
        while self._due:
            when, kind, i = self._due[0]
            if when > t or (when == t and not inclusive):
                break
            self._happen(when, kind, i)
        self.now = t

    def _happen(self, when: float, kind: int, i: int) -> None:
        timer = self._order[i]
        timer.noted.add(kind)
        del self._due[0]  # the entry just noted: the first, since things happen in order
        self._notify({"kind": _KIND_NAMES[kind], "timer": timer.colour, "t": when})
        if kind != _RUNOUT:
            return
        self.crowd_tokens_turned += 1
        self.runouts.append({"timer": timer.colour, "t": when})
        timer.spent = True  # the glass stays empty until someone (or, for an LED glass, the table) turns it
        self._reschedule(i)
        if self.crowd_tokens_turned >= CROWD_TOKENS:
            self._end(when, "loss")

    def _advance(self, t: float) -> None:
        self.position -= 1
        self.advances.append({"t": t, "position": self.position})
        self._notify({"kind": "advance", "timer": self.event.countdown, "t": t, "position": self.position})
        if self.position <= 0:
            self._end(t, "win")

    def _end(self, t: float, outcome: str) -> None:
        self.outcome = outcome
        self.ended_at = t
        self._due = []  # nothing happens after the end
        self._notify({"kind": outcome, "timer": None, "t": t})

    def _warn(self, t: float, colour: str, kind: str) -> None:
        warning = {"t": t, "timer": colour, "kind": kind}
        self.warnings.append(warning)
        self._notify({"kind": "warning", "timer": colour, "t": t, "warning": kind})

    def _notify(self, notice: dict) -> None:
        if self._notices is not None:
            self._notices.append(notice)

    # ---- checkpoints ------------------------------------------------------

    def checkpoint(self) -> dict:
        """The show's whole state as a JSON-able dict, so that `Show.restore` carries on exactly from here.

        The setup is not in it (a log's setup line holds it), nor are notices
        not yet drained (they are news for lights and pages, not state).

        >>> show = Show(Setup()); show.flip(12.0, "red")
        >>> again = Show.restore(Setup(), show.checkpoint())
        >>> again.advance(50.0); show.advance(50.0); again.result() == show.result()
        True
        """
        return {
            "version": CHECKPOINT_VERSION,
            "now": self.now,
            "position": self.position,
            "crowd_tokens_turned": self.crowd_tokens_turned,
            "outcome": self.outcome,
            "ended_at": self.ended_at,
            "runouts": [dict(r) for r in self.runouts],
            "advances": [dict(a) for a in self.advances],
            "warnings": [dict(w) for w in self.warnings],
            "beam_runs": [dict(b) for b in self.beam_runs],
            "timers": {colour: _timer_state(timer) for colour, timer in self.timers.items() if timer.in_play},
        }

    @classmethod
    def restore(cls, setup: Setup, state: dict, *, notices: bool = True) -> "Show":
        """The show `setup` started, as `checkpoint()` saved it (raises ValueError on a checkpoint it cannot read)."""
        if state.get("version") != CHECKPOINT_VERSION:
            raise ValueError(f"a show checkpoint of version {state.get('version')!r} "
                             f"(this table reads version {CHECKPOINT_VERSION})")
        show = cls(setup, notices=notices)
        show.now = float(state["now"])
        show.position = state["position"]
        show.crowd_tokens_turned = state["crowd_tokens_turned"]
        show.outcome = state["outcome"]
        show.ended_at = None if state["ended_at"] is None else float(state["ended_at"])
        show.runouts = [dict(r) for r in state["runouts"]]
        show.advances = [dict(a) for a in state["advances"]]
        show.warnings = [dict(w) for w in state["warnings"]]
        show.beam_runs = [dict(b) for b in state["beam_runs"]]
        if set(state["timers"]) != {c for c, timer in show.timers.items() if timer.in_play}:
            raise ValueError("the checkpoint's glasses are not the ones this setup puts in play")
        for colour, saved in state["timers"].items():
            timer = show.timers[colour]
            timer.glass = Hourglass(float(saved["duration"]), float(saved["a"]), Pose(saved["pose"]),
                                    float(saved["since"]),
                                    None if saved["duration_b_up"] is None else float(saved["duration_b_up"]))
            timer.last_upright = None if saved["last_upright"] is None else Pose(saved["last_upright"])
            timer.noted = {_KINDS[name] for name in saved["noted"]}
            timer.spent = saved["spent"]
        show._reschedule_all()
        return show

    # ---- questions --------------------------------------------------------

    @property
    def stars(self) -> int:
        return CROWD_TOKENS - self.crowd_tokens_turned if self.outcome == "win" else 0

    def drain_notices(self) -> list[dict]:
        """What happened since the last call (for lights, buzzer and pages)."""
        if self._notices is None:
            return []
        notices, self._notices = self._notices, []
        return notices

    def result(self) -> dict:
        """The replay result object (docs/formats.md) at the current time (or the end instant)."""
        t = self.now if self.ended_at is None else self.ended_at
        return {
            "outcome": self.outcome,
            "t": _seconds(t),
            "stars": self.stars,
            "countdown": {"timer": self.event.countdown, "position": self.position},
            "crowd_tokens_turned": self.crowd_tokens_turned,
            "runouts": [dict(r, t=_seconds(r["t"])) for r in self.runouts],
            "advances": [dict(a, t=_seconds(a["t"])) for a in self.advances],
            "warnings": [dict(w, t=_seconds(w["t"])) for w in self.warnings],
            "timers": {colour: self._timer_result(timer, t) for colour, timer in self.timers.items()},
        }

    def _timer_result(self, timer: Timer, t: float) -> dict:
        glass = timer.glass
        return {
            "pose": glass.pose.value if glass else None,
            "top_s": _seconds(glass.top(t)) if glass else None,
            "state": timer.state(t),
        }


def _timer_state(timer: Timer) -> dict:
    glass = timer.glass
    return {
        "duration": glass.duration, "a": glass.a, "pose": glass.pose.value, "since": glass.since,
        "duration_b_up": glass.duration_b_up,
        "last_upright": None if timer.last_upright is None else timer.last_upright.value,
        "noted": sorted(_KIND_NAMES[kind] for kind in timer.noted),
        "spent": timer.spent,
    }


def _seconds(value: float) -> float:
    """Seconds as reported: to the millisecond, so float noise never shows."""
    return round(value, 3) + 0.0
