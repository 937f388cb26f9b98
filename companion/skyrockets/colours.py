"""The six timer colours, shortest first, and their nominal durations.

The nominal table is the default only: a table's config and a show log's
``durations`` override it with calibrated seconds (real glasses vary, and some
printings have a 90 s purple).
"""

import math
from typing import NamedTuple

from companion.errors import BadInput
from companion.fields import mapping, real, record, shown

COLOURS: tuple[str, ...] = ("red", "orange", "yellow", "green", "blue", "purple")


class Symbol(NamedTuple):
    """How a timer is told apart without its colour: a glyph for pages and text, a shape to print."""

    glyph: str
    shape: str  # its name in hw/cradle.scad, which engraves it on the timer's cradle


# The one table of timer symbols: the pages, shared results, the strip's marker counts and the printed cradles.
SYMBOLS: dict[str, Symbol] = {
    "red": Symbol("●", "circle"),
    "orange": Symbol("▲", "triangle"),
    "yellow": Symbol("■", "square"),
    "green": Symbol("◆", "diamond"),
    "blue": Symbol("★", "star"),
    "purple": Symbol("✚", "cross"),
}

NOMINAL_S: dict[str, float] = {
    "red": 30.0,
    "orange": 40.0,
    "yellow": 50.0,
    "green": 60.0,
    "blue": 70.0,
    "purple": 80.0,
}

# A glass longer than an hour is a typo, not a timer.
MAX_DURATION_S = 3600.0
MIN_GLASS_S = 1.0  # a glass of under a second is a typo


def check_colour(value: object, field: str) -> str:
    """Return `value` if it names a timer colour, else raise BadInput for `field`."""
    if value in COLOURS:  # compared with each colour's name: no other kind of value equals one
        return value
    raise BadInput(field, f"{value!r} is not a timer colour (expected one of {', '.join(COLOURS)})",
                   code="errors.colour.unknown")


def next_longer(colour: str) -> str | None:
    """The next longer timer (challenge mode's countdown), or None after purple."""
    i = COLOURS.index(colour)
    return COLOURS[i + 1] if i + 1 < len(COLOURS) else None


def check_seconds(value: object, field: str, *, positive: bool = False, limit: float = MAX_DURATION_S) -> float:
    """A finite number of seconds within 0..limit (strictly above 0 when `positive`)."""
    try:
        seconds = real(value, field, -math.inf, math.inf)
    except BadInput:
        raise BadInput(field, f"expected a number of seconds, got {shown(value)}",
                       code="errors.seconds", params={"limit": limit}) from None
    if seconds < 0 or (positive and seconds == 0):
        raise BadInput(field, f"must be {'above' if positive else 'at least'} 0 s, got {shown(value)}",
                       code="errors.seconds", params={"limit": limit})
    if seconds > limit:
        raise BadInput(field, f"{seconds:g} s is more than the {limit:g} s allowed",
                       code="errors.seconds", params={"limit": limit})
    return seconds


DIRECTIONS = ("a_up", "b_up")  # the two ways a glass runs: standing A up (sand A to B), or B up


def check_durations(value: object, field: str = "durations") -> dict[str, tuple[float, float]]:
    """Calibrated durations of any subset of the colours, as {colour: (A up, B up)} seconds.

    Each colour's value is one number (both ways alike) or an object with the
    seconds of each way, ``{"a_up": 30.2, "b_up": 31.0}``.

    >>> check_durations({"red": 30, "blue": {"a_up": 69.5, "b_up": 71}})
    {'red': (30.0, 30.0), 'blue': (69.5, 71.0)}
    """
    return {check_colour(c, f"{field}.{c}"): check_directions(s, f"{field}.{c}")
            for c, s in mapping(value, field, expected="an object of colour: seconds").items()}


def check_directions(value: object, field: str) -> tuple[float, float]:
    """One glass's seconds as (A up, B up), from a number or an {"a_up": s, "b_up": s} object."""
    if isinstance(value, dict):
        record(value, field, DIRECTIONS, required=DIRECTIONS)
        a_up, b_up = (check_seconds(value[d], f"{field}.{d}", positive=True) for d in DIRECTIONS)
        return a_up, b_up
    seconds = check_seconds(value, field, positive=True)
    return seconds, seconds


def directions_json(pair: tuple[float, float]) -> float | dict[str, float]:
    """A glass's seconds as a log writes them: one number when both ways agree."""
    a_up, b_up = pair
    return a_up if a_up == b_up else {"a_up": a_up, "b_up": b_up}
