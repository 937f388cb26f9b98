"""Show logs (docs/formats.md): one JSON object per line, read and replayed.

Every line is checked before it is used; a bad one raises `LogError`, which
names the line number and the field, so `companion replay` can answer with one
line instead of a traceback.
"""

from typing import Iterable

from companion import jsonin
from companion.errors import BadInput
from companion.skyrockets.colours import check_colour, check_durations, check_seconds, directions_json
from companion.skyrockets.events import Event, parse_event
from companion.skyrockets.hourglass import Pose
from companion.skyrockets.show import MAX_TOLERANCE_S, MAX_WARN_LEAD_S, Setup, Show

LINE_TYPES = ("setup", "pose", "flip", "beam", "end")
BEAM_STATES = ("flowing", "stopped")
POSES = tuple(p.value for p in Pose)
MAX_SHOW_S = 24 * 3600.0


class LogError(BadInput):
    """A bad show-log line: `line` is its 1-based number."""

    def __init__(self, line: int, field: str, problem: str):
        super().__init__(field, problem)
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
        raise BadInput("event", "missing")
    challenge = data.get("challenge", False)
    if not isinstance(challenge, bool):
        raise BadInput("challenge", f"expected true or false, got {challenge!r}")
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
        raise BadInput(field, "missing")
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
        if not text.strip():
            return None
        try:
            data = jsonin.parse(text, "")  # huge integers, NaN and lone surrogates are refused here
        except BadInput as e:
            raise LogError(self.line, e.field, e.problem) from None
        if not isinstance(data, dict):
            raise LogError(self.line, "", f"expected a JSON object, got {type(data).__name__}")
        try:
            return self._check(data)
        except LogError:
            raise
        except BadInput as e:
            raise LogError(self.line, e.field, e.problem) from None

    def _check(self, data: dict) -> dict:
        kind = _need(data, "type")
        if kind not in LINE_TYPES:
            raise BadInput("type", f"unknown type {kind!r} (expected {', '.join(LINE_TYPES)})")
        t = check_seconds(_need(data, "t"), "t", limit=MAX_SHOW_S)
        if self.setup is None and kind != "setup":
            raise BadInput("type", f"the first line must be a setup line, not {kind!r}")
        if self.setup is not None and kind == "setup":
            raise BadInput("type", "a show log has only one setup line")
        if self.last_t is not None and t < self.last_t:
            raise BadInput("t", f"{data['t']} is earlier than the previous line's {self.last_t:g}")
        line = {"t": t, "type": kind}
        if kind == "setup":
            if t != 0:
                raise BadInput("t", f"the setup line is at t = 0, not {data['t']}")
            self.setup = line["setup"] = parse_setup(data, self.known_events)
        elif kind == "beam":
            line["timer"] = check_colour(_need(data, "timer"), "timer")
            line["state"] = _need(data, "state")
            if line["state"] not in BEAM_STATES:
                raise BadInput("state", f"{line['state']!r} is not a beam state (expected {', '.join(BEAM_STATES)})")
        elif kind in ("pose", "flip"):
            line["timer"] = check_colour(_need(data, "timer"), "timer")
            if kind == "pose":
                pose = _need(data, "pose")
                if pose not in POSES:
                    raise BadInput("pose", f"{pose!r} is not a pose (expected {', '.join(POSES)})")
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


def replay(lines: Iterable[str], known_events: dict[str, Event] | None = None) -> Show:
    """Replay a whole log; the show is left at the last line's time."""
    reader = LogReader(known_events)
    show: Show | None = None
    for text in lines:
        line = reader.read(text)
        if line is None:
            continue
        if line["type"] == "setup":
            show = Show(line["setup"])
        else:
            apply_line(show, line)
    if show is None:
        raise LogError(max(reader.line, 1), "", "the log is empty: it must start with a setup line")
    show.advance(reader.last_t)
    return show
