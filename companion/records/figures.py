"""The records as the progress figures read them: every finished show and board game, each with its own figures.

A show's figures come from its journal replayed, a game's from its state
scored by its rules (companion.progress); each is computed once and kept in
the `figures` table under a mark of the record it was computed from (a show's
outcome and end, a game's version), so a show that ends or a game saved anew
is computed afresh and nothing else is. The whole reading is kept in memory
under the records' last change (`mark`): a page asked again before anything
changed reads nothing from the file but that mark, and after a change only
the records that changed are read whole.

A file with many shows and games and no figures kept (the first reading
after the upgrade that brought them: about a millisecond a journal or a game)
is not replayed in one go behind a page: a reading given a clock replays and
scores for REPLAY_BUDGET_S at most and says how far it got (`counting`,
`scoring`); `fill` does the rest, a budget at a time so the pages get in
between, on the table's own thread.

>>> from companion.records.shows import Store
>>> store = Store(":memory:")
>>> book = FigureBook(store.database)
>>> read = book.read({})
>>> read.shows, read.games, read.counting, book.read({}) is read
([], [], None, True)
"""

import json
import logging
import threading
from typing import NamedTuple

from companion.errors import BadInput
from companion.progress.players import GAME_KINDS, game_summary
from companion.progress.shows import show_figures

log = logging.getLogger(__name__)

FINISHED = "('win', 'loss', 'aborted')"  # the outcomes of a finished show, as SQL: a running show has no figures yet
KINDS = "(" + ", ".join(f"'{kind}'" for kind in GAME_KINDS) + ")"  # the board games with figures, as SQL
BATCH = 50  # figures written per transaction: the journal's writer never waits long behind a first reading
IDS_AT_ONCE = 500  # shows read by id in one query: well inside SQLite's limit of parameters
REPLAY_BUDGET_S = 0.05  # how long a reading replays journals and scores games: half a page's 100 ms; the rest after

# The records' last change, read through indexes and small tables only (it is read on every page): a show begun
# moves the count and the largest id, a show ended (or set aside) the count of running shows; a game saved or
# removed moves its count, version or time. A finished show never changes again.
MARK = ("SELECT (SELECT COUNT(*) FROM shows), (SELECT MAX(id) FROM shows),"
        " (SELECT COUNT(*) FROM shows WHERE outcome = 'running'),"
        " (SELECT COUNT(*) FROM games), (SELECT MAX(updated) FROM games), (SELECT TOTAL(version) FROM games)")


class Records(NamedTuple):
    """One reading: the records' mark, the finished shows and the board games, oldest first; while some shows'
    journals are still to be replayed, `counting` (the shows counted, the finished shows: those not counted yet
    are in `shows` with no figures), and while some games are still to be scored, `scoring` (the games scored,
    the games: those not scored yet are left out of `games`)."""

    mark: tuple
    shows: list[dict]
    games: list[dict]
    counting: tuple[int, int] | None = None
    scoring: tuple[int, int] | None = None


class FigureBook:
    """The finished shows and the board games with their figures, read through the kept figures."""

    def __init__(self, database, clock=None):
        self.database = database
        self.clock = clock  # its monotonic() times a reading's work; None: a reading replays and scores everything
        self._lock = threading.Lock()  # one reading at a time: two pages never replay the same journals twice
        self._kept: Records | None = None
        # What the last reading held, so a change reads only the records that changed: each finished show by id
        # (with the mark it was read at), each game by id as (its version, its figures or None).
        self._held_shows: tuple[dict[int, dict], dict[int, str]] = ({}, {})
        self._held_games: dict[int, tuple[str, dict | None]] = {}
        self._unreplayed: list[int] = []  # shows held with no figures yet, their journals left for a later reading
        self._until: float | None = None  # when the reading under way stops replaying (the clock's monotonic)

    def mark(self) -> tuple:
        return tuple(self.database.read(MARK)[0])

    def read(self, known_events: dict) -> Records:
        """The records now; the reading kept if nothing changed since (`known_events`: to replay custom events)."""
        with self._lock:
            self._until = self.clock.monotonic() + REPLAY_BUDGET_S if self.clock else None
            mark = self.mark()
            if self._kept is None or self._kept.mark != mark:
                shows, counting = self._shows(known_events)
                games, scoring = self._games()
                self._kept = Records(mark, shows, games, counting, scoring)
            elif self._unreplayed:
                self._replay_left(known_events)
            elif self._kept.scoring:
                games, scoring = self._games()
                self._kept = self._kept._replace(games=games, scoring=scoring)
            return self._kept

    def fill(self, known_events, stopped=None) -> None:
        """Replay every journal and score every game not done yet, a reading's budget at a time so pages get in between
        (`known_events()`: the custom events now; `stopped`: an Event that ends it early, as the table stops)."""
        while not (stopped and stopped.is_set()):
            read = self.read(known_events())
            if not (read.counting or read.scoring):
                return

    def _replay_left(self, known_events: dict) -> None:
        """Replay, for a budget, the journals the reading kept left, without reading the records again."""
        held, held_marks = self._held_shows
        left = [i for i in self._unreplayed if i in held]
        counted = self._replay([(held[i], held_marks[i]) for i in left], known_events)
        self._unreplayed = left[counted:]
        total = len(held)
        self._kept = self._kept._replace(
            counting=(total - len(self._unreplayed), total) if self._unreplayed else None)

    def _shows(self, known_events: dict) -> tuple[list[dict], tuple[int, int] | None]:
        """Every finished show with its figures: those read before and unchanged as they were, the others read
        (or, never computed or computed from another state of the show, replayed and kept, within the budget);
        and how many are counted of how many while some are not."""
        marks = {r[0]: _show_mark(r[1], r[2], r[3]) for r in self.database.read(
            f"SELECT id, outcome, ended, started FROM shows WHERE outcome IN {FINISHED} ORDER BY id")}
        held, held_marks = self._held_shows
        changed = [show_id for show_id, mark in marks.items() if held_marks.get(show_id) != mark]
        missing = []
        for start in range(0, len(changed), IDS_AT_ONCE):
            ids = changed[start:start + IDS_AT_ONCE]
            for row in self.database.read(
                    "SELECT s.id, s.event_id, s.event_name, s.outcome, s.stars, s.started, s.started_wall, s.ended,"
                    " f.mark, f.data FROM shows s LEFT JOIN figures f ON f.kind = 'show' AND f.id = s.id"
                    f" WHERE s.id IN ({','.join('?' * len(ids))})", ids):
                show = {"id": row["id"], "event": row["event_id"], "event_name": row["event_name"],
                        "outcome": row["outcome"], "stars": row["stars"], "started": row["started"],
                        "wall": row["started_wall"]}
                mark = _show_mark(row["outcome"], row["ended"], row["started"])
                if row["mark"] == mark:
                    show["figures"] = json.loads(row["data"])
                else:
                    missing.append((show, mark))
                held[show["id"]], held_marks[show["id"]] = show, mark
        again = set(changed)
        missing += [(held[i], held_marks[i]) for i in self._unreplayed if i not in again and i in marks]
        missing.sort(key=lambda shown: shown[0]["id"])
        counted = self._replay(missing, known_events)
        for show, _ in missing[counted:]:  # held as played, and replayed by a later reading
            show["figures"] = None
        self._unreplayed = [show["id"] for show, _ in missing[counted:]]
        self._held_shows = ({i: held[i] for i in marks}, {i: held_marks[i] for i in marks})
        pending = len(self._unreplayed)
        return list(self._held_shows[0].values()), (len(marks) - pending, len(marks)) if pending else None

    def _spent(self) -> bool:
        """Whether the reading under way has used its budget."""
        return self._until is not None and self.clock.monotonic() >= self._until

    def _replay(self, missing: list[tuple[dict, str]], known_events: dict) -> int:
        """Replay and keep the shows `missing`, in order, until the budget is spent (one at least, so each
        reading gets further): how many were."""
        batch, done = [], 0
        for show, mark in missing:
            show["figures"] = self._replayed(show["id"], known_events)
            batch.append((show["id"], mark, show["figures"]))
            done += 1
            spent = self._spent()
            if len(batch) == BATCH or spent:
                self._keep("show", batch)
                batch = []
            if spent:
                break
        self._keep("show", batch)
        return done

    def _replayed(self, show_id: int, known_events: dict) -> dict | None:
        lines = [r[0] for r in self.database.read("SELECT line FROM journal WHERE show_id = ? ORDER BY n",
                                                  (show_id,))]
        try:
            return show_figures(lines, known_events)
        except BadInput as e:  # counted as a show, left out of the figures that need its journal
            log.warning("show %s: its journal does not replay (%s): left out of the progress figures", show_id, e)
            return None

    def _games(self) -> tuple[list[dict], tuple[int, int] | None]:
        """Every board game with figures, by when it was last saved: unchanged ones as read before, the others
        read or scored while the budget lasts (one at least); and how many are scored of how many while some
        are not."""
        rows = self.database.read(f"SELECT id, kind, version, updated FROM games WHERE kind IN {KINDS}"
                                  " ORDER BY updated, id")
        held = self._held_games
        games, fresh, read, left = {}, [], 0, 0
        for game_id, kind, version, updated in reversed(rows):  # the newest first: tonight's games before others
            mark = str(version)
            if game_id in held and held[game_id][0] == mark:
                games[game_id] = held[game_id]
                continue
            if left or (read and self._spent()):  # read by a later reading
                left += 1
                continue
            read += 1
            kept = self.database.read("SELECT data FROM figures WHERE kind = ? AND id = ? AND mark = ?",
                                      (kind, game_id, mark))
            if kept:
                summary = json.loads(kept[0]["data"])
            else:
                summary = self._scored(game_id, kind)
                fresh.append((kind, game_id, mark, summary))
            games[game_id] = (mark, None if summary is None else {"id": game_id, "wall": updated, **summary})
        for kind in GAME_KINDS:
            self._keep(kind, [(game_id, mark, summary) for k, game_id, mark, summary in fresh if k == kind])
        self._held_games = games
        scoring = (len(rows) - left, len(rows)) if left else None
        return [games[r[0]][1] for r in rows if r[0] in games and games[r[0]][1] is not None], scoring

    def _scored(self, game_id: int, kind: str) -> dict | None:
        rows = self.database.read("SELECT state FROM games WHERE id = ?", (game_id,))
        try:
            return game_summary(kind, json.loads(rows[0]["state"])) if rows else None
        except (BadInput, ValueError, KeyError, TypeError) as e:  # a damaged row: the shelf refuses it too
            log.warning("%s game %s does not read (%s): left out of the progress figures", kind, game_id, e)
            return None

    def _keep(self, kind: str, rows: list[tuple]) -> None:
        if not rows:
            return
        with self.database.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO figures (kind, id, mark, data) VALUES (?, ?, ?, ?)",
                           [(kind, record_id, mark, json.dumps(data)) for record_id, mark, data in rows])


def _show_mark(outcome, ended, started) -> str:
    """What a show's figures were computed from: it ended once, so its outcome and end name that state."""
    return f"{outcome}|{ended}|{started}"
