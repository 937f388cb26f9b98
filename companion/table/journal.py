"""A show's journal on its way to the store: every input line, pending until it is written.

A replay of the journal is the live show, so every line the show applied
is kept here in order and written after the step that made it (phones do
not wait for the disk). `finish` writes what is pending and the `end` line.
"""

import logging

log = logging.getLogger(__name__)


class Journal:
    """The lines of the show in progress that the store has not taken yet."""

    def __init__(self, store):
        self.store = store
        self.show_id: int | None = None
        self._pending: list[dict] = []

    def begin(self, show_id: int | None) -> None:
        """Lines from now on belong to show `show_id`."""
        self.show_id = show_id
        self._pending = []

    def add(self, line: dict) -> None:
        self._pending.append(line)

    def flush(self) -> None:
        """Write every pending line."""
        if self._pending and self.show_id is not None:
            lines, self._pending = self._pending, []
            self.store.append(self.show_id, lines)

    def finish(self, t: float, outcome: str, stars: int, wall: float) -> None:
        """Write what is pending, then close the show with an `end` line at `t`."""
        self.flush()
        self.store.finish_show(self.show_id, {"t": t, "type": "end"}, outcome, stars, wall)

    def orientation(self, cradles: dict) -> None:
        """Which way round each cradle holds its glass, kept so a restart reads the sensors right."""
        if cradles and self.show_id is not None:
            self.store.set_orientation(self.show_id, {c: k.swapped for c, k in cradles.items()})
