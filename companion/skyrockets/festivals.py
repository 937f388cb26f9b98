"""Festivals: the Skyrockets campaign of 30 numbered event cards — the training event, nine festivals of three,
the encore pair — and custom festivals.

The rule text gives 30 event cards, the Grand Finale festival numbered
"(28)" and an encore of two more events after it; one numbering holds all
three: event 1 is the training event, nine festivals of three hold events
2–28 (the ninth, 26–28, is the Grand Finale), and the encore holds 29 and
30, opened once every event of the Grand Finale is won. The cards print
their own setups, so a numbered event past the training one is an ordinary
saved event whose id is `event_id(n)`: the owner enters its setup once.
Progress is read from the score pad (best stars and attempts per event id);
nothing here keeps state.

>>> pad = {event_id(1): {"best_stars": 2, "attempts": 3}, event_id(2): {"best_stars": 3, "attempts": 1}}
>>> shown = progress(campaign(), pad)
>>> sum(f["size"] for f in shown), shown[1]["won"], shown[1]["stars"], shown[1]["next"]
(30, 1, 3, 'event-03')
>>> next_event(shown)
'event-03'
"""

from dataclasses import dataclass

from companion.errors import BadInput
from companion.fields import items, record, text
from companion.skyrockets.events import MAX_EVENT_ID, MAX_EVENT_NAME, TRAINING
from companion.skyrockets.show import CROWD_TOKENS

CAMPAIGN_EVENTS = 30  # event cards in the box, numbered in the order they are played
TRAINING_NUMBER = 1  # the first card: the training event, built in
FESTIVAL_SIZE = 3  # events in a festival of the campaign
ENCORE_EVENTS = (CAMPAIGN_EVENTS - 1, CAMPAIGN_EVENTS)  # the sealed pair, opened after the grand finale
GRAND_FINALE = (ENCORE_EVENTS[0] - 1 - TRAINING_NUMBER) // FESTIVAL_SIZE  # the ninth festival, events 26–28
MAX_STARS = CROWD_TOKENS  # a won event's best rating: every crowd token still star side up
MAX_FESTIVAL_EVENTS = 12  # events in a custom festival
MAX_FESTIVALS = 50  # custom festivals a table keeps


def event_id(number: int) -> str:
    """The event id of event card `number` (1–30): the built-in training event's, else a saved event's.

    >>> event_id(1), event_id(4), event_id(30)
    ('training', 'event-04', 'event-30')
    """
    return TRAINING.id if number == TRAINING_NUMBER else f"event-{number:02d}"


def event_number(event: str) -> int | None:
    """The card number of a numbered event's id, or None for any other event.

    >>> event_number("event-07"), event_number("training"), event_number("event-01"), event_number("event-31")
    (7, 1, None, None)
    """
    if event == TRAINING.id:
        return TRAINING_NUMBER
    if event.startswith("event-") and event[6:].isascii() and event[6:].isdigit() and len(event) == 8:
        number = int(event[6:])
        return number if TRAINING_NUMBER < number <= CAMPAIGN_EVENTS else None
    return None


@dataclass(frozen=True)
class Festival:
    """A festival: its key, its events' ids in the order they are played, and which part of the campaign it is."""

    key: str
    events: tuple[str, ...]
    name: str = ""
    encore: bool = False
    custom: bool = False
    training: bool = False  # the training event, played before the first festival


def campaign() -> list[Festival]:
    """The training event, the nine festivals of the campaign, then the encore pair: 30 events in all.

    >>> [f.key for f in campaign()][:3], campaign()[GRAND_FINALE].events
    (['training', '1', '2'], ('event-26', 'event-27', 'event-28'))
    """
    first = TRAINING_NUMBER + 1
    festivals = [Festival(str(f), tuple(event_id(n) for n in range(first + (f - 1) * FESTIVAL_SIZE,
                                                                    first + f * FESTIVAL_SIZE)))
                 for f in range(1, GRAND_FINALE + 1)]
    return ([Festival(TRAINING.id, (event_id(TRAINING_NUMBER),), training=True)] + festivals
            + [Festival("encore", tuple(event_id(n) for n in ENCORE_EVENTS), encore=True)])


def custom_festival(data: object, known_events, key: str = "") -> Festival:
    """A custom festival from its JSON ({"name", "events": [event id, ...]}), every field checked.

    >>> custom_festival({"name": "Reds", "events": ["training"]}, {"training"}).events
    ('training',)
    """
    record(data, "festival", ("name", "events"))
    expected = f"a name of 1-{MAX_EVENT_NAME} printable characters"
    name = text(data.get("name"), "festival.name", expected=expected, code="errors.festival.name",
                params={"limit": MAX_EVENT_NAME})
    if not name.strip() or len(name) > MAX_EVENT_NAME or not name.isprintable():
        raise BadInput("festival.name", f"expected {expected}", code="errors.festival.name",
                       params={"limit": MAX_EVENT_NAME})
    events = items(data.get("events"), "festival.events", 1, MAX_FESTIVAL_EVENTS,
                   expected=f"a list of 1-{MAX_FESTIVAL_EVENTS} event ids", code="errors.festival.events",
                   params={"limit": MAX_FESTIVAL_EVENTS})
    for i, event in enumerate(events):
        field = f"festival.events[{i}]"
        if not 0 < len(text(event, field, expected="an event id", code="errors.event.unknown")) <= MAX_EVENT_ID:
            raise BadInput(field, "expected an event id", code="errors.event.unknown")
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
                      "custom": festival.custom, "training": festival.training,
                      "grand_finale": not festival.custom and festival.key == str(GRAND_FINALE),
                      "events": rows, "won": won, "size": len(rows),
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
