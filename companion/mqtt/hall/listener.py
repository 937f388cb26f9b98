"""The hall's ear on the broker: every table's availability, state and finished shows, read only.

paho's network thread calls `take` for each message; a message that is not
what a table sends (garbage, huge, wrong types, an unknown topic) is dropped
with one log line naming the topic and the field, and the hall listens on.
The hall never publishes: it can run with a read-only account.

Every table has a budget (`Budget`): STATE_RATE state messages a second
(twice what a bridge sends) and a finished show every SHOW_EVERY_S (with a
burst of SHOW_BURST), and only a table with a card may add to the
leaderboard. A flood from one table, or a stray publisher's, is dropped
before it is even parsed, so it costs the hall next to nothing and
cannot starve the real tables' messages.

The tables the hall's owner removed (`companion hall remove`, written in the
leaderboard's file) are looked up every REMOVALS_EVERY_S: their cards go and
their messages are dropped.
"""

import logging
import secrets
import threading
import time

from companion.errors import BadInput
from companion.mqtt import client as broker
from companion.mqtt.hall.board import Leaderboard
from companion.mqtt.hall.cards import MAX_TABLES, Hall, card_show, finished_show, read_json
from companion.mqtt.settings import BrokerSettings
from companion.mqtt.topics import OFFLINE, ONLINE, QOS, Topics

log = logging.getLogger(__name__)

STATE_RATE, STATE_BURST = 20.0, 40  # state messages a second per table: a bridge sends at most 10
SHOW_EVERY_S, SHOW_BURST = 10.0, 10  # a show lasts minutes; a reconnect may resend a few at once
MAX_SHOW_BYTES = 16 * 1024  # a finished show's row with its run-outs and advances is far smaller
REMOVALS_EVERY_S = 5.0  # the owner's removal shows within seconds, for one small read of the file


class Budget:
    """A token bucket: `burst` at once, then `rate` a second; `take()` False when spent.

    >>> budget = Budget(rate=1.0, burst=2, clock=lambda: 0.0)
    >>> budget.take(0.0), budget.take(0.0), budget.take(0.0), budget.take(1.0)
    (True, True, False, True)
    """

    def __init__(self, rate: float, burst: int, clock=time.monotonic):
        self.rate, self.burst = rate, burst
        self.tokens, self.at = float(burst), clock()

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class HallListener:
    """Subscribes to `<base>/+/…` and keeps the hall's cards and leaderboard up to date."""

    def __init__(self, settings: BrokerSettings, hall: Hall, board: Leaderboard, *,
                 backoff: tuple[float, float] = broker.BACKOFF_S, clock=time.monotonic):
        self.settings, self.hall, self.board = settings, hall, board
        self.clock = clock
        self._budgets: dict[tuple[str, str], Budget] = {}  # (table, kind) -> its budget; tables with a card only
        self.dropped = 0  # messages over a table's budget (counted, logged once a thousand)
        self._next_look = float("-inf")  # when to look for the owner's removals again
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

    def look_for_removals(self) -> None:
        """Take the tables the owner removed since the last look off the hall."""
        self._next_look = self.clock() + REMOVALS_EVERY_S
        for table in self.board.removals():
            self.hall.remove(table)
            log.info("the hall's owner removed %s", table[:80])

    def _apply(self, topic: str, payload: bytes) -> None:
        if self.clock() >= self._next_look:
            self.look_for_removals()
        found = Topics.parse(self.settings.base, topic)
        if found is None:
            raise BadInput("topic", "not a table's topic", code="errors.hall.topic")
        table, kind = found
        if kind != "availability" and not self._within_budget(table, kind):
            return
        if kind == "availability":
            if payload not in (ONLINE.encode(), OFFLINE.encode()):
                raise BadInput("availability", f"expected {ONLINE} or {OFFLINE}, got {payload[:40]!r}",
                               code="errors.choice")
            self.hall.set_online(table, payload == ONLINE.encode())
        elif kind == "state":
            if not payload:
                self.hall.set_show(table, None)  # a retained state cleared by its owner
                return
            self.hall.set_show(table, card_show(read_json(payload, "state")))
        else:
            if len(payload) > MAX_SHOW_BYTES:
                raise BadInput("shows", f"{len(payload)} bytes is larger than {MAX_SHOW_BYTES}",
                               code="errors.too_large")
            show = finished_show(read_json(payload, "shows"))
            if self.board.record(table, show):
                self.hall.set_board(self.board.rows)  # drawn once per frame, however many shows came

    def _within_budget(self, table: str, kind: str) -> bool:
        """False for a message over its table's budget, or a finished show from a table with no card."""
        if kind == "shows" and not self.hall.knows(table):
            self._drop(table, kind, "a table the hall has no card for")
            return False
        budget = self._budgets.get((table, kind))
        if budget is None:
            if len(self._budgets) >= 4 * MAX_TABLES:  # tables come and go: forget budgets of those now gone
                self._budgets = {key: b for key, b in self._budgets.items() if self.hall.knows(key[0])}
            rate, burst = (STATE_RATE, STATE_BURST) if kind == "state" else (1 / SHOW_EVERY_S, SHOW_BURST)
            budget = self._budgets[(table, kind)] = Budget(rate, burst, self.clock)
        if budget.take(self.clock()):
            return True
        self._drop(table, kind, "over its budget")
        return False

    def _drop(self, table: str, kind: str, why: str) -> None:
        self.dropped += 1
        if self.dropped % 1000 == 1:
            log.warning("dropped a %s message of %s (%s); %d dropped so far", kind, table[:80], why, self.dropped)
