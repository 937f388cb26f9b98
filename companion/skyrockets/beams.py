"""Sand-true run-outs: what a light beam at a glass's neck tells the model.

A beam that sees the sand stop knows the real instant the top bulb ran dry;
the model only knows the calibrated duration. Within a sanity window around
the modelled instant the beam wins: the glass is empty from the beam's
instant on (a beam far from the model is more likely a stray reflection or
a knock, and is only recorded as a warning). A beam that stops after the
glass ran a whole run from full measures that glass's duration for that
direction, and `DurationEstimate` folds such runs into the calibration.

>>> glass = Hourglass.standing(30.0, t=0.0)
>>> emptied_by_beam(glass, 29.2).empties_at()          # the real glass was a little quick
29.2
>>> emptied_by_beam(glass, 20.0) is None                # ten seconds off: not believed
True
"""

from dataclasses import dataclass, replace

from companion.skyrockets.hourglass import Hourglass, Pose

WINDOW_MIN_S = 2.0  # a beam this close to the modelled instant is always believed...
WINDOW_SHARE = 0.08  # ...and up to this share of the glass's duration (real glasses differ a few %)
MAX_RUNS = 20  # a calibration remembers this many runs' worth of weight, so it can still follow a glass
PRIOR_RUNS = 4  # what a stored calibration is worth when the runs behind it were not kept


def window_s(duration: float) -> float:
    """How far from the modelled run-out a beam's `stopped` is still believed."""
    return max(WINDOW_MIN_S, WINDOW_SHARE * duration)


def emptied_by_beam(glass: Hourglass, t: float) -> Hourglass | None:
    """The glass with its top bulb empty from `t` on, or None if the beam is not believed.

    Only an upright glass can run dry; `t` must lie within `window_s` of the
    instant the model empties it.
    """
    modelled = glass.empties_at()
    if modelled is None or abs(t - modelled) > window_s(glass.duration):
        return None
    return replace(glass, a=0.0 if glass.pose is Pose.A_UP else glass.duration, since=t)


def full_run_s(glass: Hourglass, t: float) -> float | None:
    """The measured duration if the glass ran from full at its last move to a believed beam stop at `t`."""
    if glass.pose.upright and glass.top(glass.since) >= glass.duration and emptied_by_beam(glass, t) is not None:
        return t - glass.since
    return None


@dataclass(frozen=True)
class DurationEstimate:
    """A glass's calibrated duration for one direction, and how many runs it rests on.

    >>> DurationEstimate(30.0).observe(31.0).observe(31.0).seconds
    30.667
    """

    seconds: float
    runs: int = 1

    def observe(self, run_s: float) -> "DurationEstimate":
        """The estimate after one more beam-measured full run (a run far off the estimate is ignored)."""
        if abs(run_s - self.seconds) > window_s(self.seconds):
            return self
        runs = min(self.runs, MAX_RUNS - 1)
        return DurationEstimate(round((self.seconds * runs + run_s) / (runs + 1), 3), runs + 1)


def beam_durations(setup, runs: list[dict], prior_runs: int = PRIOR_RUNS) -> dict[str, tuple[float, float]]:
    """Each beam-timed glass's durations (A up, B up) after a show's `runs`, each direction on its own.

    The show's own duration for a direction counts as `prior_runs` runs, so one
    odd run moves it only a little; a run far off is ignored.

    >>> from companion.skyrockets.show import Setup
    >>> beam_durations(Setup(), [{"timer": "red", "pose": "b_up", "seconds": 29.0}])
    {'red': (30.0, 29.8)}
    """
    start = {run["timer"]: {pose: DurationEstimate(seconds, prior_runs)
                            for pose, seconds in zip(("a_up", "b_up"), setup.directions(run["timer"]))}
             for run in runs}
    refined = refined_durations(start, runs)
    return {colour: (by_pose["a_up"].seconds, by_pose["b_up"].seconds) for colour, by_pose in refined.items()}


def refined_durations(durations: dict, runs: list[dict]) -> dict:
    """Calibrated durations per colour and direction after the beam-measured `runs` of a show.

    `durations` maps colour -> {"a_up": DurationEstimate, "b_up": ...}; each run
    is {"timer", "pose", "seconds"} as a show records them.
    """
    refined = {colour: dict(by_pose) for colour, by_pose in durations.items()}
    for run in runs:
        by_pose = refined.setdefault(run["timer"], {})
        estimate = by_pose.get(run["pose"])
        by_pose[run["pose"]] = DurationEstimate(run["seconds"]) if estimate is None else estimate.observe(run["seconds"])
    return refined
