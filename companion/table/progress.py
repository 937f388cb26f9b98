"""The table's progress figures (the web's Progress port): the records read through the kept figures, each figure
computed by companion.progress once per change of the records (and, for tonight, per night).

The nights are the table's local time's: the zone the system is set to (the
setup of a Pi card sets it), read once as the table starts.
"""

import logging
import os
import threading
from datetime import datetime, tzinfo
from pathlib import Path

from companion.progress.campaign import campaign_map
from companion.progress.nights import night_of
from companion.progress.players import GAME_KINDS, per_player
from companion.progress.tonight import tonight
from companion.progress.trouble import trouble
from companion.records.figures import FigureBook

log = logging.getLogger(__name__)

LOCALTIME = Path("/etc/localtime")


def local_zone() -> tzinfo:
    """The system's time zone with its daylight-saving rules (TZ, else /etc/localtime), else its offset now."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # here: it reads the interpreter's build settings

    try:
        if os.environ.get("TZ"):
            return ZoneInfo(os.environ["TZ"].lstrip(":"))
        with LOCALTIME.open("rb") as file:
            return ZoneInfo.from_file(file, key="localtime")
    except (OSError, ValueError, ZoneInfoNotFoundError):
        return datetime.now().astimezone().tzinfo


class TableProgress:
    """Campaign, what goes wrong, the bird games per player and tonight, from the table's records."""

    def __init__(self, store, clock, *, caught_up=lambda: True, zone: tzinfo | None = None):
        self.store, self.clock = store, clock
        self._zone = zone
        self.book = FigureBook(store.database, clock)
        self._caught_up = caught_up
        self._lock = threading.Lock()
        self._figures: tuple[tuple, dict] = ((), {})  # (the records' mark, {key: (the counts it read, figures)})
        self._stopped = threading.Event()
        self._filler: threading.Thread | None = None

    @property
    def zone(self) -> tzinfo:
        """The time zone nights are counted in: the one given, else the system's, read when first asked for (a
        restart does not wait for it)."""
        if self._zone is None:
            self._zone = local_zone()
        return self._zone

    def start(self) -> None:
        """Count the shows' and games' figures not kept yet (after an upgrade, all of them) on a thread of their
        own, so that no page waits for them."""
        self._filler = threading.Thread(target=self.fill, name="progress-figures", daemon=True)
        self._filler.start()

    def stop(self) -> None:
        self._stopped.set()
        self.filled()

    def filled(self, timeout: float | None = None) -> bool:
        """Wait for the counting thread to end (`timeout` seconds at most): whether it has."""
        if self._filler is not None:
            self._filler.join(timeout)
        return self._filler is None or not self._filler.is_alive()

    def fill(self) -> None:
        """Replay every journal and score every game not yet (a page's budget at a time: pages get in between)."""
        try:
            self.book.fill(self.store.events, self._stopped)
        except Exception:  # the figures are a courtesy: a page counts what is left as it is read
            log.exception("the progress figures could not be counted ahead of the pages")

    def campaign(self) -> dict:
        """The 30 events as a map with each one's attempts, and stars and wins over nights."""
        return self._figure(("campaign",), lambda r: campaign_map(r.shows, self.zone, self._names()))

    def trouble(self) -> dict:
        """Run-outs by glass and by countdown space, how close each show came, tokens and time per show."""
        return self._figure(("trouble",), lambda r: {**trouble(r.shows),
                                                    "counting": _how_far(r.counting, "counted", "shows")},
                            reads=("counting",))

    def players(self, kind: str) -> dict:
        """One bird game's players: games, wins, average, best, scores over games, head to head."""
        if kind not in GAME_KINDS:
            raise KeyError(kind)
        return self._figure(("players", kind), lambda r: {**per_player(r.games, kind),
                                                          "scoring": _how_far(r.scoring, "scored", "games")},
                            reads=("scoring",))

    def tonight(self) -> dict:
        """The current night across the three games."""
        now = self.clock.wall()
        return self._figure(("tonight", night_of(now, self.zone)), lambda r: tonight(r.shows, r.games, now, self.zone),
                            reads=("scoring",))

    def _names(self) -> dict[str, str]:
        return {event_id: event.name for event_id, event in self.store.events().items()}

    def _figure(self, key: tuple, compute, reads: tuple[str, ...] = ()) -> dict:
        """A figure, computed once per change of the records, and again as the first counting moves on if it
        `reads` those counts (the reading's counting, scoring): the campaign is not drawn anew at every step."""
        self._caught_up()
        records = self.book.read(self.store.events())
        with self._lock:
            mark, kept = self._figures
            if mark != records.mark:
                kept = {}
                self._figures = (records.mark, kept)
            moved = tuple(getattr(records, name) for name in reads)
            if key not in kept or kept[key][0] != moved:
                kept[key] = (moved, compute(records))
            return kept[key][1]


def _how_far(done: tuple[int, int] | None, part: str, whole: str) -> dict | None:
    """How far the first counting has got, as the JSON names it (None once all is counted)."""
    return {part: done[0], whole: done[1]} if done else None
