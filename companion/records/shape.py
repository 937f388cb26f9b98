"""A file's shape: every table, column, index, trigger and view it holds, as SQLite keeps their statements.

Two files have the same shape when they hold the same objects, each created by the same statement up to
whitespace and comments (SQLite keeps each statement as written; the steps of an older program wrote the same columns
spread over other lines). A file is checked against a new file built by its schema's own steps, so the shape
is said once, in the steps, never restated here.

>>> import sqlite3
>>> a, b = sqlite3.connect(":memory:"), sqlite3.connect(":memory:")
>>> _ = a.execute("CREATE TABLE t (n INTEGER,\\n  m TEXT)"); _ = b.execute("CREATE TABLE t (n INTEGER, m TEXT)")
>>> difference(shape(a), shape(b)) is None
True
>>> _ = b.execute("CREATE VIEW v AS SELECT n FROM t")
>>> difference(shape(b), shape(a))
'it holds a view v that it should not'
"""

import re
import sqlite3

# A quoted string or name (kept as it is), or a comment (dropped): SQLite keeps a statement's comments too.
_PIECE = re.compile(r"('(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")|--[^\n]*|/\*.*?(?:\*/|$)", re.S)

Shape = dict[tuple[str, str], str]  # (type, name) -> its statement without whitespace


class WrongShape(sqlite3.DatabaseError):
    """A file whose tables, columns, indexes, triggers or views are not those of its version (a database
    error: a command that opens it answers in one line, and a backup holding it is refused)."""


def shape(db) -> Shape:
    """The objects of the file open on `db` (SQLite's own automatic indexes are part of their table's statement)."""
    rows = db.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
    return {(kind, name): _bare(sql) for kind, name, sql in rows}


def _tables_first(key: tuple[str, str]) -> tuple:
    return key[0] != "table", key


def _bare(sql: str) -> str:
    """A statement without its comments and whitespace (outside quotes, which stay as written).

    >>> _bare("CREATE TABLE t (n INTEGER,  -- a count\\n m TEXT DEFAULT 'a b')")
    "CREATETABLEt(nINTEGER,mTEXTDEFAULT'a b')"
    """
    pieces = _PIECE.split(sql)
    kept = []
    for index, piece in enumerate(pieces):
        if piece is None:
            continue
        kept.append(piece if index % 2 else "".join(piece.split()))
    return "".join(kept)


def difference(found: Shape, wanted: Shape) -> str | None:
    """The first way `found` differs from `wanted`, in words (None: the same shape)."""
    for kind, name in sorted(wanted, key=_tables_first):
        if (kind, name) not in found:
            return f"it lacks the {kind} {name}"
        if found[kind, name] != wanted[kind, name]:
            return f"its {kind} {name} is not as this program made it"
    for kind, name in sorted(set(found) - set(wanted), key=_tables_first):
        return f"it holds a {kind} {name} that it should not"
    return None
