"""The door to the setup page: open on a table not yet set up, behind a one-time setup code.

A freshly installed table (no config file yet, or the installer's, which
has no `set_up = true`) draws a setup code at start and says it on its
start-up lines (the journal) and on its own screen. Whoever types it on a
phone may set the table up; once the page is finished the code is void and
changes need the table PIN. `companion setup --reopen` (or the button on the
table's screen) opens the door again with a new code; a running table sees
the file change and opens it at once.

>>> door = FirstRun(set_up=False, say=lambda line: None)
>>> door.is_open and door.accepts(door.code.lower().replace("", " "))
True
>>> door.close(); door.is_open, door.code, door.accepts("ABCD")
(False, None, False)
"""

import hmac
import logging
import secrets
import threading
import tomllib
from pathlib import Path

log = logging.getLogger(__name__)

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a screen and typed on a phone
CODE_LENGTH = 10  # 31**10 is about 8e14: with the page's slow-down after wrong codes, not guessable


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalise(given: str) -> str:
    """A code as typed: case, spaces and dashes do not matter (the screen shows it in groups)."""
    return "".join(ch for ch in given.upper() if ch not in " -\t")


def grouped(code: str) -> str:
    """The code as shown: in groups of five, easier to read across a table."""
    return "-".join(code[i:i + 5] for i in range(0, len(code), 5))


class FirstRun:
    """Whether the setup page is open, and its code while it is.

    `path` is the config file, watched for `companion setup --reopen`;
    `say` prints a line where the table's owner reads it (the journal).
    """

    def __init__(self, set_up: bool, *, path: Path | None = None, say=None):
        self._lock = threading.Lock()
        self._path = path
        self._say = say or (lambda line: print(line, flush=True))
        self._seen = self._stamp()
        self._code = None if set_up else new_code()

    @property
    def is_open(self) -> bool:
        self._look_at_file()
        return self._code is not None

    @property
    def code(self) -> str | None:
        self._look_at_file()
        return self._code

    def accepts(self, given: object) -> bool:
        """Whether `given` is the setup code (compared in constant time); never while the door is closed."""
        code = self.code
        if code is None or not isinstance(given, str):
            return False
        return hmac.compare_digest(normalise(given).encode("utf-8", "replace"), code.encode())

    def announce(self, address: str | None = None) -> None:
        """Say the code where the owner reads it (the start-up lines, the journal)."""
        code = self.code
        if code is not None:
            where = f"open {address}setup/ on a phone and " if address else "open /setup/ on a phone and "
            self._say(f"Setup: this table is not set up yet: {where}enter the setup code {grouped(code)}")

    def close(self) -> None:
        """Setup is done: the code is void from now on."""
        with self._lock:
            self._code = None
            self._seen = self._stamp()

    def reopen(self) -> str:
        """Open the door again with a fresh code (said at once); returns the code."""
        with self._lock:
            self._code = new_code()
            self._seen = self._stamp()
        self.announce()
        return self._code

    def _stamp(self):
        try:
            stat = self._path.stat() if self._path is not None else None
        except OSError:
            return None
        return (stat.st_mtime_ns, stat.st_size) if stat else None

    def _look_at_file(self) -> None:
        """A config file changed behind the table's back may say `set_up = false`: `companion setup --reopen`."""
        if self._path is None or self._code is not None:
            return
        stamp = self._stamp()
        if stamp == self._seen:
            return
        self._seen = stamp
        try:
            set_up = tomllib.loads(self._path.read_text(encoding="utf-8")).get("table", {}).get("set_up", False)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError) as e:
            log.warning("could not read %s for set_up: %s", self._path, e)
            return
        if set_up is False:
            self.reopen()
