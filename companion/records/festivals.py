"""Custom festivals in the table's records, and the records' schema version.

The campaign's festivals are fixed (companion.skyrockets.festivals); the
festivals players make of any events are kept here, one row each. The
schema version lives in the `meta` table: version 1 is the file as the
table first wrote it, version 2 adds the custom festivals. `migrate` brings
an older file up to date when the table opens it.

>>> from companion.records.database import Database
>>> from companion.records.shows import SCHEMA as SHOWS
>>> db = Database(":memory:", SHOWS + SCHEMA)
>>> migrate(db), migrate(db)
(2, 2)
"""

import json
import logging

from companion import jsonin
from companion.errors import BadInput
from companion.records.database import Database, DamagedRow, iso

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS festivals (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    events TEXT NOT NULL,
    saved TEXT NOT NULL
);
"""

# Each step brings the file from the version before it to its own; the tables it needs are in SCHEMA.
MIGRATIONS = {2: ()}


def schema_version(db) -> int:
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return int(row["value"]) if row and str(row["value"]).isdigit() else 1


def migrate(database: Database) -> int:
    """Bring the file to SCHEMA_VERSION in one transaction; the version it is now at."""
    with database.transaction() as db:
        version = schema_version(db)
        for step in range(version + 1, SCHEMA_VERSION + 1):
            for sql in MIGRATIONS[step]:
                db.execute(sql)
            version = step
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)", (str(version),))
    return version


def save_festival(database: Database, name: str, events: list[str], wall: float, limit: int) -> int:
    """Keep a custom festival; its id. Refused past `limit` festivals."""
    with database.transaction() as db:
        count = db.execute("SELECT COUNT(*) AS n FROM festivals").fetchone()["n"]
        if count >= limit:
            raise BadInput("festival", f"a table keeps at most {limit} festivals: delete one first",
                           code="errors.festival.full", params={"limit": limit})
        return db.execute("INSERT INTO festivals (name, events, saved) VALUES (?, ?, ?)",
                          (name, json.dumps(events, ensure_ascii=False), iso(wall))).lastrowid


def delete_festival(database: Database, festival_id: int) -> bool:
    with database.transaction() as db:
        return db.execute("DELETE FROM festivals WHERE id = ?", (festival_id,)).rowcount > 0


def festivals(database: Database) -> list[dict]:
    """The custom festivals, oldest first: {"id", "name", "events"}; a row that does not read is set aside."""
    kept = []
    for row in database.read("SELECT id, name, events FROM festivals ORDER BY id"):
        try:
            events = jsonin.parse(row["events"], "events")
            if not isinstance(events, list) or not all(isinstance(e, str) for e in events):
                raise BadInput("events", "expected a list of event ids")
        except BadInput as e:
            log.error("%s", DamagedRow(f"festivals row {row['id']}", e))
            continue
        kept.append({"id": row["id"], "name": str(row["name"]), "events": events})
    return kept
