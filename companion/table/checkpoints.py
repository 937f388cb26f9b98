"""Checkpoints of the running show, kept by the journal's writer so a restart replays only the journal's tail.

The writer follows the show on its own: it applies every line it writes,
read back from the very text it stores, to a show of its own
(`apply_lines`, never the live show, which has run on past its last line).
So a checkpoint is, by construction, `checkpoint(apply_lines(prefix),
len(prefix))` of the journal on disk, and goes into the same transaction as
the lines it covers. One is written every LINES lines or SECONDS seconds
(whichever comes first, and never more often in lines than a large
checkpoint's size asks for, so its writing costs a few bytes a line at most);
a finished show's checkpoint is deleted with its end.

>>> from companion.records import Store
>>> from companion.records.shows import JournalLine
>>> from companion.skyrockets import TRAINING, setup_line
>>> from companion.skyrockets.show import Setup
>>> store = Store(":memory:")
>>> show_id = store.begin_show(TRAINING, False, setup_line(Setup()), 0.0, 1.0)
>>> keeper = CheckpointKeeper(store, every_lines=2)
>>> flips = [JournalLine(show_id, {"t": t, "type": "flip", "timer": "red"}) for t in (1.0, 2.0)]
>>> [write.lines for write in keeper.follow(flips)]
[3]
"""

import json
import logging
import time

from companion.errors import BadInput
from companion.records.shows import JournalLine, JournalWrite, ShowCheckpoint, ShowEnd
from companion.skyrockets import Show
from companion.skyrockets.log import LogReader, apply_line, apply_lines, checkpoint, parse_setup

log = logging.getLogger(__name__)

LINES = 200  # at most this many lines to replay after a restart (a few milliseconds on a Pi)
SECONDS = 30.0
BYTES_PER_LINE = 64  # a checkpoint of S bytes waits for at least S / BYTES_PER_LINE lines after the last


class CheckpointKeeper:
    """The show of the journal's lines so far (the writer's own), and when to checkpoint it next."""

    def __init__(self, store, *, every_lines: int = LINES, every_s: float = SECONDS, clock=time.monotonic):
        self.store, self.every_lines, self.every_s, self.clock = store, every_lines, every_s, clock
        self._show_id: int | None = None
        self._broken: int | None = None  # a show whose journal does not read: no checkpoints for it
        self._reader = self._show = None
        self._lines = self._saved_lines = 0
        self._saved_at = clock()
        self._gap = every_lines

    def follow(self, batch: list[JournalWrite]) -> list[ShowCheckpoint]:
        """Apply the batch's lines; the checkpoint to write with them, if one is due."""
        for write in batch:
            if isinstance(write, ShowEnd):
                self.forget()
            elif isinstance(write, JournalLine) and write.show_id != self._broken:
                if write.show_id != self._show_id and not self._load(write.show_id):
                    continue
                self._apply(json.dumps(write.line))
        if self._show is None or self._lines == self._saved_lines:
            return []
        if self._lines - self._saved_lines < self._gap and self.clock() - self._saved_at < self.every_s:
            return []
        state = checkpoint(self._show, self._lines)
        size = len(json.dumps(state))
        self._saved_lines, self._saved_at = self._lines, self.clock()
        self._gap = max(self.every_lines, size // BYTES_PER_LINE)
        return [ShowCheckpoint(self._show_id, self._lines, state)]

    def forget(self) -> None:
        """Start afresh from the store at the next line (a write failed, or the show ended)."""
        self._show_id = self._reader = self._show = None

    def _apply(self, text: str) -> None:
        line = self._reader.read(text)
        if line is not None:
            apply_line(self._show, line)
        self._lines += 1

    def _load(self, show_id: int) -> bool:
        """Follow show `show_id` from what the store holds of it (its checkpoint and the lines after it)."""
        self.forget()
        events = self.store.events()
        since, kept = None, self.store.checkpoint(show_id)
        if kept is not None:
            try:
                since = json.loads(kept["state"])
                Show.restore(parse_setup(since["setup"], events), since["show"], notices=False)
            except (ValueError, TypeError, KeyError, AttributeError, BadInput):
                since = None  # recovery says so, if it ever needs it; here the whole journal does
        after = since["lines"] if since is not None else 0
        tail = self.store.show_log(show_id, after=after) or []
        try:
            show = apply_lines(tail, events, since=since, notices=False)
        except BadInput as e:
            log.warning("show %s: no checkpoints for it (its journal does not read: %s)", show_id, e)
            self._broken = show_id
            return False
        self._reader = LogReader(events)
        self._reader.setup, self._reader.line, self._reader.last_t = show.setup, after + len(tail), show.now
        self._show_id, self._show = show_id, show
        self._lines = self._saved_lines = after + len(tail)
        self._saved_at, self._gap = self.clock(), self.every_lines
        return True
