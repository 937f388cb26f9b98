"""One show's own figures, from its journal replayed: what the progress pages count, kept once per show.

A run-out's *phase* is the countdown space the group was on when the glass ran
out (4 at the start of most events, 1 the last before the button): which part
of the show the group loses glasses in. `spaces_left` is how far the countdown
was from the button when the show ended (0: it reached it, a win).

>>> log = ['{"t": 0, "type": "setup", "event": "training"}', '{"t": 70, "type": "end"}']
>>> figures = show_figures(log)
>>> figures["runouts"], figures["tokens"], figures["spaces_left"], figures["show_s"]
([{'timer': 'red', 't': 30.0, 'space': 4}, {'timer': 'yellow', 't': 50.0, 'space': 4}], 2, 4, 70.0)
"""

from collections.abc import Iterable

from companion.skyrockets.events import Event
from companion.skyrockets.log import replay


def show_figures(lines: Iterable[str], known_events: dict[str, Event] | None = None) -> dict:
    """A finished show's figures: its run-outs (glass, show time, countdown space), the crowd tokens it
    turned, the countdown's spaces left at its end, its start space, and its length in show seconds."""
    show = replay(lines, known_events, notices=False)
    result = show.result()
    start = show.event.countdown_start
    return {"runouts": [{"timer": r["timer"], "t": r["t"], "space": space_at(r["t"], start, result["advances"])}
                        for r in result["runouts"]],
            "tokens": result["crowd_tokens_turned"], "spaces_left": result["countdown"]["position"],
            "start_space": start, "show_s": result["t"]}


def space_at(t: float, start: int, advances: list[dict]) -> int:
    """The countdown's space at show time `t`: the last advance at or before it, else the start space.

    >>> space_at(40.0, 4, [{"t": 30.0, "position": 3}, {"t": 45.0, "position": 2}])
    3
    """
    space = start
    for advance in advances:
        if advance["t"] <= t:
            space = advance["position"]
    return space
