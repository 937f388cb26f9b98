"""The table's records in its one SQLite file: the shows, their journals, the score pad, and the board games.

`database.py` is the one way in (connect, transaction, busy and damaged
rows), `shows.py` the Skyrockets shows and the score pad, `games.py` the
board games as versioned records. Nothing outside this package opens the
table's database; the rules never import it.
"""

from companion.records.database import Database, DamagedRow, RecordsBusy
from companion.records.games import GameShelf, NotKept, VersionClash
from companion.records.shows import SlowStore, Store

__all__ = ["Database", "DamagedRow", "GameShelf", "NotKept", "RecordsBusy", "SlowStore", "Store", "VersionClash"]
