"""The table's ledger: what its records answer to readers on any thread (the web's Ledger port).

The score pad, the past shows' pages, the JSON API and the broker's bridge
read the records through these methods only; none of them reaches into the
store. A read of the shows first lets the journal catch up, so that what a
phone was told has happened (a run-out, a show's end) is in what it reads.
"""

from collections.abc import Iterator

from companion.records import festivals as festival_records
from companion.players import check_players
from companion.ports import MAX_ROW_ID
from companion.records import history
from companion.skyrockets.festivals import (MAX_FESTIVALS, Festival, campaign, current_festival, custom_festival,
                                            next_event, progress)


class TableLedger:
    """The table's records (ports.Ledger): events, past shows, the score pad, festivals, the whole history.

    An id past what the records can hold is not found, like any other id that is not there.
    """

    def __init__(self, store, clock, shelf, *, caught_up=lambda: True):
        self.store, self.clock = store, clock
        self._games = shelf  # the board games' shelf: an imported game is checked by its kind, as the API checks it
        self._caught_up = caught_up  # the show in progress's writes all in the store (or given up waiting)

    def table_id(self) -> str:
        """This table's own id, kept in its records (a play it sends away is told apart from another table's)."""
        return self.store.table_id()

    def events(self) -> list[dict]:
        return [dict(e.to_json(), builtin=e.builtin) for e in self.store.events().values()]

    def scorepad(self) -> dict:
        """Per event: best stars, attempts, last played; and the start-player rotation."""
        self._caught_up()
        return self.store.scorepad()

    def shows(self, limit: int | None = 100) -> list[dict]:
        """Past shows, newest first: id, event, outcome, stars, started."""
        self._caught_up()
        return self.store.shows(limit)

    def each_show(self) -> Iterator[dict]:
        """Every show, oldest first, each read as it is asked for (a download of them all)."""
        self._caught_up()
        return self.store.each_show()

    def show_record(self, show_id: int) -> dict | None:
        self._caught_up()
        return self.store.show(show_id) if show_id <= MAX_ROW_ID else None

    def show_log(self, show_id: int) -> list[str] | None:
        """One show's journal as a show log, or None."""
        self._caught_up()
        return self.store.show_log(show_id) if show_id <= MAX_ROW_ID else None

    def set_players(self, names: list) -> dict:
        """The players in clockwise order from the next start player; the score pad as it is then."""
        self.store.set_players(check_players(names))
        return self.store.scorepad()

    # ---- festivals and the whole history -------------------------------------

    def festival_pad(self) -> dict:
        """The campaign's festivals and the custom ones with their progress, the next event, and who starts."""
        self._caught_up()
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
        return festival_id <= MAX_ROW_ID and festival_records.delete_festival(self.store.database, festival_id)

    def export_history(self) -> str:
        """Every finished record of the table as one history file (JSON Lines)."""
        self._caught_up()
        return history.export_history(self.store.database, wall=self.clock.wall())

    def history_pieces(self) -> Iterator[str]:
        """The same file in pieces of whole lines, each read as it is asked for (history.history_pieces)."""
        self._caught_up()
        return history.history_pieces(self.store.database, wall=self.clock.wall())

    def import_history(self, text: str) -> dict:
        """A history file read into this table, which must be fresh; how many records of each kind came in."""
        return history.import_history(self.store.database, text, self._games)
