"""The table's records in its one SQLite file: the shows, their journals, the score pad, and the board games.

`database.py` is the one way in (connect, transaction, busy and damaged
rows), `schema.py` the file's versions (every step that built it, run in
order on `user_version`), `shows.py` the Skyrockets shows and the score pad,
`festivals.py` the custom festivals, `games.py` the board games as versioned
records, `history.py` the whole history as one file (each kind of record
writes and reads its own lines: `kinds.py`). Nothing outside this package
opens an SQLite file (the hall's board, too, comes in through `Database`);
the rules never import it.
"""

from companion.records.database import Database, DamagedRow, RecordsBusy
from companion.records.games import GameShelf, NotKept, VersionClash
from companion.records.shows import SlowStore, Store

__all__ = ["Database", "DamagedRow", "GameShelf", "NotKept", "RecordsBusy", "SlowStore", "Store", "VersionClash"]
