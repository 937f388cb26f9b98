"""What the table answers to readers on any thread: its state as published, and its records.

The web pages, the JSON API and the bridges read the table through these
methods only; none of them reaches into the store or the config.
"""

from companion.skyrockets.snapshot import carried


class Records:
    """The reading side of a Table (mixed into it): snapshots and the store's records."""

    @property
    def show(self):
        """The show in progress (a companion.skyrockets.Show), or None."""
        return self.live.show

    @property
    def show_id(self) -> int | None:
        return self.live.show_id

    @property
    def has_strip(self) -> bool:
        """Whether an LED strip is fitted (the page then draws it)."""
        return self.rig.strip is not None

    def snapshot(self) -> dict:
        """The latest published state of the table."""
        return self.publisher.snapshot()

    def current(self) -> dict:
        """The show as it is now: the latest snapshot, its running glasses drained to this instant."""
        return carried(self.snapshot(), self.show_time())

    def wait_for_change(self, after_seq: int, timeout: float) -> dict:
        """The snapshot as soon as its seq is past `after_seq`, or the current one after `timeout` s."""
        return self.publisher.wait_for_change(after_seq, timeout)

    def snapshot_text(self, snapshot: dict) -> str:
        """A published snapshot as compact JSON for the live feed, as of now: serialised once for all phones."""
        return self.publisher.text(snapshot, self.show_time())

    def strip_frame(self, after: int, timeout: float) -> dict | None:
        """The LED strip as last drawn, as soon as a frame newer than `after` exists (None: no strip)."""
        return self._frames.wait(after, timeout)

    def events(self) -> list[dict]:
        return [dict(e.to_json(), builtin=e.builtin) for e in self.store.events().values()]

    def scorepad(self) -> dict:
        """Per event: best stars, attempts, last played; and the start-player rotation."""
        return self.store.scorepad()

    def shows(self) -> list[dict]:
        """Past shows, newest first: id, event, outcome, stars, started."""
        return self.store.shows()

    def show_record(self, show_id: int) -> dict | None:
        return self.store.show(show_id)

    def show_log(self, show_id: int) -> list[str] | None:
        """One show's journal as a show log, or None."""
        return self.store.show_log(show_id)
