r"""The table's whole history as one file, and that file read into a fresh table (docs/formats.md, "History file").

The file is JSON Lines: a header line, then one record a line — saved
events, finished shows with their journals, the players and the start-player
rotation, custom festivals, board games and the cards players entered. Each
kind of record writes its own lines and reads them back (companion.records
.kinds); this module only puts the kinds in order and owns the file's form.

Lines are split at "\n" alone: any other line break (U+2028, U+2029, a
lone CR) is text a name may hold, written as it is. An import checks every
line with the readers the API uses (a show's journal is replayed, and its
outcome and stars must be the replay's), names the line and the field of
the first problem, and writes everything in one transaction, so a table is
never left half-imported. Only a fresh table (no shows, events, games or
festivals) takes an import: ids are kept as they were.

An export is written as it is read (`history_pieces`): rows come from one
read of the records in SQLite's batches and go out in pieces of whole
lines, so a table of any size is sent with little memory and its first
line at once. The file has no end line (the format predates streaming), so
an export that fails part way ends in a line that is not JSON
(STOPPED_LINE): the file cannot pass for whole, and an import refuses it.

>>> from companion.records.shows import Store
>>> text = export_history(Store(":memory:").database, wall=0)
>>> text.split("\n")[0]
'{"format": "companion-history", "version": 1, "exported": "1970-01-01T00:00:00Z"}'
"""

import json
from collections.abc import Iterator

from companion import fields, jsonin
from companion.errors import BadInput, Conflict
from companion.records.database import Database, iso
from companion.records.festivals import FESTIVALS, renumber_old_encore
from companion.records.game_history import GAME_KINDS
from companion.records.kinds import Known
from companion.records.shows import EVENTS, PLAYERS, SHOWS
from companion.skyrockets.events import BUILTIN_EVENTS
from companion.skyrockets.log import split_lines

FORMAT, VERSION = "companion-history", 1
MAX_HISTORY_BYTES = 64 * 1024 * 1024  # years of shows fit many times over
# A line is refused unread past this: a show's longest journal (shows.MAX_JOURNAL_LINES) or a game's largest
# state fits with room to spare, and no single line can make the reader build millions of objects.
MAX_LINE_CHARS = 4 * 2**20
KINDS = (EVENTS, SHOWS, PLAYERS, FESTIVALS, *GAME_KINDS)  # in the file's order: an event before its shows
BY_RECORD = {kind.record: kind for kind in KINDS}
RECORDS = tuple(BY_RECORD)
PIECE_CHARS = 32 * 1024  # an export goes out in pieces of whole lines about this long: few writes, little held
# What ends an export that failed part way: not JSON, so no reader takes what came before it for the whole file.
STOPPED_LINE = "!! the history export stopped here: the records could not be read to the end\n"


def export_history(database: Database, *, wall: float) -> str:
    """Every finished record of the table as the history file's text."""
    return "".join(history_pieces(database, wall=wall))


def history_pieces(database: Database, *, wall: float) -> Iterator[str]:
    """The history file's text in pieces of whole lines, each read from the records just before it is handed on.

    The header comes first, before any record is read. Every record is read in one read transaction, so the
    file is one moment of the table however long it takes to send. A failure after the header ends the text
    with STOPPED_LINE, then is raised.
    """
    yield json.dumps({"format": FORMAT, "version": VERSION, "exported": iso(wall)}, ensure_ascii=False) + "\n"
    piece, size = [], 0
    try:
        with database.connection() as db:
            if not db.in_transaction:
                db.execute("BEGIN")  # one snapshot for the whole file; given back, the connection rolls it back
            for kind in KINDS:
                for line in kind.lines(db):  # a record, or its line kept as text (a finished show's)
                    text = line if isinstance(line, str) else json.dumps(line, ensure_ascii=False) + "\n"
                    piece.append(text)
                    size += len(text)
                    if size >= PIECE_CHARS:
                        yield "".join(piece)
                        piece, size = [], 0
    except Exception:
        yield "".join(piece) + STOPPED_LINE
        raise
    if piece:
        yield "".join(piece)


def read_history(text: str, shelf) -> list[dict]:
    """Every line of a history file checked as the API checks it; the records, or BadInput naming the line and field.

    `shelf` is the board games' shelf, whose checks decide a game's state and a card.
    """
    if len(text.encode("utf-8", "surrogatepass")) > MAX_HISTORY_BYTES:
        raise BadInput("history", f"larger than {MAX_HISTORY_BYTES // 2**20} MiB", code="history.refused.too_large",
                       params={"mib": MAX_HISTORY_BYTES // 2**20})
    lines = split_lines(text)
    if not lines or not lines[0].strip():
        raise BadInput("line 1", "the file is empty: expected the history header", code="history.refused.file")
    header = _header(lines[0])
    known = Known(events=dict(BUILTIN_EVENTS), shelf=shelf, exported=header["exported"])
    records, seen = [], {kind: set() for kind in RECORDS}
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            records.append(_record(line, known, seen))
        except BadInput as e:
            raise e.within(f"line {n}") from None
    return records


def import_history(database: Database, text: str, shelf) -> dict:
    """Read a history file into a fresh table, in one transaction; how many records of each kind came in."""
    records = read_history(text, shelf)
    with database.transaction() as db:
        for table in (kind.table for kind in KINDS if kind.table):  # the players may be set on a fresh table
            if db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone():  # noqa: S608 (a kind's own table name)
                raise Conflict("history", "this table already has records: import into a fresh table",
                               code="history.not_fresh")
        for record in records:
            BY_RECORD[record["record"]].restore(db, record)
        renumber_old_encore(db)  # a file exported when the encore was events 31 and 32
    return {kind: sum(r["record"] == kind for r in records) for kind in RECORDS}


def _header(line: str) -> dict:
    """The header's instant; a problem is named by its field of line 1 (the page says which line, by its code)."""
    try:
        header = fields.record(_parsed(line), "", ("format", "version", "exported"), ("format", "version"))
        fields.choice(header["format"], "format", (FORMAT,))
    except BadInput as e:
        raise BadInput(fields.at("line 1", e.field), f"{e.problem}: this is not a table's history file",
                       code="history.refused.line", params={"line": 1}) from None
    try:
        fields.choice(header["version"], "version", (VERSION,))
        exported = fields.instant(header["exported"], "exported") if "exported" in header else iso(0)
    except BadInput as e:
        raise BadInput(fields.at("line 1", e.field), e.problem, code="history.refused.line",
                       params={"line": 1}) from None
    return {"exported": exported}


def _record(line: str, known: Known, seen: dict) -> dict:
    """One line after the header, checked by its kind, and not a second record of what an earlier line held."""
    data = _parsed(line)
    kind = BY_RECORD[fields.choice(fields.record(data, "", ("record",) + _ALL_FIELDS, ("record",))["record"],
                                   "record", RECORDS)]
    fields.record(data, "", ("record",) + kind.fields, ("record",) + kind.required)
    known.counts[kind.record] = known.counts.get(kind.record, 0) + 1
    record = {"record": kind.record, **kind.read(data, known)}
    key = kind.key(record) if kind.key else None
    if key in seen[kind.record]:
        raise BadInput("record" if kind.key is None else "id", f"a second {kind.record} record"
                       + ("" if key is None else f" {fields.shown(key)}"), code="history.refused.twice")
    seen[kind.record].add(key)
    return record


_ALL_FIELDS = tuple(sorted({name for kind in KINDS for name in kind.fields}))


def _parsed(line: str):
    if len(line) > MAX_LINE_CHARS:
        raise BadInput("", f"longer than {MAX_LINE_CHARS} characters", code="errors.too_long",
                       params={"limit": MAX_LINE_CHARS})
    return jsonin.parse(line, "")
