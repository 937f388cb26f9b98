"""A show's journal on its way to the store: every line stays pending until the store has it.

The runtime thread never waits for the disk: it queues each write (a
journal line, a show's end, a cradle's orientation) and goes on. A writer
thread of its own, woken by the first write, lets WRITE_WINDOW_S pass (the
change it belongs to is meanwhile sent to the phones, the writer's work not
in its way), then takes everything queued so far and commits it in one
transaction — one fsync for all of it (group commit) — and only then drops
it from the queue. A write that fails (the card is full, another process
holds the database) stays queued and is retried with a growing pause; the
problem is logged and shown on the page until a write goes through. A
request that promises durability waits for its mark to be committed
(`wait_for`), and so does a read of the shows' records (`caught_up`): a
page opened as a show ends shows all of it. Nothing else waits.

Without its thread (tests that drive the table by hand) `flush` writes in
the caller's thread, with the same keep-until-written rule.

With the lines, the writer keeps checkpoints of the show (checkpoints.py),
so that a restart replays only the journal's tail.
"""

import logging
import sqlite3
import threading

from companion.records.shows import CradleOrientation, JournalLine, JournalWrite, ShowEnd
from companion.table.checkpoints import CheckpointKeeper

log = logging.getLogger(__name__)

WRITE_WINDOW_S = 0.005  # after the first write is queued: the change reaches the phones before the disk
RETRY_FIRST_S = 0.05
RETRY_MAX_S = 5.0
DRAIN_S = 5.0  # how long stopping may wait for the last writes


class Journal:
    """The writes of the show in progress that the store has not taken yet."""

    def __init__(self, store, *, on_problem=lambda: None, checkpoints: CheckpointKeeper | None = None):
        self.store = store
        self.checkpoints = checkpoints or CheckpointKeeper(store)
        self.show_id: int | None = None
        self.problem: str | None = None  # why the last write failed, until one succeeds
        self._on_problem = on_problem
        self._ops: list[JournalWrite] = []
        self._queued = self._committed = 0
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._idle = False  # the writer waits for something to write: only then does a flush wake it

    # ---- what the table queues (runtime thread) ---------------------------------

    def begin(self, show_id: int | None) -> None:
        """Lines from now on belong to show `show_id`."""
        self.show_id = show_id

    def add(self, line: dict) -> None:
        self._queue(JournalLine(self.show_id, line))

    def finish(self, t: float, outcome: str, stars: int, wall: float) -> None:
        """Close the show as `outcome` with an `end` line at `t`, after everything queued before."""
        self._queue(ShowEnd(self.show_id, {"t": t, "type": "end"}, outcome, stars, wall))

    def orientation(self, cradles: dict) -> None:
        """Which way round each cradle holds its glass, kept so a restart reads the sensors right."""
        if cradles and self.show_id is not None:
            self._queue(CradleOrientation(self.show_id, {c: k.swapped for c, k in cradles.items()}))

    def _queue(self, op: JournalWrite) -> None:
        with self._cond:
            self._ops.append(op)
            self._queued += 1

    def flush(self) -> None:
        """Have everything queued written: by the writer thread if it runs, else here and now."""
        if self._thread is not None:
            with self._cond:
                if self._ops and self._idle:  # woken only for something to write, and only when it waits for it
                    self._cond.notify_all()
        elif self._ops:
            self._write_batch()

    # ---- durability ----------------------------------------------------------------

    def mark(self) -> int:
        """A mark for everything queued so far."""
        with self._cond:
            return self._queued

    def wait_for(self, mark: int, timeout: float) -> bool:
        """Whether everything up to `mark` is written, waiting up to `timeout` s for it."""
        with self._cond:
            return self._cond.wait_for(lambda: self._committed >= mark, timeout)

    def caught_up(self, timeout: float) -> bool:
        """Whether everything queued so far is written (a read of the records then sees it), waiting up to
        `timeout` s for the writer. Without one, the table's own thread writes at the end of each step:
        another thread writing too could put lines out of order, so it only looks; nor does it wait while
        writes are failing (the page says so): a reader then gets the records as they stand."""
        if self._thread is None or self.problem is not None:
            return not self.pending
        return self.wait_for(self.mark(), timeout)

    @property
    def pending(self) -> int:
        with self._cond:
            return len(self._ops)

    # ---- the writer --------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="journal", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Write what is left (for up to DRAIN_S), then stop the writer."""
        if self._thread is None:
            self.flush()
            return
        with self._cond:
            self._cond.wait_for(lambda: not self._ops, DRAIN_S)
            self._stopping = True
            self._cond.notify_all()
        self._thread.join(timeout=DRAIN_S)
        self._thread = None
        if self._ops:
            log.error("%d journal writes could not be saved before stopping: %s", len(self._ops), self.problem)

    def _run(self) -> None:
        pause = RETRY_FIRST_S
        while True:
            with self._cond:
                self._idle = True
                self._cond.wait_for(lambda: self._ops or self._stopping)
                self._idle = False
                self._cond.wait_for(lambda: self._stopping, WRITE_WINDOW_S)
                if self._stopping:
                    return
            if self._write_batch():
                pause = RETRY_FIRST_S
            else:
                with self._cond:
                    self._cond.wait_for(lambda: self._stopping, pause)
                pause = min(pause * 2, RETRY_MAX_S)

    def _write_batch(self) -> bool:
        with self._cond:
            batch = list(self._ops)
        try:
            self.store.write(batch + self._checkpoint(batch))
        except (sqlite3.Error, OSError) as e:
            self.checkpoints.forget()  # it followed lines that are not written: it starts again from the store
            self._set_problem(f"the journal cannot be saved ({e}); {len(batch)} writes kept and retried")
            return False
        with self._cond:
            del self._ops[:len(batch)]
            self._committed += len(batch)
            self._cond.notify_all()
        self._set_problem(None)
        return True

    def _checkpoint(self, batch: list[JournalWrite]) -> list[JournalWrite]:
        """The checkpoint due with this batch, if any (none at all rather than a failed write)."""
        try:
            return self.checkpoints.follow(batch)
        except Exception:  # a checkpoint only saves a restart time: never let it cost a journal line
            log.exception("the show's checkpoint could not be taken; a restart replays its whole journal")
            self.checkpoints.forget()
            return []

    def _set_problem(self, problem: str | None) -> None:
        if problem == self.problem:
            return
        if problem is None:
            log.info("the journal is saved again")
        elif self.problem is None:
            log.error("%s", problem)
        self.problem = problem
        self._on_problem()
