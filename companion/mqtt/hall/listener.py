"""The hall's ear on the broker: every table's availability, state and finished shows, read only.

Each message is applied by `take`; a message that is not what a table sends
(garbage, huge, wrong types, an unknown topic) is dropped with one log line
naming the topic and the field, and the hall listens on. The hall never
publishes: it can run with a read-only account.

A table's state is only ever replaced by its next one, so the hall never
lets the broker hold its states back, and never drops the newest. States are
subscribed at QoS 0: the broker writes them to the hall's socket as they
come, with no window of unacknowledged messages, which under load kept a
thousand queued and the broker dropping the newest (a card then showed a
state its table had left for good). paho's thread only files each state,
the newest per table (`Inbox`), and reads on; the hall's own thread applies
them, so a hall that falls behind applies each table's newest state once
instead of every state it missed. Availability (retained) and finished
shows (each one counts) stay at QoS 1 and are applied as they come.

Every table has a budget (`Budget`): STATE_RATE state messages a second
(twice what a bridge sends) and a finished show every SHOW_EVERY_S (with a
burst of SHOW_BURST), and only a table with a card may add to the
leaderboard. A flood from one table, or a stray publisher's, is dropped
before it is even parsed, so it costs the hall next to nothing and
cannot starve the real tables' messages. A state over the budget is not
lost, only late: the newest one waits, unread, and is applied as soon as
the budget allows.

The tables the hall's owner removed (`companion hall remove`, written in the
leaderboard's file) are looked up every REMOVALS_EVERY_S: their cards go and
their messages are dropped.
"""

import hashlib
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
STATE_QOS = 0  # a state replaces the one before: nothing to acknowledge, nothing for the broker to queue
MAX_FILED = 4 * MAX_TABLES  # tables with a state waiting to be applied: every card's and strays' besides
WAKE_S = 1.0  # the applying thread looks up this often, so it ends soon after stop()


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

    def due_in(self, now: float) -> float:
        """Seconds until `take` can be True again."""
        return max(0.0, (1 - self.tokens) / self.rate - (now - self.at))


class Inbox:
    """The newest state message of each table, not applied yet: a newer one replaces it unread.

    >>> inbox = Inbox(limit=2)
    >>> inbox.file("a", b"1"), inbox.file("a", b"2"), inbox.file("b", b"3"), inbox.file("c", b"4")
    (True, True, True, False)
    >>> inbox.take(0)
    {'a': b'2', 'b': b'3'}
    """

    def __init__(self, limit: int = MAX_FILED):
        self.limit = limit
        self._filed: dict[str, bytes] = {}
        self._changed = threading.Condition()
        self.closed = False

    def file(self, topic: str, payload: bytes) -> bool:
        """Keep `payload` as `topic`'s newest; False when too many topics wait already (a stray's flood)."""
        with self._changed:
            if topic not in self._filed and len(self._filed) >= self.limit:
                return False
            self._filed[topic] = payload
            self._changed.notify()
            return True

    def take(self, timeout: float) -> dict[str, bytes]:
        """Everything filed, as soon as something is (nothing after `timeout`); the inbox is empty after."""
        with self._changed:
            self._changed.wait_for(lambda: self._filed or self.closed, timeout)
            filed, self._filed = self._filed, {}
            return filed

    def close(self) -> None:
        """No more waiting: `take` returns at once from now on."""
        with self._changed:
            self.closed = True
            self._changed.notify_all()


class HallListener:
    """Subscribes to `<base>/+/…` and keeps the hall's cards and leaderboard up to date."""

    def __init__(self, settings: BrokerSettings, hall: Hall, board: Leaderboard, *,
                 backoff: tuple[float, float] = broker.BACKOFF_S, clock=time.monotonic):
        self.settings, self.hall, self.board = settings, hall, board
        self.clock = clock
        self._budgets: dict[tuple[str, str], Budget] = {}  # (table, kind) -> its budget; tables with a card only
        self.dropped = 0  # messages over a table's budget (counted, logged once a thousand)
        self._next_look = float("-inf")  # when to look for the owner's removals again
        self.inbox = Inbox()
        self._late: dict[str, bytes] = {}  # table -> its newest state, over its budget: applied once it allows
        self._shown: dict[str, bytes] = {}  # table -> a digest of the state its card shows: the same again is skipped
        self._applying = threading.RLock()  # paho's thread (availability, shows) and the hall's (states) take turns
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._apply_filed, name="hall-states", daemon=True)
        self._client = broker.make_client(settings, f"companion-hall-{secrets.token_hex(4)}", backoff=backoff)
        self._client.on_connect = self._on_connect
        self.subscribed = threading.Event()  # set once the broker has confirmed the subscriptions
        self._client.on_subscribe = lambda client, userdata, mid, reason_codes, properties=None: self.subscribed.set()
        self._client.on_message = lambda client, userdata, message: self.hear(message.topic, message.payload)

    def start(self) -> "HallListener":
        self._thread.start()
        broker.start(self._client, self.settings)
        return self

    def stop(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()
        self._stopping.set()
        self.inbox.close()
        if self._thread.is_alive():
            self._thread.join()

    def hear(self, topic: str, payload: bytes) -> None:
        """One message from paho's thread: a state is filed for the hall's thread, the rest applied now."""
        if topic.endswith("/state"):
            if not self.inbox.file(topic, payload):
                self._drop(topic[:80], "state", "too many tables waiting")
            return
        self.take(topic, payload)

    def _apply_filed(self) -> None:
        """The hall's thread: apply the newest filed state of each table, and the late ones their budget allows."""
        wait = WAKE_S
        while not self._stopping.is_set():
            for topic, payload in self.inbox.take(wait).items():
                self.take(topic, payload)
            wait = min(WAKE_S, self.catch_up())

    def catch_up(self) -> float:
        """Apply each late state its table's budget now allows; seconds until the next one will be (or WAKE_S)."""
        with self._applying:
            now, next_s = self.clock(), WAKE_S
            for table, payload in list(self._late.items()):
                budget = self._budgets.get((table, "state"))
                if budget is None or budget.take(now):
                    del self._late[table]
                    self.take(f"{self.settings.base}/{table}/state", payload, late=True)
                else:
                    next_s = min(next_s, budget.due_in(now))
            return next_s

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            log.warning("the broker at %s refused the hall: %s", self.settings.url, reason_code)
            return
        log.info("the hall listens to %s/+ on %s", self.settings.base, self.settings.url)
        client.subscribe([(topic, STATE_QOS if topic.endswith("/state") else QOS)
                          for topic in Topics.subscriptions(self.settings.base)])

    def take(self, topic: str, payload: bytes, *, late: bool = False) -> None:
        """Apply one message (`late`: a state its budget held back, now allowed); never raises (a bad message is
        logged and dropped)."""
        with self._applying:
            if self._late and not late:
                self.catch_up()  # a late state goes before anything that came after it
            self._take(topic, payload, late)

    def _take(self, topic: str, payload: bytes, late: bool) -> None:
        try:
            self._apply(topic, payload, late)
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

    def _apply(self, topic: str, payload: bytes, late: bool = False) -> None:
        if self.clock() >= self._next_look:
            self.look_for_removals()
        found = Topics.parse(self.settings.base, topic)
        if found is None:
            raise BadInput("topic", "not a table's topic", code="errors.hall.topic")
        table, kind = found
        if kind == "state" and not late and table in self._late:
            self._late[table] = payload  # still over its budget: the newer waits in its place
            self._drop(table, kind, "over its budget (the newest waits)")
            return
        if kind != "availability" and not late and not self._within_budget(table, kind):
            if kind == "state" and self.hall.knows(table):
                self._late[table] = payload  # never the newest lost: it waits until the budget allows
            return
        if kind == "availability":
            if payload not in (ONLINE.encode(), OFFLINE.encode()):
                raise BadInput("availability", f"expected {ONLINE} or {OFFLINE}, got {payload[:40]!r}",
                               code="errors.choice")
            self.hall.set_online(table, payload == ONLINE.encode())
        elif kind == "state":
            self._show_state(table, payload)
        else:
            if len(payload) > MAX_SHOW_BYTES:
                raise BadInput("shows", f"{len(payload)} bytes is larger than {MAX_SHOW_BYTES}",
                               code="errors.too_large")
            show = finished_show(read_json(payload, "shows"))
            if self.board.record(table, show):
                self.hall.set_board(self.board.rows)  # drawn once per frame, however many shows came

    def _show_state(self, table: str, payload: bytes) -> None:
        """Put a table's state on its card; the same state again (a table's bridge repeats a quiet state, in case a
        broker dropped it) moves nothing and is not read."""
        digest = hashlib.blake2b(payload, digest_size=16).digest()
        if self._shown.get(table) == digest and self.hall.knows(table):
            return
        if len(self._shown) >= 4 * MAX_TABLES:  # tables come and go: forget those now gone
            self._shown = {t: d for t, d in self._shown.items() if self.hall.knows(t)}
        self._shown.pop(table, None)  # until this one is on the card
        if not payload:
            self.hall.set_show(table, None)  # a retained state cleared by its owner
        else:
            self.hall.set_show(table, card_show(read_json(payload, "state")))
        self._shown[table] = digest

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
