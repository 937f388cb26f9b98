"""Resuming the show that was running when the table stopped (a power cut, a crash, SIGKILL).

The journal replays to the show as it was at its last line; time ran on
while the table was down, so the show is carried to now by the wall clock —
but never before its last line, since a Pi without a real-time clock may
boot with its wall clock set back.
"""

import logging
from dataclasses import dataclass

from companion.skyrockets import Show, replay
from companion.skyrockets.log import LogError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Resumed:
    """A show brought back from its journal, and where it picks up."""

    show: Show
    show_id: int
    t: float  # show seconds at which it resumes
    speed: float
    started_wall: float
    orientation: dict


def resume(store, wall: float) -> Resumed | None:
    """The unfinished show in `store` carried to wall time `wall`, or None (a broken one is set aside)."""
    row = store.unfinished_show()
    if row is None:
        return None
    try:
        show = replay(row["lines"], store.events())
    except LogError as e:
        log.error("show %s cannot be resumed (journal %s); recorded as aborted", row["id"], e)
        store.finish_show(row["id"], {"t": 0, "type": "end"}, "aborted", 0, wall)
        return None
    t = max(show.now, (wall - row["started_wall"]) * row["speed"])
    log.info("resuming show %s at %.1f s", row["id"], t)
    return Resumed(show, row["id"], t, row["speed"], row["started_wall"], row["orientation"])
