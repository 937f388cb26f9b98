"""Show logs (docs/formats.md): one JSON object per line, read and replayed.

Every line is checked before it is used; a bad one raises `LogError`, which
names the line number and the field, so `companion replay` can answer with one
line instead of a traceback.
"""

import json
import re
from typing import Iterable

from companion import fields, jsonin
from companion.errors import BadInput
from companion.fields import yes_no
from companion.skyrockets.colours import COLOURS, check_colour, check_durations, check_seconds, directions_json
from companion.skyrockets.events import Event, parse_event
from companion.skyrockets.hourglass import Pose
from companion.skyrockets.show import MAX_TOLERANCE_S, MAX_WARN_LEAD_S, Setup, Show

LINE_TYPES = ("setup", "pose", "flip", "beam", "end")
BEAM_STATES = ("flowing", "stopped")
POSES = tuple(p.value for p in Pose)
MAX_SHOW_S = 24 * 3600.0

# The common lines, and how many fields each has: such a line with nothing unusual about it is taken
# on a quick path (see LogReader._quick); anything else goes through the full checks.
_QUICK_FIELDS = {"pose": 4, "flip": 3, "end": 2, "beam": 4}
_COLOURS = frozenset(COLOURS)
_POSES = frozenset(POSES)
_BEAM_STATES = frozenset(BEAM_STATES)
_scan = json.scanner.make_scanner(json.JSONDecoder())  # json.loads's own scanner, minus its wrapping
# A pose line exactly as a table writes it (json.dumps, its fields in order), its time a plain JSON number: a
# chattering switch writes little else, so one match reads most of a long log. float() of such a number is what
# json.loads makes of it.
_POSE_LINE = re.compile(r'\{"t": ((?:0|[1-9][0-9]*)(?:\.[0-9]+)?), "type": "pose", "timer": "(%s)", "pose": "(%s)"\}'
                        % ("|".join(COLOURS), "|".join(POSES)))


class LogError(BadInput):
    """A bad show-log line: `line` is its 1-based number."""

    def __init__(self, line: int, field: str, problem: str, *, code: str | None, params: dict | None = None):
        super().__init__(field, problem, code=code, params=params)
        self.line = line

    def __str__(self) -> str:
        return f"line {self.line}: {super().__str__()}"


DEFAULT_WARN_LEAD_S = 10.0  # for logs written before the setup line carried the warning lead


def setup_line(setup: Setup) -> dict:
    """The first line of a show's log, with every parameter of the show; built-in events by id.

    A glass that runs alike both ways has one number in `durations`, one that
    does not has ``{"a_up": s, "b_up": s}``.
    """
    event = setup.event
    return {
        "t": 0,
        "type": "setup",
        "event": event.id if event.builtin else event.to_json(),
        "challenge": setup.challenge,
        "durations": {c: directions_json(setup.directions(c)) for c in setup.nominal},
        "runout_grace_s": setup.runout_grace_s,
        "advance_tolerance_s": setup.advance_tolerance_s,
        "warn_lead_s": setup.warn_lead_s,
    }


def parse_setup(data: dict, known_events: dict[str, Event] | None = None) -> Setup:
    """A Setup from a setup line's fields (raises BadInput naming the field)."""
    if "event" not in data:
        raise BadInput("event", "missing", code="errors.missing")
    challenge = yes_no(data.get("challenge", False), "challenge")
    setup = Setup(
        event=parse_event(data["event"], "event", known_events),
        challenge=challenge,
        durations=check_durations(data.get("durations", {})),
        runout_grace_s=check_seconds(data.get("runout_grace_s", 0), "runout_grace_s", limit=MAX_TOLERANCE_S),
        advance_tolerance_s=check_seconds(data.get("advance_tolerance_s", 0), "advance_tolerance_s",
                                          limit=MAX_TOLERANCE_S),
        warn_lead_s=check_seconds(data.get("warn_lead_s", DEFAULT_WARN_LEAD_S), "warn_lead_s", limit=MAX_WARN_LEAD_S),
    )
    setup.played_event  # challenge mode on purple is bad input, found now
    return setup


def _need(data: dict, field: str) -> object:
    if field not in data:
        raise BadInput(field, "missing", code="errors.missing")
    return data[field]


class LogReader:
    """Checks lines one at a time: JSON, `t` never decreasing, known types, setup first."""

    def __init__(self, known_events: dict[str, Event] | None = None):
        self.known_events = known_events
        self.line = 0
        self.last_t: float | None = None
        self.setup: Setup | None = None

    def read(self, text: str) -> dict | None:
        """The checked line as a dict (with "setup" parsed), or None for a blank line."""
        self.line += 1
        if self.setup is not None:
            line = self._quick(text)
            if line is not None:
                return line
        if not text.strip():
            return None
        try:
            data = fields.mapping(jsonin.parse(text, ""), "", expected="a JSON object")  # huge numbers, NaN too
        except BadInput as e:
            raise LogError(self.line, e.field, e.problem, code=getattr(e, "error_code", None),
                           params=e.params) from None
        try:
            return self._check(data)
        except LogError:
            raise
        except BadInput as e:
            raise LogError(self.line, e.field, e.problem, code=getattr(e, "error_code", None),
                           params=e.params) from None

    def _quick(self, text: str) -> dict | None:
        """A plain pose, flip, beam or end line, checked at the cost of what it holds; None for any other.

        A line taken here has exactly its type's fields, each one of the few
        values allowed, and `t` a number in range, not before the previous
        line: the full checks would find nothing wrong with it and make the
        same line of it. Anything else (a line with an error, an extra
        field, a number written oddly) goes to the full checks, which name
        what is wrong.
        """
        pose_line = _POSE_LINE.fullmatch(text)
        if pose_line is not None:
            t, timer, pose = pose_line.groups()
            t = float(t)
            if t > MAX_SHOW_S or t < self.last_t:
                return None
            self.last_t = t
            return {"t": t, "type": "pose", "timer": timer, "pose": pose}
        try:
            data, end = _scan(text, 0)
        except (ValueError, StopIteration, RecursionError):
            return None
        if end != len(text) and text[end:].strip(" \t\r\n"):
            return None
        if type(data) is not dict:
            return None
        kind = data.get("type")
        if type(kind) is not str or _QUICK_FIELDS.get(kind) != len(data):
            return None
        t = data.get("t")
        if type(t) is int:
            if not 0 <= t <= MAX_SHOW_S:
                return None
            t = float(t)
        elif type(t) is not float or not 0.0 <= t <= MAX_SHOW_S:  # NaN and infinities fail here too
            return None
        if t < self.last_t:
            return None
        if kind == "end":
            line = {"t": t, "type": kind}
        else:
            timer = data.get("timer")
            if type(timer) is not str or timer not in _COLOURS:
                return None
            line = {"t": t, "type": kind, "timer": timer}
            if kind == "pose":
                pose = data.get("pose")
                if type(pose) is not str or pose not in _POSES:
                    return None
                line["pose"] = pose
            elif kind == "beam":
                state = data.get("state")
                if type(state) is not str or state not in _BEAM_STATES:
                    return None
                line["state"] = state
        self.last_t = t
        return line

    def _check(self, data: dict) -> dict:
        kind = _need(data, "type")
        if kind not in LINE_TYPES:
            raise BadInput("type", f"unknown type {kind!r} (expected {', '.join(LINE_TYPES)})", code="errors.choice")
        t = check_seconds(_need(data, "t"), "t", limit=MAX_SHOW_S)
        if self.setup is None and kind != "setup":
            raise BadInput("type", f"the first line must be a setup line, not {kind!r}", code="errors.log.setup_first")
        if self.setup is not None and kind == "setup":
            raise BadInput("type", "a show log has only one setup line", code="errors.log.setup_twice")
        if self.last_t is not None and t < self.last_t:
            raise BadInput("t", f"{data['t']} is earlier than the previous line's {self.last_t:g}",
                           code="errors.log.backwards", params={"t": t, "last": self.last_t})
        line = {"t": t, "type": kind}
        if kind == "setup":
            if t != 0:
                raise BadInput("t", f"the setup line is at t = 0, not {data['t']}", code="errors.log.setup_time")
            self.setup = line["setup"] = parse_setup(data, self.known_events)
        elif kind == "beam":
            line["timer"] = check_colour(_need(data, "timer"), "timer")
            line["state"] = _need(data, "state")
            if line["state"] not in BEAM_STATES:
                raise BadInput("state", f"{line['state']!r} is not a beam state (expected {', '.join(BEAM_STATES)})",
                               code="errors.choice")
        elif kind in ("pose", "flip"):
            line["timer"] = check_colour(_need(data, "timer"), "timer")
            if kind == "pose":
                pose = _need(data, "pose")
                if pose not in POSES:
                    raise BadInput("pose", f"{pose!r} is not a pose (expected {', '.join(POSES)})",
                                         code="errors.choice")
                line["pose"] = pose
        self.last_t = t
        return line


def apply_line(show: Show, line: dict) -> None:
    """Feed one checked pose/flip/end line to a running show."""
    if line["type"] == "pose":
        show.pose(line["t"], line["timer"], line["pose"])
    elif line["type"] == "flip":
        show.flip(line["t"], line["timer"])
    elif line["type"] == "beam":
        show.beam(line["t"], line["timer"], line["state"] == "flowing")
    elif line["type"] == "end":
        show.advance(line["t"])


def split_lines(text: str) -> list[str]:
    r"""A log's lines: split at `\n` only, since a name may hold any other line break (U+2028, a lone CR).

    >>> split_lines('{"a": "x\u2028y"}\n{"b": 1}\n')
    ['{"a": "x\u2028y"}', '{"b": 1}']
    """
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def replay(lines: Iterable[str], known_events: dict[str, Event] | None = None, *,
           since: dict | None = None, notices: bool = True) -> Show:
    """Replay a whole log (or, `since` a checkpoint, the lines after it); the show is left at the last line's time.

    The lines are read one at a time, so a log may be streamed from a file of
    any length. `notices=False` drops the show's notices as they happen (for
    a replay that drives no lights, buzzer or page, so they do not pile up).

    >>> log = ['{"t": 0, "type": "setup", "event": "training"}', '{"t": 12, "type": "flip", "timer": "red"}',
    ...        '{"t": 20, "type": "pose", "timer": "red", "pose": "side"}', '{"t": 25, "type": "end"}']
    >>> saved = checkpoint(apply_lines(log[:2]), 2)
    >>> replay(log[2:], since=saved).result() == replay(log).result()
    True
    """
    show = apply_lines(lines, known_events, since=since, notices=notices)
    show.advance(show.now)  # what falls due at the last line's instant happens: the log ends there
    return show


def apply_lines(lines: Iterable[str], known_events: dict[str, Event] | None = None, *,
                since: dict | None = None, notices: bool = True) -> Show:
    """The show after each line of a log (or the lines after a checkpoint) is applied, as `replay` applies them.

    Unlike `replay`, what falls due at the very instant of the last line has
    not happened yet: a next line at that instant would still come before it.
    """
    reader = LogReader(known_events)
    show: Show | None = None
    if since is not None:
        show = resume_reader(reader, since, notices=notices)
    for text in lines:
        line = reader.read(text)
        if line is None:
            continue
        if line["type"] == "setup":
            show = Show(line["setup"], notices=notices)
        else:
            apply_line(show, line)
    if show is None:
        raise LogError(max(reader.line, 1), "", "the log is empty: it must start with a setup line",
                       code="errors.log.empty")
    return show


def checkpoint(show: Show, lines: int) -> dict:
    """A checkpoint, as a JSON-able dict, of `show` once the first `lines` lines of its log are applied.

    `replay(tail, since=checkpoint(show, lines))`, where `tail` is the log
    after those lines, reaches exactly what a replay of the whole log
    reaches. It does so for a show from `apply_lines` with any tail, and for
    a show settled further (a live table's, or `replay`'s) as long as no
    line of the tail falls at an instant where something already happened
    (a table's journal never has one: it writes such a line just after). The
    checkpoint carries the setup line, so it needs nothing else.
    """
    return {"lines": lines, "setup": setup_line(show.setup), "show": show.checkpoint()}


def resume_reader(reader: LogReader, since: dict, *, notices: bool = True) -> Show:
    """The show a checkpoint holds, with `reader` set to read the lines after it."""
    setup = parse_setup(since["setup"], reader.known_events)
    show = Show.restore(setup, since["show"], notices=notices)
    reader.setup, reader.line, reader.last_t = setup, since["lines"], show.now
    return show
