"""A show's parameters as the table's config sets them: the Setup written into the show's first line."""

from companion.config import Config
from companion.hardware import sensors
from companion.skyrockets import COLOURS, Setup


def show_setup(config: Config, event, challenge: bool, orientation: dict | None = None) -> Setup:
    """A show's parameters from the config; grace and tolerance only where a glass is physical.

    A cradle's calibration is by its ends; the model's bulb A is the end that
    holds the sand at the start, so a glass standing the other way round
    (`orientation[colour]` True) has its two durations swapped, and one whose
    way round is not known yet (None: lying) runs at their mean both ways.
    """
    physical = any(sensors.physical(config.timers[c]) for c in COLOURS if event.in_play(c))
    durations = {}
    for colour, seconds in config.durations().items():
        a_up, b_up = seconds if isinstance(seconds, tuple) else (seconds, seconds)
        swapped = (orientation or {}).get(colour, False)
        durations[colour] = (b_up, a_up) if swapped else ((a_up + b_up) / 2,) * 2 if swapped is None else (a_up, b_up)
    return Setup(event, challenge, durations=durations, nominal=config.nominal,
                 warn_lead_s=config.warn_lead_s, runout_grace_s=config.runout_grace_s if physical else 0.0,
                 advance_tolerance_s=config.advance_tolerance_s if physical else 0.0)
