"""The table's door: its PIN, the names and the address it answers on, its name and language (ports.Door)."""

import logging
import secrets
from pathlib import Path

from companion.table.configured import Configured
from companion.table.private import write_private

log = logging.getLogger(__name__)

PIN_DIGITS = 6  # a drawn PIN: 4 digits fall to a patient guesser in days, 6 in years (docs/security.md)
KEPT_PIN_FILE = "pin"  # beside the database: a drawn PIN outlives a restart, a crash or an update


def draw_pin() -> str:
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"


class KeptPin:
    """A drawn PIN, kept in a file of the table's own (mode 600) so that players never meet a new PIN because
    the table restarted mid-show; `companion setup --new-pin` draws another, and a running table takes it
    (the file is looked at again whenever it changed)."""

    def __init__(self, path: Path):
        self.path = path
        self._seen, self._pin = None, None

    def get(self) -> str:
        stamp = self._stamp()
        if stamp is None or stamp != self._seen:
            self._pin = self._read() if stamp is not None else None
            if self._pin is None:
                self._pin = self.renew()
                stamp = self._stamp()
            self._seen = stamp
        return self._pin

    def renew(self, *, owner_of: Path | None = None) -> str:
        """A new PIN, kept (as root: given to `owner_of`'s owner, the table's user)."""
        pin = draw_pin()
        try:
            write_private(self.path, pin, owner_of=owner_of)
        except OSError as e:
            if owner_of is not None:  # the owner asked for it: they hear why it failed
                raise
            log.warning("the drawn PIN is not kept across restarts: %s (%s)", self.path, e.strerror or e)
        return pin

    def _read(self) -> str | None:
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError) as e:
            log.warning("a new PIN is drawn: %s cannot be read (%s)", self.path, e)
            return None
        if len(text) == PIN_DIGITS and text.isdigit() and text.isascii():
            return text
        log.warning("a new PIN is drawn: %s does not hold a %d-digit PIN", self.path, PIN_DIGITS)
        return None

    def _stamp(self):
        try:
            stat = self.path.stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size, stat.st_ino


class TableDoor:
    """Who may come in, and where. The PIN is the one given at start (`--pin`), else the config's, else one
    drawn once and kept beside the database (said on the start-up lines)."""

    def __init__(self, configured: Configured, pin: str | None = None):
        web = configured.now.web
        self._configured = configured
        database = str(configured.now.database)
        self._given = pin or web.pin or (draw_pin() if database == ":memory:" else None)  # nowhere to keep it
        self._kept = None if self._given else KeptPin(Path(database).parent / KEPT_PIN_FILE)
        self.allowed_hosts = web.allowed_hosts  # names the web answers to besides the machine's own
        self.listening = (web.host, web.port)  # where the web answers; the server's start sets it

    @property
    def pin(self) -> str:
        return self._given or self._kept.get()

    @pin.setter
    def pin(self, pin: str) -> None:
        """A PIN set on the setup page: the config holds it from now on."""
        self._given = pin

    @property
    def name(self) -> str:
        return self._configured.now.name

    @property
    def language(self) -> str | None:
        return self._configured.now.language
