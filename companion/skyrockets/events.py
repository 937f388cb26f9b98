"""Events: which timers start running or lying, the countdown timer and its start space.

Event cards print their own setups, so events are data: the built-in training
event, files a table keeps, and inline objects in show logs all pass through
`parse_event`, which names the field that is wrong.
"""

from dataclasses import asdict, dataclass, field, replace

from companion.errors import BadInput
from companion.fields import choice, items, line, mapping, record, whole
from companion.skyrockets.colours import COLOURS, check_colour, next_longer

MAX_START_SPACE = 9
MAX_HAND_SIZE = 20
MAX_EVENT_ID, MAX_EVENT_NAME, MAX_EVENT_RULES = 64, 80, 2000  # characters in an event's id, name and rules text
RULES_KEEP = "\n\t"  # an event's rules text may run over lines; its id and name may not
EVENT_FIELDS = ("id", "name", "hand_size", "countdown", "countdown_start", "running", "lying", "rules")


@dataclass(frozen=True)
class Event:
    """The setup printed on an event card."""

    id: str
    name: str
    hand_size: int
    countdown: str
    running: tuple[str, ...]
    lying: tuple[str, ...] = ()
    countdown_start: int = 4
    rules: str = ""
    builtin: bool = field(default=False, compare=False)

    def in_play(self, colour: str) -> bool:
        return colour in self.running or colour in self.lying

    def challenged(self) -> "Event":
        """Challenge mode: the next longer timer takes over as countdown; the two swap starting states."""
        longer = next_longer(self.countdown)
        if longer is None:
            raise BadInput("challenge", f"{self.countdown} is the longest timer: this event has no challenge mode",
                           code="errors.event.no_challenge", params={"colour": self.countdown})

        def swapped(colour: str) -> str:
            return {self.countdown: longer, longer: self.countdown}.get(colour, colour)

        return replace(
            self,
            countdown=longer,
            running=_in_colour_order(swapped(c) for c in self.running),
            lying=_in_colour_order(swapped(c) for c in self.lying),
        )

    def to_json(self) -> dict:
        """The inline event object of a show log (docs/formats.md)."""
        data = asdict(self)
        del data["builtin"]
        data["running"], data["lying"] = list(self.running), list(self.lying)
        return data


def _in_colour_order(colours) -> tuple[str, ...]:
    chosen = set(colours)
    return tuple(c for c in COLOURS if c in chosen)


TRAINING = Event(
    id="training",
    name="Training",
    hand_size=4,
    countdown="orange",
    running=("red", "orange", "yellow", "purple"),
    lying=("green", "blue"),
    countdown_start=4,
    rules="",
    builtin=True,
)

BUILTIN_EVENTS: dict[str, Event] = {TRAINING.id: TRAINING}


def parse_event(data: object, where: str = "event", known: dict[str, Event] | None = None) -> Event:
    """An Event from an id (looked up in `known`, default the built-ins) or an inline object."""
    known = BUILTIN_EVENTS if known is None else known
    if isinstance(data, str):
        return known[choice(data, where, sorted(known), code="errors.event.unknown")]
    record(mapping(data, where, expected="an event id or an event object"), where, EVENT_FIELDS)

    def need(key: str, default: object = None) -> object:
        if key in data:
            return data[key]
        if default is None:
            raise BadInput(f"{where}.{key}", "missing", code="errors.missing")
        return default

    event_id = _text(need("id"), f"{where}.id", required=True, limit=MAX_EVENT_ID)
    running = _colour_list(need("running"), f"{where}.running")
    lying = _colour_list(need("lying", []), f"{where}.lying")
    both = set(running) & set(lying)
    if both:
        raise BadInput(f"{where}.lying", f"{sorted(both)[0]} cannot both run and lie at the start",
                       code="errors.event.run_and_lie", params={"colour": sorted(both)[0]})
    countdown = check_colour(need("countdown"), f"{where}.countdown")
    if countdown not in running and countdown not in lying:
        raise BadInput(f"{where}.countdown", f"{countdown} must also be listed in running (or lying)",
                       code="custom.countdown_in_play", params={"timer": countdown})
    return Event(
        id=event_id,
        name=_text(need("name", event_id), f"{where}.name", required=True, limit=MAX_EVENT_NAME),
        hand_size=whole(need("hand_size", 4), f"{where}.hand_size", 0, MAX_HAND_SIZE),
        countdown=countdown,
        running=running,
        lying=lying,
        countdown_start=whole(need("countdown_start", 4), f"{where}.countdown_start", 1, MAX_START_SPACE),
        rules=_text(need("rules", ""), f"{where}.rules", limit=MAX_EVENT_RULES, keep=RULES_KEEP),
    )


def _text(value: object, field: str, *, required: bool = False, limit: int, keep: str = "") -> str:
    """Printable text (only the control characters in `keep` allowed), stripped, within `limit`."""
    return line(value, field, limit, keep=keep, empty=not required).strip()


def _colour_list(value: object, field: str) -> tuple[str, ...]:
    colours = [check_colour(c, f"{field}[{i}]") for i, c in enumerate(items(value, field, 0, len(COLOURS), expected="a list of colours"))]  # more names a colour twice
    if len(set(colours)) != len(colours):
        dup = next(c for c in colours if colours.count(c) > 1)
        raise BadInput(field, f"{dup} is listed twice", code="errors.colour.twice", params={"colour": dup})
    return _in_colour_order(colours)
