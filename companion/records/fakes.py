"""Finished shows recorded as a table records them, with journals that replay to their outcome: for tests and demos.

A show of event `event_id` is set out with the long blue glass as its
countdown one space from the end and three short glasses running; the
players lay on its side at once each short glass that is not to turn a
crowd token, the others run out once, and blue turned as it empties wins
the show (a third run-out loses it first). Every show of an event has the
same setup, as the table demands of a saved event.

>>> from companion.records.shows import Store
>>> from companion.skyrockets.log import replay
>>> store = Store(":memory:")
>>> show = played_show(store, "night", "win", 2)
>>> result = replay(store.show_log(show), notices=False)
>>> (result.outcome, result.stars), store.show(show)["stars"]
(('win', 2), 2)
"""

from companion.records.shows import JournalLine
from companion.skyrockets.colours import NOMINAL_S
from companion.skyrockets.events import parse_event
from companion.skyrockets.hourglass import Pose
from companion.skyrockets.log import parse_setup, setup_line
from companion.skyrockets.show import CROWD_TOKENS

SHORT = ("red", "orange", "yellow")  # each runs out before blue empties
COUNTDOWN = "blue"
WALL = 1_746_387_000.0  # 2025-05-04 19:30 UTC


def played_show(store, event_id: str, outcome: str, stars: int = 0, *, name: str = "", rules: str = "",
                wall: float = WALL, ended: float | None = None) -> int:
    """Record a finished show of `event_id` won with `stars` (1-3), or lost, started at `wall` and ended at `ended`
    (by default as soon as it is over, at speed 1); its id. The event is saved as played."""
    runouts = CROWD_TOKENS if outcome == "loss" else CROWD_TOKENS - stars
    event = parse_event({"id": event_id, "name": name or event_id, "hand_size": 4, "countdown": COUNTDOWN,
                         "running": [COUNTDOWN, *SHORT], "countdown_start": 1, "rules": rules}, "event")
    store.save_event(event, wall)
    setup = setup_line(parse_setup({"event": event.to_json()}))
    show = store.begin_show(event, False, setup, wall, 1.0)
    store.write([JournalLine(show, {"t": 1, "type": "pose", "timer": colour, "pose": Pose.SIDE.value})
                 for colour in SHORT[runouts:]])
    if outcome == "win":
        end = NOMINAL_S[COUNTDOWN]
        store.write([JournalLine(show, {"t": end, "type": "flip", "timer": COUNTDOWN})])
    else:
        end = NOMINAL_S[SHORT[-1]]  # the third run-out
    store.finish_show(show, {"t": end, "type": "end"}, outcome, stars if outcome == "win" else 0,
                      wall + end if ended is None else ended)
    return show


RUN_OUT_GLASSES = ("red", "orange", "yellow", "green")  # each empties before blue, the countdown, does


def show_with_runouts(store, event_id: str, ran_out: tuple[str, ...], *, wall: float = WALL, name: str = "") -> int:
    """Record a finished show of `event_id` in which the glasses `ran_out` (of RUN_OUT_GLASSES) ran out and the
    others were laid down at once: three run-outs lose it at the third, fewer win it as blue empties (with a
    star for each token kept). Every show of an event has the same setup, so any glass may be chosen to run out.

    >>> from companion.records.shows import Store
    >>> from companion.skyrockets.log import replay
    >>> store = Store(":memory:")
    >>> show = show_with_runouts(store, "night", ("green",))
    >>> result = replay(store.show_log(show), notices=False).result()
    >>> result["outcome"], result["stars"], [r["timer"] for r in result["runouts"]]
    ('win', 2, ['green'])
    """
    if not set(ran_out) <= set(RUN_OUT_GLASSES) or not 0 <= len(ran_out) <= CROWD_TOKENS:
        raise ValueError(f"ran_out: up to {CROWD_TOKENS} of {RUN_OUT_GLASSES}")
    event = parse_event({"id": event_id, "name": name or event_id, "hand_size": 4, "countdown": COUNTDOWN,
                         "running": [COUNTDOWN, *RUN_OUT_GLASSES], "countdown_start": 1}, "event")
    store.save_event(event, wall)
    show = store.begin_show(event, False, setup_line(parse_setup({"event": event.to_json()})), wall, 1.0)
    store.write([JournalLine(show, {"t": 1, "type": "pose", "timer": colour, "pose": Pose.SIDE.value})
                 for colour in RUN_OUT_GLASSES if colour not in ran_out])
    lost = len(ran_out) == CROWD_TOKENS
    end = max(NOMINAL_S[c] for c in ran_out) if lost else NOMINAL_S[COUNTDOWN]
    if not lost:
        store.write([JournalLine(show, {"t": end, "type": "flip", "timer": COUNTDOWN})])
    store.finish_show(show, {"t": end, "type": "end"}, "loss" if lost else "win",
                      0 if lost else CROWD_TOKENS - len(ran_out), wall + end)
    return show
