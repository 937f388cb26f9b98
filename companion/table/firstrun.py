"""The door to the setup page: open on a table not yet set up, behind a one-time setup code.

A freshly installed table (no config file yet, or the installer's, which
has no `set_up = true`) draws a setup code at start and says it on its
start-up lines (the journal) and on its own screen. Whoever types it on a
phone may set the table up; once the page is finished the code is void and
changes need the table PIN. `companion setup --reopen` (or the button on the
table's screen) opens the door again with a new code; a running table sees
the file change and opens it at once.

While the door is open its code is kept in a file beside the database (mode
600): a restart keeps the same code, and `companion setup --reopen` writes
the code it prints there, so the owner reads it at once. A table may also
name a second file for the owner (`setup_code_file`: an image puts it on the
card's boot partition); both go when setup is finished.

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

from companion.table.private import write_private

log = logging.getLogger(__name__)

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a screen and typed on a phone
CODE_LENGTH = 10  # 31**10 is about 8e14: with the page's slow-down after wrong codes, not guessable
KEPT_CODE_FILE = "setup-code"  # beside the database, while setup is open


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalise(given: str) -> str:
    """A code as typed: case, spaces and dashes do not matter (the screen shows it in groups)."""
    return "".join(ch for ch in given.upper() if ch not in " -\t")


def matches(given: object, code: str) -> bool:
    """Whether `given` is `code` as typed (case, spaces and dashes aside), compared in constant time.

    >>> matches("abcde-fghjk", "ABCDEFGHJK"), matches(None, "ABCDEFGHJK")
    (True, False)
    """
    if not isinstance(given, str):
        return False
    return hmac.compare_digest(normalise(given).encode("utf-8", "replace"), code.encode())


def grouped(code: str) -> str:
    """The code as shown: in groups of five, easier to read across a table."""
    return "-".join(code[i:i + 5] for i in range(0, len(code), 5))


def kept_code_file(config) -> Path | None:
    """Where a table keeps its setup code: beside its database (nowhere for a database in memory)."""
    database = str(config.database)
    return None if database == ":memory:" else Path(database).parent / KEPT_CODE_FILE


def is_code(text: str) -> bool:
    return len(text) == CODE_LENGTH and all(ch in ALPHABET for ch in text)


def read_code(path: Path | None) -> str | None:
    """A kept code, if the file holds one."""
    try:
        text = path.read_text(encoding="ascii").strip() if path is not None else ""
    except (OSError, UnicodeDecodeError):
        return None
    return text if is_code(text) else None


def keep_code(path: Path, code: str | None, *, owner_of: Path | None = None) -> None:
    """Keep the code in `path` (mode 600), or remove the file when `code` is None."""
    if code is None:
        path.unlink(missing_ok=True)
    else:
        write_private(path, code, owner_of=owner_of)


class FirstRun:
    """Whether the setup page is open, and its code while it is.

    `path` is the config file, watched for `companion setup --reopen`;
    `kept` the file that keeps the code beside the database, `shown` the owner's copy (both optional);
    `say` prints a line where the table's owner reads it (the journal).
    """

    def __init__(self, set_up: bool, *, path: Path | None = None, kept: Path | None = None,
                 shown: Path | None = None, say=None):
        self._lock = threading.Lock()
        self._path, self._files = path, [f for f in (kept, shown) if f is not None]
        self._kept = kept
        self._say = say or (lambda line: print(line, flush=True))
        self._seen = self._stamp()
        self._code = None
        if set_up:
            self._keep(None)  # a setup finished while the table was down leaves no code behind
        else:
            self._set(read_code(kept) or new_code())

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
        return code is not None and matches(given, code)

    def announce(self, address: str | None = None) -> None:
        """Say the code where the owner reads it (the start-up lines, the journal)."""
        code = self.code
        if code is not None:
            where = f"open {address}setup/ on a phone and " if address else "open /setup/ on a phone and "
            self._say(f"Setup: this table is not set up yet: {where}enter the setup code {grouped(code)}")

    def close(self) -> None:
        """Setup is done: the code is void from now on, and its files are gone."""
        with self._lock:
            self._set(None)
            self._seen = self._stamp()

    def reopen(self, code: str | None = None) -> str:
        """Open the door again with `code` (`companion setup --reopen` drew it) or a fresh one, said at once."""
        with self._lock:
            self._set(code or new_code())
            self._seen = self._stamp()
        self.announce()
        return self._code

    def _set(self, code: str | None) -> None:
        self._code = code
        self._keep(code)

    def _keep(self, code: str | None) -> None:
        for file in self._files:
            try:
                keep_code(file, code)
            except OSError as e:  # the journal still has it; the page still opens with it
                log.warning("setup code not %s %s (%s)", "written to" if code else "removed from", file,
                            e.strerror or e)

    def _stamp(self):
        try:
            stat = self._path.stat() if self._path is not None else None
        except OSError:
            return None
        return (stat.st_mtime_ns, stat.st_size) if stat else None

    def _look_at_file(self) -> None:
        """A config file changed behind the table's back may say `set_up = false`: `companion setup --reopen`,
        which keeps its new code beside the database; taken at once, whether or not a code is open now."""
        if self._path is None:
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
            kept = read_code(self._kept)
            if self._code is None or (kept is not None and kept != self._code):
                self.reopen(kept)
