"""The hall's ear on the broker: every table's availability, state and finished shows, read only.

paho's network thread calls `take` for each message; a message that is not
what a table sends (garbage, huge, wrong types, an unknown topic) is dropped
with one log line naming the topic and the field, and the hall listens on.
The hall never publishes: it can run with a read-only account.
"""

import logging
import threading
import secrets

from companion.errors import BadInput
from companion.mqtt import client as broker
from companion.mqtt.hall.board import Leaderboard
from companion.mqtt.hall.cards import Hall, card_show, finished_show, read_json
from companion.mqtt.settings import BrokerSettings
from companion.mqtt.topics import OFFLINE, ONLINE, QOS, Topics

log = logging.getLogger(__name__)


class HallListener:
    """Subscribes to `<base>/+/…` and keeps the hall's cards and leaderboard up to date."""

    def __init__(self, settings: BrokerSettings, hall: Hall, board: Leaderboard, *,
                 backoff: tuple[float, float] = broker.BACKOFF_S):
        self.settings, self.hall, self.board = settings, hall, board
        self._client = broker.make_client(settings, f"companion-hall-{secrets.token_hex(4)}", backoff=backoff)
        self._client.on_connect = self._on_connect
        self.subscribed = threading.Event()  # set once the broker has confirmed the subscriptions
        self._client.on_subscribe = lambda client, userdata, mid, reason_codes, properties=None: self.subscribed.set()
        self._client.on_message = lambda client, userdata, message: self.take(message.topic, message.payload)

    def start(self) -> "HallListener":
        broker.start(self._client, self.settings)
        return self

    def stop(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            log.warning("the broker at %s refused the hall: %s", self.settings.url, reason_code)
            return
        log.info("the hall listens to %s/+ on %s", self.settings.base, self.settings.url)
        client.subscribe([(topic, QOS) for topic in Topics.subscriptions(self.settings.base)])

    def take(self, topic: str, payload: bytes) -> None:
        """Apply one message; never raises (a bad message is logged and dropped)."""
        try:
            self._apply(topic, payload)
        except BadInput as e:
            log.warning("ignored a message on %s: %s", topic[:200], e)
        except Exception:  # a hall that crashes on one message would blank every card
            log.exception("ignored a message on %s that could not be applied", topic[:200])

    def _apply(self, topic: str, payload: bytes) -> None:
        found = Topics.parse(self.settings.base, topic)
        if found is None:
            raise BadInput("topic", "not a table's topic")
        table, kind = found
        if kind == "availability":
            if payload not in (ONLINE.encode(), OFFLINE.encode()):
                raise BadInput("availability", f"expected {ONLINE} or {OFFLINE}, got {payload[:40]!r}")
            self.hall.set_online(table, payload == ONLINE.encode())
        elif kind == "state":
            if not payload:
                self.hall.set_show(table, None)  # a retained state cleared by its owner
                return
            self.hall.set_show(table, card_show(read_json(payload, "state")))
        else:
            show = finished_show(read_json(payload, "shows"))
            if self.board.record(table, show):
                self.hall.set_board(self.board.rows())
