"""The topics of one table on a broker, and reading a topic back into its table and kind.

>>> topics = Topics("companion", "table-3")
>>> topics.state
'companion/table-3/state'
>>> Topics.parse("companion", "companion/table-3/availability")
('table-3', 'availability')
>>> Topics.parse("companion", "companion/a/b/state") is None
True
"""

from dataclasses import dataclass

from companion.mqtt.settings import NAME_PATTERN

KINDS = ("availability", "state", "shows")
ONLINE, OFFLINE = "online", "offline"
QOS = 1


@dataclass(frozen=True)
class Topics:
    """`<base>/<table>/availability`, `…/state` and `…/shows`."""

    base: str
    table: str

    @property
    def availability(self) -> str:
        return f"{self.base}/{self.table}/availability"

    @property
    def state(self) -> str:
        return f"{self.base}/{self.table}/state"

    @property
    def shows(self) -> str:
        return f"{self.base}/{self.table}/shows"

    @property
    def progress(self) -> str:
        """The table's campaign progress (retained); not one of the hall's KINDS: the hall has its own board."""
        return f"{self.base}/{self.table}/progress"

    @staticmethod
    def subscriptions(base: str) -> list[str]:
        """What the hall listens to: every table's topics under `base`."""
        return [f"{base}/+/{kind}" for kind in KINDS]

    @staticmethod
    def parse(base: str, topic: str) -> tuple[str, str] | None:
        """(table, kind) for one of a table's topics under `base`, else None."""
        prefix = f"{base}/"
        if not topic.startswith(prefix):
            return None
        levels = topic[len(prefix):].split("/")
        if len(levels) != 2 or levels[1] not in KINDS or not NAME_PATTERN.fullmatch(levels[0]):
            return None
        return levels[0], levels[1]
