"""Skyrockets rules, pure: hourglass physics, the countdown track, crowd tokens, stars.

No I/O, threads or wall clock here: time is always an argument. See docs/rules.md
for the rules as implemented and docs/formats.md for the show log this package replays.
"""

from companion.skyrockets.colours import COLOURS, NOMINAL_S
from companion.skyrockets.events import BUILTIN_EVENTS, TRAINING, Event, parse_event
from companion.skyrockets.hourglass import Hourglass, Pose
from companion.skyrockets.log import LogError, LogReader, apply_lines, checkpoint, replay, setup_line
from companion.skyrockets.show import Setup, Show

__all__ = [
    "BUILTIN_EVENTS", "COLOURS", "NOMINAL_S", "TRAINING", "Event", "Hourglass", "LogError",
    "LogReader", "Pose", "Setup", "Show", "apply_lines", "checkpoint", "parse_event", "replay", "setup_line",
]
