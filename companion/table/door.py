"""The table's door: its PIN, the names and the address it answers on, its name and language (ports.Door)."""

import secrets

from companion.table.configured import Configured

PIN_DIGITS = 6  # a drawn PIN: 4 digits fall to a patient guesser in days, 6 in years (docs/security.md)


class TableDoor:
    """Who may come in, and where; the PIN is the config's, or one drawn at start (said on the start-up lines)."""

    def __init__(self, configured: Configured, pin: str | None = None):
        web = configured.now.web
        self._configured = configured
        self.pin = pin or web.pin or f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"
        self.allowed_hosts = web.allowed_hosts  # names the web answers to besides the machine's own
        self.listening = (web.host, web.port)  # where the web answers; the server's start sets it

    @property
    def name(self) -> str:
        return self._configured.now.name

    @property
    def language(self) -> str | None:
        return self._configured.now.language
