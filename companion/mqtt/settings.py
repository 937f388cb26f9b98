"""How a table or the hall reaches its broker: the `[mqtt]` config section, or a URL on the command line.

The section is read and checked here, key by key, each problem naming its key:

>>> s = from_url("mqtt://broker.local/table-3")
>>> s.host, s.port, s.tls, s.table, s.base
('broker.local', 1883, False, 'table-3', 'companion')
>>> parse_section({"url": "mqtts://hall:8883", "tbale": "x"}).host
Traceback (most recent call last):
...
companion.errors.BadInput: mqtt.tbale: unknown key

The password is never on the command line nor in the config itself: the
config names a file that holds it (readable by the daemon only), read when
the bridge connects.
"""

import re
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from companion.errors import BadInput
from companion.fields import text
from companion.section import Section

SECTION = "mqtt"
DEFAULT_BASE = "companion"
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}
NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what a Home Assistant node id allows, and a safe topic level
MAX_PASSWORD_BYTES = 1024  # a password file is one short line


@dataclass(frozen=True)
class BrokerSettings:
    """One broker and this table's place on it: `<base>/<table>/…`."""

    host: str
    port: int = 1883
    tls: bool = False
    ca_file: Path | None = None  # None with tls: the system's CA store
    username: str | None = None
    password_file: Path | None = None
    table: str = "table"
    base: str = DEFAULT_BASE

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"

    def password(self) -> str | None:
        """The password from `password_file` (its first line), or None without one."""
        if self.password_file is None:
            return None
        field = f"{SECTION}.password_file"
        try:
            raw = self.password_file.read_bytes()[:MAX_PASSWORD_BYTES + 1]
        except OSError as e:
            raise BadInput(field, f"cannot read {self.password_file} ({e.strerror or e})",
                           code="errors.file.unreadable") from None
        if len(raw) > MAX_PASSWORD_BYTES:
            raise BadInput(field, f"{self.password_file} is longer than {MAX_PASSWORD_BYTES} bytes",
                           code="errors.file.too_long", params={"limit": MAX_PASSWORD_BYTES})
        try:
            lines = raw.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            raise BadInput(field, f"{self.password_file} is not UTF-8 text", code="errors.file.not_utf8") from None
        if not lines or not lines[0]:
            raise BadInput(field, f"{self.password_file} is empty", code="errors.file.empty")
        return lines[0]


def host_name() -> str:
    """This machine's name as a topic level: the default name of its table."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname().split(".")[0])[:64]
    return name or "table"


def check_name(value: object, field: str) -> str:
    """The table's name on the broker (a topic level): refused as a name, never as the broker's address."""
    if not NAME_PATTERN.fullmatch(text(value, field, code="errors.mqtt.name")):
        raise BadInput(field, f"expected 1 to 64 letters, digits, '-' or '_', got {value!r}",
                       code="errors.mqtt.name")
    return value


def check_base(value: object, field: str) -> str:
    """A topic prefix: names joined by '/' (no wildcards, no empty levels)."""
    if not all(NAME_PATTERN.fullmatch(level) for level in text(value, field, code="errors.mqtt.base").split("/")):
        raise BadInput(field, f"expected names of letters, digits, '-' or '_' joined by '/', got {value!r}",
                       code="errors.mqtt.base")
    return value


def from_url(url: object, field: str = "mqtt", *, table: str | None = None, base: str = DEFAULT_BASE,
             username: str | None = None, password_file: Path | None = None,
             ca_file: Path | None = None) -> BrokerSettings:
    """Settings from `mqtt://host[:port][/table]` or `mqtts://host[:port][/table]`."""
    try:
        parts = urlsplit(text(url, field, expected="a URL in quotes", code="errors.setup.broker_url"))
        port = parts.port
    except ValueError as e:
        raise BadInput(field, f"{url!r} is not a broker URL ({e})", code="errors.setup.broker_url") from None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        raise BadInput(field, f"{url!r} is not a broker URL (mqtt://host:port or mqtts://host:port)",
                       code="errors.setup.broker_url")
    if parts.username or parts.password:
        raise BadInput(field, "no user or password in the URL: use username and password_file",
                       code="errors.setup.broker_url")
    if parts.query or parts.fragment:
        raise BadInput(field, f"{url!r}: a broker URL has only a host, a port and the table's name",
                       code="errors.setup.broker_url")
    named = parts.path.strip("/")  # mqtt://host:port/table-3 names the table too
    if named:
        if table is not None:
            raise BadInput(field, "the table is named twice (in the URL and as table): name it once",
                           code="errors.setup.broker_url")
        table = check_name(named, field)
    return BrokerSettings(
        host=parts.hostname, port=port or DEFAULT_PORTS[parts.scheme], tls=parts.scheme == "mqtts",
        ca_file=ca_file, username=username, password_file=password_file,
        table=check_name(table if table is not None else host_name(), f"{SECTION}.table"),
        base=check_base(base, f"{SECTION}.base"))


def read(section) -> BrokerSettings | None:
    """The `[mqtt]` section (a companion.section.Section), checked key by key; None when the file has none."""
    if not section.keys():
        return None
    name = section.name
    url = section.text("url", None)
    username = section.text("username", None)
    password_file = section.text("password_file", None)
    ca_file = section.text("ca_file", None)
    table = section.text("table", None)
    base = section.text("base", DEFAULT_BASE)
    section.done()  # a mistyped key is named, not the url it seems to leave out
    if url is None:
        raise BadInput(f"{name}.url", "missing (e.g. url = \"mqtt://broker.local:1883\")", code="errors.missing")
    settings = from_url(url, f"{name}.url", table=None if table is None else check_name(table, f"{name}.table"),
                        base=check_base(base, f"{name}.base"), username=username,
                        password_file=Path(password_file) if password_file else None,
                        ca_file=Path(ca_file) if ca_file else None)
    if settings.password_file is not None and settings.username is None:
        raise BadInput(f"{name}.username", "a password_file needs a username", code="errors.mqtt.username")
    if settings.ca_file is not None and not settings.tls:
        raise BadInput(f"{name}.ca_file", "a CA file is for mqtts:// URLs", code="errors.mqtt.ca_file")
    return settings


def parse_section(data: object, name: str = SECTION) -> BrokerSettings | None:
    """The `[mqtt]` section from its raw TOML table (the hall reads it so), unknown keys refused."""
    section = Section(data, name)
    settings = read(section)
    section.done()
    return settings
