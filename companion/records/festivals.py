"""Custom festivals in the table's records.

The campaign's festivals are fixed (companion.skyrockets.festivals); the
festivals players make of any events are kept here, one row each. A
festival's id is never handed out twice (AUTOINCREMENT): a phone that
retries the delete of a festival already gone cannot remove another phone's
new one.

>>> from companion.records.shows import Store
>>> store = Store(":memory:")
>>> first = save_festival(store.database, "Reds", ["training"], 0, 50)
>>> delete_festival(store.database, first), save_festival(store.database, "Blues", ["training"], 0, 50) > first
(True, True)
"""

import json
import logging

from companion import fields, jsonin
from companion.errors import BadInput
from companion.records import show_text
from companion.records.database import MAX_ROW_ID, Database, DamagedRow, iso
from companion.records.kinds import Kind, Known
from companion.skyrockets.festivals import MAX_FESTIVALS, custom_festival

log = logging.getLogger(__name__)


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
            events = fields.items(jsonin.parse(row["events"], "events"), "events", 0, len(row["events"]))
            for i, event in enumerate(events):
                fields.text(event, fields.at("events", i))
        except BadInput as e:
            log.error("%s", DamagedRow(f"festivals row {row['id']}", e))
            continue
        kept.append({"id": row["id"], "name": str(row["name"]), "events": events})
    return kept


# ---- the encore's numbers before the score pad counted the box's 30 event cards ------------------------------

# A table that counted 32 events (ten festivals of three, the encore 31 and 32) kept its encore under these
# ids; the encore is events 29 and 30 now (companion.skyrockets.festivals).
OLD_ENCORE = {"event-31": "event-29", "event-32": "event-30"}


def renumber_old_encore(db) -> list[str]:
    """The old encore's events moved to the encore's numbers, on the open transaction's connection `db`: the saved
    event, its shows (and so the score pad), their journals' setup lines and the custom festivals that list it;
    the ids moved.

    An old id whose new number is in use already (an event saved or played under it) is left as it is: an
    ordinary saved event, outside the campaign, its shows on the score pad all the same. Safe to run again.
    """
    def used(event: str) -> bool:
        return bool(db.execute("SELECT 1 FROM events WHERE id = ?", (event,)).fetchone()
                    or db.execute("SELECT 1 FROM shows WHERE event_id = ?", (event,)).fetchone())

    moved = {old: new for old, new in OLD_ENCORE.items() if used(old) and not used(new)}
    for old, new in moved.items():
        for row in db.execute("SELECT id, data FROM events WHERE id = ?", (old,)).fetchall():
            data = json.loads(row["data"])
            db.execute("UPDATE events SET id = ?, data = ? WHERE id = ?",
                       (new, json.dumps({**data, "id": new}, ensure_ascii=False), old))
        shows = [r["id"] for r in db.execute("SELECT id FROM shows WHERE event_id = ?", (old,)).fetchall()]
        db.execute("UPDATE shows SET event_id = ? WHERE event_id = ?", (new, old))  # the pad's triggers recount
        for show in shows:
            db.execute("DELETE FROM checkpoints WHERE show_id = ?", (show,))  # a running show replays its journal
            for line in db.execute("SELECT n, line FROM journal WHERE show_id = ?", (show,)).fetchall():
                entry = json.loads(line["line"])
                if entry.get("type") == "setup" and isinstance(entry.get("event"), dict):
                    entry["event"] = {**entry["event"], "id": new}
                    db.execute("UPDATE journal SET line = ? WHERE show_id = ? AND n = ?",
                               (json.dumps(entry, ensure_ascii=False), show, line["n"]))
            if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'show_texts'").fetchone():  # (none before step 7)
                show_text.keep(db, show)  # its history line named the old id
    if moved:
        for row in db.execute("SELECT id, events FROM festivals").fetchall():
            events = json.loads(row["events"])
            if any(event in moved for event in events):
                db.execute("UPDATE festivals SET events = ? WHERE id = ?",
                           (json.dumps([moved.get(e, e) for e in events], ensure_ascii=False), row["id"]))
    return sorted(moved)


# ---- the history file (companion.records.kinds) ----------------------------------------------------------

def _festival_lines(db):
    for r in db.execute("SELECT id, name, events, saved FROM festivals ORDER BY id"):
        yield {"record": "festival", "id": r["id"], "name": r["name"], "events": json.loads(r["events"]),
               "saved": r["saved"]}


def _read_festival(data: dict, known: Known) -> dict:
    """A festival as the API takes one: of events the table knows by then, at most MAX_FESTIVALS of them."""
    if known.counts.get("festival", 0) > MAX_FESTIVALS:
        raise BadInput("festival", f"a table keeps at most {MAX_FESTIVALS} festivals",
                       code="errors.festival.full", params={"limit": MAX_FESTIVALS})
    festival = custom_festival({"name": data["name"], "events": data["events"]}, known.events)
    saved = fields.instant(data["saved"], "saved") if "saved" in data else known.exported
    return {"id": fields.whole(data["id"], "id", 1, MAX_ROW_ID), "name": festival.name,
            "events": list(festival.events), "saved": saved}


def _restore_festival(db, r: dict) -> None:
    db.execute("INSERT INTO festivals (id, name, events, saved) VALUES (?, ?, ?, ?)",
               (r["id"], r["name"], json.dumps(r["events"], ensure_ascii=False), r["saved"]))


FESTIVALS = Kind("festival", ("id", "name", "events", "saved"), ("id", "name", "events"), _festival_lines,
                 _read_festival, _restore_festival, key=lambda r: r["id"], table="festivals")
