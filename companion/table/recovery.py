"""Resuming the show that was running when the table stopped (a power cut, a crash, SIGKILL).

The journal replays to the show as it was at its last line: from the
newest checkpoint the journal's writer kept (checkpoints.py), so only the
lines after it are read, whatever the show's length. A checkpoint that does
not read (damaged, or of another version) is passed over with one log line,
and the whole journal is replayed instead. Time ran on
while the table was down, so the show is carried to now by the wall clock —
but never before its last line, since a Pi without a real-time clock may
boot with its wall clock set back.
"""

import json
import logging
from dataclasses import dataclass

from companion.errors import BadInput
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
    row = store.unfinished_show(whole=False)
    if row is None:
        return None
    events = store.events()
    try:
        show = from_checkpoint(store, row["id"], events) or replay(store.show_log(row["id"]), events)
    except LogError as e:
        log.error("show %s cannot be resumed (journal %s); recorded as aborted", row["id"], e)
        store.finish_show(row["id"], {"t": 0, "type": "end"}, "aborted", 0, wall)
        return None
    t = max(show.now, (wall - row["started_wall"]) * row["speed"])
    log.info("resuming show %s at %.1f s", row["id"], t)
    return Resumed(show, row["id"], t, row["speed"], row["started_wall"], row["orientation"])


def from_checkpoint(store, show_id: int, events) -> Show | None:
    """Show `show_id` replayed from its newest checkpoint, or None (no checkpoint, or one that does not read)."""
    kept = store.checkpoint(show_id)
    if kept is None:
        return None
    try:
        since = json.loads(kept["state"])
        if since["lines"] != kept["lines"]:
            raise ValueError(f"it says it covers {since['lines']!r} lines, its row {kept['lines']!r}")
        return replay(store.show_log(show_id, after=since["lines"]), events, since=since)
    except (ValueError, TypeError, KeyError, AttributeError, BadInput) as e:
        log.warning("show %s: its checkpoint cannot be used (%s); replaying its whole journal", show_id, e)
        return None
