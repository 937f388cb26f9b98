"""The table's whole history as one file, and that file read into a fresh table (docs/formats.md, "History file").

The file is JSON Lines: a header line, then one record a line — saved
events, finished shows with their journals, the players and the start-player
rotation, custom festivals, board games and the cards players entered. An
import checks every line before it writes anything, names the line and the
field of the first problem, and writes everything in one transaction, so a
table is never left half-imported. Only a fresh table (no shows, events,
games or festivals) takes an import: ids are kept as they were.

>>> from companion.records.shows import Store
>>> text = export_history(Store(":memory:").database, wall=0)
>>> text.splitlines()[0]
'{"format": "companion-history", "version": 1, "exported": "1970-01-01T00:00:00Z"}'
"""

import json
import math

from companion import fields, jsonin
from companion.clock import MAX_SPEED, MIN_SPEED
from companion.errors import BadInput, Conflict
from companion.records.database import MAX_ROW_ID, Database, iso
from companion.skyrockets.events import MAX_EVENT_ID, MAX_EVENT_NAME, parse_event
from companion.skyrockets.festivals import custom_festival

FORMAT, VERSION = "companion-history", 1
MAX_HISTORY_BYTES = 64 * 1024 * 1024  # years of shows fit many times over
OUTCOMES = ("win", "loss", "aborted")
MAX_STARS = 3
RECORDS = ("event", "show", "players", "festival", "game", "card")


def export_history(database: Database, *, wall: float) -> str:
    """Every finished record of the table as the history file's text."""
    with database.connection() as db:
        lines = _exported(db, wall)
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def _exported(db, wall: float) -> list[dict]:
    lines = [{"format": FORMAT, "version": VERSION, "exported": iso(wall)}]
    for r in db.execute("SELECT id, data, saved FROM events ORDER BY id"):
        lines.append({"record": "event", "event": json.loads(r["data"]), "saved": r["saved"]})
    for r in db.execute("SELECT * FROM shows WHERE outcome != 'running' ORDER BY id"):
        journal = [row["line"] for row in db.execute("SELECT line FROM journal WHERE show_id = ? ORDER BY n", (r["id"],))]
        lines.append({"record": "show", "id": r["id"], "event": r["event_id"], "event_name": r["event_name"],
                      "challenge": bool(r["challenge"]), "started": r["started"], "started_wall": r["started_wall"],
                      "speed": r["speed"], "outcome": r["outcome"], "stars": r["stars"], "ended": r["ended"],
                      "start_player": r["start_player"], "orientation": json.loads(r["orientation"]),
                      "journal": [json.loads(line) for line in journal]})
    names = [r["name"] for r in db.execute("SELECT name FROM players ORDER BY position")]
    rotation = db.execute("SELECT value FROM meta WHERE key = 'rotation'").fetchone()
    lines.append({"record": "players", "names": names, "rotation": int(rotation["value"]) if rotation else 0})
    for r in db.execute("SELECT id, name, events FROM festivals ORDER BY id"):
        lines.append({"record": "festival", "id": r["id"], "name": r["name"], "events": json.loads(r["events"])})
    for r in db.execute("SELECT * FROM games ORDER BY id"):
        lines.append({"record": "game", "id": r["id"], "kind": r["kind"], "version": r["version"],
                      "state": json.loads(r["state"]), "created": r["created"], "updated": r["updated"]})
    for r in db.execute("SELECT * FROM game_cards ORDER BY kind, name"):
        lines.append({"record": "card", "kind": r["kind"], "name": r["name"], "card": json.loads(r["card"]),
                      "saved": r["saved"]})
    return lines


def read_history(text: str) -> list[dict]:
    """Every line of a history file checked; the records, or BadInput naming the line and field."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_HISTORY_BYTES:
        raise BadInput("history", f"larger than {MAX_HISTORY_BYTES // 2**20} MiB")
    lines = text.splitlines()
    if not lines:
        raise BadInput("line 1", "the file is empty: expected the history header")
    header = _object(lines[0], 1)
    if header.get("format") != FORMAT:
        raise BadInput("line 1.format", f"expected {FORMAT!r}: this is not a table's history file")
    if header.get("version") != VERSION:
        raise BadInput("line 1.version", f"expected {VERSION}, got {header.get('version')!r}")
    records, seen = [], {"show": set(), "game": set(), "festival": set(), "event": set(), "card": set()}
    players = 0
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        data = _object(line, n)
        try:
            record = _checked(data)
        except BadInput as e:
            raise e.within(f"line {n}") from None
        kind = record["record"]
        key = record.get("id", record.get("name")) if kind != "card" else (record["kind"], record["name"])
        if kind == "event":
            key = record["event"].id
        if kind == "players":
            players += 1
            if players > 1:
                raise BadInput(f"line {n}.record", "the players are listed twice")
        elif key in seen[kind]:
            raise BadInput(f"line {n}.id", f"a second {kind} {key!r}")
        else:
            seen[kind].add(key)
        records.append(record)
    return records


def import_history(database: Database, text: str) -> dict:
    """Read a history file into a fresh table, in one transaction; how many records of each kind came in."""
    records = read_history(text)
    counts = dict.fromkeys(RECORDS, 0)
    with database.transaction() as db:
        for table in ("shows", "events", "games", "festivals", "game_cards"):
            if db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone():  # noqa: S608 (a fixed table name)
                raise Conflict("history", "this table already has records: import into a fresh table",
                               code="history.not_fresh")
        for record in records:
            counts[record["record"]] += 1
            _write(db, record)
    return counts


def _write(db, r: dict) -> None:
    kind = r["record"]
    if kind == "event":
        db.execute("INSERT INTO events (id, data, saved) VALUES (?, ?, ?)",
                   (r["event"].id, json.dumps(r["event"].to_json(), ensure_ascii=False), r["saved"]))
    elif kind == "show":
        db.execute("INSERT INTO shows (id, event_id, event_name, challenge, started, started_wall, speed, outcome,"
                   " stars, ended, start_player, orientation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (r["id"], r["event"], r["event_name"], int(r["challenge"]), r["started"], r["started_wall"],
                    r["speed"], r["outcome"], r["stars"], r["ended"], r["start_player"], json.dumps(r["orientation"])))
        db.executemany("INSERT INTO journal (show_id, n, line) VALUES (?, ?, ?)",
                       [(r["id"], n, json.dumps(line)) for n, line in enumerate(r["journal"], start=1)])
    elif kind == "players":
        db.execute("DELETE FROM players")
        db.executemany("INSERT INTO players (position, name) VALUES (?, ?)", list(enumerate(r["names"])))
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('rotation', ?)", (str(r["rotation"]),))
    elif kind == "festival":
        db.execute("INSERT INTO festivals (id, name, events, saved) VALUES (?, ?, ?, ?)",
                   (r["id"], r["name"], json.dumps(r["events"], ensure_ascii=False), r.get("saved", "")))
    elif kind == "game":
        db.execute("INSERT INTO games (id, kind, version, state, created, updated) VALUES (?, ?, ?, ?, ?, ?)",
                   (r["id"], r["kind"], r["version"], json.dumps(r["state"], ensure_ascii=False), r["created"],
                    r["updated"]))
    else:
        db.execute("INSERT INTO game_cards (kind, name, card, saved) VALUES (?, ?, ?, ?)",
                   (r["kind"], r["name"], json.dumps(r["card"], ensure_ascii=False), r["saved"]))


# ---- one line, every field checked -------------------------------------------------

def _object(line: str, n: int) -> dict:
    try:
        data = jsonin.parse(line, "")
    except BadInput as e:
        raise BadInput(f"line {n}", e.problem) from None
    if not isinstance(data, dict):
        raise BadInput(f"line {n}", f"expected a JSON object, got {type(data).__name__}")
    return data


def _fields(data: dict, allowed: tuple[str, ...]) -> None:
    extra = sorted(set(data) - set(allowed) - {"record"})
    if extra:
        raise BadInput(str(extra[0])[:40], f"is not a field of a {data['record']} record")
    missing = [f for f in allowed if f not in data and f not in ("saved",)]
    if missing:
        raise BadInput(missing[0], "is missing")


def _text(data: dict, field: str, limit: int, *, empty=False, none=False) -> str | None:
    value = data.get(field)
    if value is None and none:
        return None
    if not isinstance(value, str) or (not value and not empty) or len(value) > limit:
        raise BadInput(field, f"expected text of {0 if empty else 1}-{limit} characters")
    fields.line(value, field, limit, empty=True)
    return value


def _whole(data: dict, field: str, low: int, high: int) -> int:
    value = data.get(field)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadInput(field, f"expected a whole number {low}-{high}, got {str(value)[:40]}")
    return value


def _real(data: dict, field: str, low: float, high: float) -> float:
    value = data.get(field)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= high:
        raise BadInput(field, f"expected a number {low:g}-{high:g}, got {str(value)[:40]}")
    return float(value)


def _instant(data: dict, field: str, *, none=False) -> str | None:
    value = _text(data, field, 32, none=none)
    if value is not None and not (len(value) == 20 and value[4] == "-" and value[10] == "T" and value.endswith("Z")):
        raise BadInput(field, f"expected a UTC instant like 2025-05-04T19:30:00Z, got {value[:40]!r}")
    return value


def _checked(data: dict) -> dict:
    kind = data.get("record")
    if kind not in RECORDS:
        raise BadInput("record", f"expected one of {', '.join(RECORDS)}, got {str(kind)[:40]!r}")
    if kind == "event":
        _fields(data, ("event", "saved"))
        event = parse_event(data["event"], "event")
        if event.builtin:
            raise BadInput("event.id", f"{event.id!r} is a built-in event")
        return {"record": kind, "event": event, "saved": _instant(data, "saved")}
    if kind == "show":
        _fields(data, ("id", "event", "event_name", "challenge", "started", "started_wall", "speed", "outcome",
                       "stars", "ended", "start_player", "orientation", "journal"))
        record = {"record": kind, "id": _whole(data, "id", 1, MAX_ROW_ID),
                  "event": _text(data, "event", MAX_EVENT_ID), "event_name": _text(data, "event_name", MAX_EVENT_NAME),
                  "started": _instant(data, "started"), "started_wall": _real(data, "started_wall", 0, 1e11),
                  "speed": _real(data, "speed", MIN_SPEED, MAX_SPEED), "stars": _whole(data, "stars", 0, MAX_STARS),
                  "ended": _instant(data, "ended"), "start_player": _text(data, "start_player", 80, none=True)}
        if not isinstance(data["challenge"], bool):
            raise BadInput("challenge", "expected true or false")
        if data["outcome"] not in OUTCOMES:
            raise BadInput("outcome", f"expected one of {', '.join(OUTCOMES)}, got {str(data['outcome'])[:40]!r}")
        if data["outcome"] != "win" and record["stars"]:
            raise BadInput("stars", "only a won show has stars")
        orientation = data["orientation"]
        if not isinstance(orientation, dict) or not all(v is None or isinstance(v, bool) for v in orientation.values()):
            raise BadInput("orientation", "expected an object of colour: true/false/null")
        journal = data["journal"]
        if not isinstance(journal, list) or not journal:
            raise BadInput("journal", "expected the show's journal lines")
        for i, line in enumerate(journal):
            if not isinstance(line, dict):
                raise BadInput(f"journal[{i}]", "expected a JSON object")
        return {**record, "challenge": data["challenge"], "outcome": data["outcome"], "orientation": orientation,
                "journal": journal}
    if kind == "players":
        _fields(data, ("names", "rotation"))
        names = data["names"]
        if not isinstance(names, list) or len(names) > 12:
            raise BadInput("names", "expected a list of at most 12 names")
        for i, name in enumerate(names):
            _text({"n": name}, "n", 80) if isinstance(name, str) else None
            if not isinstance(name, str) or not name:
                raise BadInput(f"names[{i}]", "expected a name")
        return {"record": kind, "names": names, "rotation": _whole(data, "rotation", 0, 10**18)}
    if kind == "festival":
        _fields(data, ("id", "name", "events"))
        festival = custom_festival({"name": data["name"], "events": data["events"]}, set(data["events"])
                                   if isinstance(data["events"], list) and all(isinstance(e, str) for e in data["events"])
                                   else set())
        return {"record": kind, "id": _whole(data, "id", 1, MAX_ROW_ID), "name": festival.name,
                "events": list(festival.events)}
    if kind == "game":
        _fields(data, ("id", "kind", "version", "state", "created", "updated"))
        if data["kind"] not in ("flock", "geese"):
            raise BadInput("kind", f"expected flock or geese, got {str(data['kind'])[:40]!r}")
        if not isinstance(data["state"], dict):
            raise BadInput("state", "expected the game's state object")
        return {"record": kind, "id": _whole(data, "id", 1, MAX_ROW_ID), "kind": data["kind"],
                "version": _whole(data, "version", 1, 10**18), "state": data["state"],
                "created": _real(data, "created", 0, 1e11), "updated": _real(data, "updated", 0, 1e11)}
    _fields(data, ("kind", "name", "card", "saved"))
    if data["kind"] not in ("flock", "geese"):
        raise BadInput("kind", f"expected flock or geese, got {str(data['kind'])[:40]!r}")
    if not isinstance(data["card"], dict):
        raise BadInput("card", "expected the card object")
    return {"record": kind, "kind": data["kind"], "name": _text(data, "name", 80), "card": data["card"],
            "saved": _real(data, "saved", 0, 1e11)}
