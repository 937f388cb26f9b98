"""A kind of record as the history file carries it: its lines out of the table, checked, and written back in.

Each record module describes its own kinds (shows.py: events, shows,
players; festivals.py; game_history.py: board games and cards); the history
file (history.py) only puts them one after another. A kind's `read` checks a
line with the very readers its API route uses, so the file lets in nothing
the API would refuse.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field


@dataclass
class Known:
    """What a history file has told so far, for the lines after: the events it saved, how many of each kind."""

    events: dict  # event id -> Event: the built-in ones, then each saved one as its line is read
    shelf: object  # the board games' shelf, whose check(kind, state) and check_card(kind, name, card) decide
    exported: str  # the header's instant: the saving time of a record that does not carry its own
    counts: dict = field(default_factory=dict)  # record kind -> lines read so far


@dataclass(frozen=True)
class Kind:
    """One kind of record in the history file (docs/formats.md, "History file")."""

    record: str  # the line's `record` field
    fields: tuple[str, ...]  # the line's fields besides `record`
    required: tuple[str, ...]
    lines: Callable[[object], Iterable[dict]]  # every record of the kind in an open connection, as lines
    read: Callable[[dict, Known], dict]  # a line checked as its API route checks it (BadInput naming the field)
    restore: Callable[[object, dict], None]  # a checked line written back, in the import's transaction
    key: Callable[[dict], object] | None = None  # what no two lines may share (None: one line of the kind at most)
    table: str | None = None  # the table whose rows it restores, if a row there means the table is not fresh
