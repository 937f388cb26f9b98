"""What the table answers to readers on any thread: its state as published, and its records.

The web pages, the JSON API and the bridges read the table through these
methods only; none of them reaches into the store or the config.
"""

from companion.records import festivals as festival_records
from companion.records import history
from companion.skyrockets.festivals import (MAX_FESTIVALS, Festival, campaign, current_festival, custom_festival,
                                            next_event, progress)
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

    def write_to(self, writer) -> None:
        """Have `writer(seq, text)` called on the runtime thread with each new state's text as it is published."""
        self.publisher.write_to(writer)

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

    def shows(self, limit: int | None = 100) -> list[dict]:
        """Past shows, newest first: id, event, outcome, stars, started."""
        return self.store.shows(limit)

    def show_record(self, show_id: int) -> dict | None:
        return self.store.show(show_id)

    def show_log(self, show_id: int) -> list[str] | None:
        """One show's journal as a show log, or None."""
        return self.store.show_log(show_id)

    # ---- festivals and the whole history -------------------------------------

    def festival_pad(self) -> dict:
        """The campaign's festivals and the custom ones with their progress, the next event, and who starts."""
        pad = self.store.scorepad()
        rows = {row["event"]: row for row in pad["events"]}
        known = self.store.events()
        customs = {f"custom-{c['id']}": c for c in festival_records.festivals(self.store.database)}
        plan = campaign() + [Festival(key, tuple(c["events"]), c["name"], custom=True) for key, c in customs.items()]
        shown = progress(plan, rows)
        for festival in shown:
            if festival["custom"]:
                festival["id"] = customs[festival["key"]]["id"]  # what deletes it
            for row in festival["events"]:
                event = known.get(row["event"])
                row["name"] = event.name if event else None
                row["entered"] = event is not None
        upcoming = next_event(shown)
        return {"festivals": shown, "next_event": upcoming, "current": (current_festival(shown) or {}).get("key"),
                "next_entered": upcoming in known if upcoming else False,
                "players": pad["players"], "start_player": pad["start_player"]}

    def save_festival(self, data) -> dict:
        """Keep a custom festival of any events this table knows (or any numbered event)."""
        festival = custom_festival(data, self.store.events())
        festival_id = festival_records.save_festival(self.store.database, festival.name, list(festival.events),
                                                     self.clock.wall(), MAX_FESTIVALS)
        return {"id": festival_id, "name": festival.name, "events": list(festival.events)}

    def delete_festival(self, festival_id: int) -> bool:
        """Forget a custom festival; False if there is none of that id."""
        return festival_records.delete_festival(self.store.database, festival_id)

    def export_history(self) -> str:
        """Every finished record of the table as one history file (JSON Lines)."""
        return history.export_history(self.store.database, wall=self.clock.wall())

    def import_history(self, text: str) -> dict:
        """A history file read into this table, which must be fresh; how many records of each kind came in."""
        return history.import_history(self.store.database, text, self._games)
