"""Festivals: the Skyrockets campaign of 30 numbered events in festivals of three, the encore, and custom festivals.

The event cards are numbered 1–30 and played in order, three to a festival;
the tenth festival is the grand finale, and the two encore events (31, 32)
open once every event of the grand finale is won. The cards print their own
setups, so a numbered event is an ordinary saved event whose id is
`event_id(n)`: the owner enters its setup once. Progress is read from the
score pad (best stars and attempts per event id); nothing here keeps state.

>>> pad = {event_id(1): {"best_stars": 2, "attempts": 3}, event_id(2): {"best_stars": 3, "attempts": 1}}
>>> first = progress(campaign(), pad)[0]
>>> first["won"], first["stars"], first["next"]
(2, 5, 'event-03')
>>> next_event(progress(campaign(), pad))
'event-03'
"""

from dataclasses import dataclass

from companion.errors import BadInput
from companion.fields import record
from companion.skyrockets.events import MAX_EVENT_ID, MAX_EVENT_NAME
from companion.skyrockets.show import CROWD_TOKENS

CAMPAIGN_EVENTS = 30  # numbered event cards, played in order
FESTIVAL_SIZE = 3  # events in a festival of the campaign
ENCORE_EVENTS = (31, 32)  # the sealed pair, opened after the grand finale
GRAND_FINALE = CAMPAIGN_EVENTS // FESTIVAL_SIZE  # the last festival of the campaign
MAX_STARS = CROWD_TOKENS  # a won event's best rating: every crowd token still star side up
MAX_FESTIVAL_EVENTS = 12  # events in a custom festival
MAX_FESTIVALS = 50  # custom festivals a table keeps


def event_id(number: int) -> str:
    """The saved-event id of event card `number` (1–32)."""
    return f"event-{number:02d}"


def event_number(event: str) -> int | None:
    """The card number of a numbered event's id, or None for any other event.

    >>> event_number("event-07"), event_number("training")
    (7, None)
    """
    if event.startswith("event-") and event[6:].isascii() and event[6:].isdigit() and len(event) == 8:
        number = int(event[6:])
        return number if 1 <= number <= ENCORE_EVENTS[-1] else None
    return None


@dataclass(frozen=True)
class Festival:
    """A festival: its key, its events' ids in the order they are played, and whether it is the encore."""

    key: str
    events: tuple[str, ...]
    name: str = ""
    encore: bool = False
    custom: bool = False


def campaign() -> list[Festival]:
    """The ten festivals of the campaign, then the encore pair."""
    festivals = [Festival(str(f), tuple(event_id(n) for n in range((f - 1) * FESTIVAL_SIZE + 1, f * FESTIVAL_SIZE + 1)))
                 for f in range(1, GRAND_FINALE + 1)]
    return festivals + [Festival("encore", tuple(event_id(n) for n in ENCORE_EVENTS), encore=True)]


def custom_festival(data: object, known_events, key: str = "") -> Festival:
    """A custom festival from its JSON ({"name", "events": [event id, ...]}), every field checked.

    >>> custom_festival({"name": "Reds", "events": ["training"]}, {"training"}).events
    ('training',)
    """
    if not isinstance(data, dict):
        raise BadInput("festival", f"expected an object, got {type(data).__name__}", code="errors.shape")
    record(data, "festival", ("name", "events"))
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_EVENT_NAME or not name.isprintable():
        raise BadInput("festival.name", f"expected a name of 1-{MAX_EVENT_NAME} printable characters",
                       code="errors.festival.name", params={"limit": MAX_EVENT_NAME})
    events = data.get("events")
    if not isinstance(events, list) or not 1 <= len(events) <= MAX_FESTIVAL_EVENTS:
        raise BadInput("festival.events", f"expected a list of 1-{MAX_FESTIVAL_EVENTS} event ids",
                       code="errors.festival.events", params={"limit": MAX_FESTIVAL_EVENTS})
    for i, event in enumerate(events):
        if not isinstance(event, str) or not 0 < len(event) <= MAX_EVENT_ID:
            raise BadInput(f"festival.events[{i}]", "expected an event id", code="errors.event.unknown")
        if event not in known_events and event_number(event) is None:
            raise BadInput(f"festival.events[{i}]", f"{event!r} is not an event this table knows",
                           code="errors.event.unknown")
        if event in events[:i]:
            raise BadInput(f"festival.events[{i}]", f"{event!r} is listed twice", code="errors.festival.twice")
    return Festival(key, tuple(events), name.strip(), custom=True)


def progress(festivals: list[Festival], pad: dict[str, dict]) -> list[dict]:
    """Each festival with its events' best stars and attempts, how many are won, and its next event.

    `pad` maps an event id to its score-pad row ({"best_stars": n or None,
    "attempts": n}); an event never played is absent. Stars are kept at their
    best: a later, poorer win never lowers them. The encore opens once the
    grand finale is complete.
    """
    done = {}
    shown = []
    for festival in festivals:
        rows = []
        for event in festival.events:
            row = pad.get(event) or {}
            best = row.get("best_stars")
            rows.append({"event": event, "number": event_number(event), "best_stars": best,
                         "attempts": row.get("attempts", 0) or 0, "won": best is not None})
        won = sum(r["won"] for r in rows)
        complete = won == len(rows)
        done[festival.key] = complete
        open_ = not festival.encore or done.get(str(GRAND_FINALE), False)
        shown.append({"key": festival.key, "name": festival.name, "encore": festival.encore,
                      "custom": festival.custom, "events": rows, "won": won, "size": len(rows),
                      "stars": sum(r["best_stars"] or 0 for r in rows), "max_stars": MAX_STARS * len(rows),
                      "complete": complete, "open": open_,
                      "next": next((r["event"] for r in rows if not r["won"]), None) if open_ else None})
    return shown


def next_event(festivals: list[dict]) -> str | None:
    """The next event of the campaign to play: the first event not yet won, in order (None: all done)."""
    for festival in festivals:
        if not festival["custom"] and festival["open"] and festival["next"]:
            return festival["next"]
    return None


def current_festival(festivals: list[dict]) -> dict | None:
    """The campaign festival the next event belongs to (None once everything is won)."""
    wanted = next_event(festivals)
    return next((f for f in festivals if not f["custom"] and wanted in (r["event"] for r in f["events"])), None)
