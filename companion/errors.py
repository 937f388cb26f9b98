"""The errors every layer may raise and the web answers: bad input naming its field, a conflict, a record
that is not kept, records that are busy."""

import sqlite3

RETRY_AFTER_S = 2  # what a busy answer asks the client to wait


def printable(text: str) -> str:
    """`text` with every character that is not printable written as its escape, so a message stays one line.

    >>> printable("durations.\\r")
    'durations.\\\\r'
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


class BadInput(ValueError):
    """Input that cannot be used, with the field (dotted path) it concerns.

    >>> str(BadInput("timers.red.pins", "GPIO 40 does not exist (valid 2-27)"))
    'timers.red.pins: GPIO 40 does not exist (valid 2-27)'
    """

    def __init__(self, field: str, problem: str, *, code: str | None = None, params: dict | None = None):
        # Fields can carry keys from outside (a JSON key of a control character): shown escaped, on one line.
        super().__init__(printable(f"{field}: {problem}" if field else problem))
        self.field = field
        self.problem = problem
        if code:
            self.error_code = code  # the catalogue key a page shows it by, in the page's language
        self.params = dict(params or {})  # the values the catalogue's sentence names

    def within(self, prefix: str) -> "BadInput":
        """The same problem, its field placed under `prefix` (e.g. a line number or file)."""
        field = f"{prefix}.{self.field}" if self.field else prefix
        return BadInput(field, self.problem, code=getattr(self, "error_code", None), params=self.params)


class Conflict(BadInput):
    """The request is well formed but the table cannot do it now (HTTP 409)."""


class NothingToUndo(Conflict):
    """An undo on a record that has nothing left to take back (HTTP 409, the same code in every game)."""

    error_code = "errors.nothing_to_undo"

    def __init__(self, field: str):
        super().__init__(field, "nothing to undo")


class NotKept(LookupError):
    """No game of that kind has that id."""


class RecordsBusy(sqlite3.OperationalError):
    """The database stayed locked by another writer past the busy timeout: nothing was written; try again.

    It stays an sqlite3 error, so a command that opens the table answers it with one line and exit 1."""

    retry_after_s = RETRY_AFTER_S
