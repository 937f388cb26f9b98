"""The score pad's figures of a set of shows, written once: the table's pad and the hall's board both count with it.

An event's best stars are those of its best win (a loss has none); its
attempts are the shows won or lost (an aborted show is no attempt).

>>> import sqlite3
>>> db = sqlite3.connect(":memory:")
>>> _ = db.execute("CREATE TABLE shows (event_id, event_name, outcome, stars, started)")
>>> _ = db.executemany("INSERT INTO shows VALUES ('a', 'A', ?, ?, ?)", [("win", 2, "x"), ("loss", 0, "y"),
...                                                                   ("aborted", 0, "z")])
>>> db.execute(score_pad("shows", by="event_id")).fetchall()
[('a', 'A', 2, 2, 1, 'z')]
"""

BEST_STARS = "MAX(CASE WHEN outcome = 'win' THEN stars END)"
ATTEMPTS = "SUM(outcome IN ('win', 'loss'))"
WINS = "SUM(outcome = 'win')"


def score_pad(source: str, *, by: str, name: str = "event_name", where: str = "") -> str:
    """A SELECT of (`by`..., name, best stars, attempts, wins, last started) per `by` over the shows in `source`.

    `source`, `by`, `name` and `where` are our own column names and conditions, never outside text.
    """
    return (f"SELECT {by}, MAX({name}) AS name, {BEST_STARS} AS best_stars, {ATTEMPTS} AS attempts, {WINS} AS wins,"
            f" MAX(started) AS last_played FROM {source}"
            f"{' WHERE ' + where if where else ''} GROUP BY {by}")
