"""A finished show's line of the history file, kept as text when the show ends.

An export sends every finished show; decoding each journal line and encoding
the show again at every export cost the export nearly all its time. A show's
line never changes once the show has ended, so it is written once, in the
transaction that ends the show (or imports it), and an export streams the
kept text. A show whose text is not kept (a file of before the texts, or one
whose row another step changed and whose text it dropped) is written the old
way: the text saves time, never decides what is sent.

>>> row = {"id": 1, "event_id": "training", "event_name": "Training", "challenge": 0, "started": "s",
...        "started_wall": 0.0, "speed": 1.0, "outcome": "aborted", "stars": 0, "ended": "e",
...        "start_player": None, "orientation": "{}"}
>>> show_line(row, ['{"t": 0, "type": "setup"}']).endswith('"orientation": {}, "journal": [{"t": 0, "type": "setup"}]}\\n')
True
"""

import json


def line_text(value: object) -> str:
    """A stored journal line as text (a line stored as bytes is decoded; nothing else is altered)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else str(value)


def show_record(row, journal: list) -> dict:
    """A finished show's record of the history file, from its `shows` row and its journal's entries."""
    return {"record": "show", "id": row["id"], "event": row["event_id"], "event_name": row["event_name"],
            "challenge": bool(row["challenge"]), "started": row["started"], "started_wall": row["started_wall"],
            "speed": row["speed"], "outcome": row["outcome"], "stars": row["stars"], "ended": row["ended"],
            "start_player": row["start_player"], "orientation": json.loads(row["orientation"]),
            "journal": journal}


def show_line(row, journal_lines) -> str:
    """The show's line of the history file, as an export writes it, from its row and its stored journal lines."""
    entries = [json.loads(line_text(line)) for line in journal_lines]
    return json.dumps(show_record(row, entries), ensure_ascii=False) + "\n"


def journal_lines(db, show_id: int) -> list:
    return [r[0] for r in db.execute("SELECT line FROM journal WHERE show_id = ? ORDER BY n", (show_id,))]


def keep(db, show_id: int) -> None:
    """Keep the text of show `show_id`'s line, if it has ended (in the caller's transaction)."""
    row = db.execute("SELECT * FROM shows WHERE id = ? AND outcome != 'running'", (show_id,)).fetchone()
    if row is None:
        return
    try:
        text = show_line(row, journal_lines(db, show_id))
    except (ValueError, TypeError):  # a damaged cell (not JSON): the show still ends; its line is built at export
        return
    db.execute("INSERT OR REPLACE INTO show_texts (show_id, text) VALUES (?, ?)", (show_id, text))


def forget(db, show_id: int) -> None:
    """Drop a kept text whose show's row or journal has just changed: the export writes it the old way."""
    db.execute("DELETE FROM show_texts WHERE show_id = ?", (show_id,))


def keep_missing(db) -> None:
    """Keep the text of every finished show that has none (once, as a file comes to keep them)."""
    missing = db.execute("SELECT id FROM shows WHERE outcome != 'running' AND id NOT IN"
                         " (SELECT show_id FROM show_texts)").fetchall()
    for (show_id,) in missing:
        keep(db, show_id)
