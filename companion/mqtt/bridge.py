"""One table on a broker: availability with a last will, its live state retained, each finished show.

The bridge has a thread of its own that waits on the table for the next
change (its show desk's `wait_for_change`), and paho's network thread; the table's
runtime thread never waits for either. While the broker is away the bridge
keeps only the newest state and the finished shows not yet sent, and sends
them (with the discovery config and `online`) as soon as it is back.

Each state goes out once, as it should read: a state between shows says
how the show before it ended (`last_show`), and the table's records of a
show may lag its state by a moment, so such a state waits for the record
(at most RECORD_WAIT_S) rather than going out with the show before that
and being put right a moment later — which a watcher would take for two
changes of the table.

A table joins a broker with `Bridge(table, from_url("mqtt://127.0.0.1:1883",
table="t1")).start()`, and leaves it with the bridge's `stop()`.
"""

import json
import logging
import threading
import time
from collections import deque

from companion import __version__
from companion.mqtt import client as broker
from companion.mqtt.discovery import discovery_messages, progress_payload
from companion.mqtt.pacer import Pacer
from companion.mqtt.settings import BrokerSettings
from companion.mqtt.topics import OFFLINE, ONLINE, QOS, Topics
from companion.ports import Ports

log = logging.getLogger(__name__)

STATE_INTERVAL_S = 0.1  # at most ten state messages a second over any while; the newest wins
# A turn, the run-out it causes and the countdown's advance may come within a few milliseconds: after a quiet
# moment this many go out at once, not each held a tenth of a second behind the one before.
STATE_BURST = 3
WAKE_S = 1.0  # the waiting thread looks up this often, so it ends soon after stop()
RECHECK_S = 0.1  # how soon to look again for the record of a show that has just ended
RECORD_WAIT_S = 2.0  # how long a state between shows waits for the record of the show that ended
MAX_UNSENT_SHOWS = 100  # finished shows kept while the broker is away (the oldest go first)
STOP_TIMEOUT_S = 2.0  # how long stop() waits for `offline` to reach the broker
# A broker drops the newest messages for a listener too slow to take them (Mosquitto past its queue: "Outgoing
# messages are being dropped"), and a table that then stays still would leave that listener its older state for good:
# a state unchanged this long is sent again (the same bytes), so no listener lags a quiet table by more than this.
# One small message in five seconds.
REFRESH_S = 5.0
# A listener is dropped messages when it is furthest behind, which is when the tables change most: a change is sent
# again this soon after it went out (once, if the table has not changed since), so a hall shows a table's newest
# state within a second even when the broker dropped it. One more message per change of a table in play.
ECHO_S = 0.5


def _payload(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class Bridge:
    """Publishes one table on a broker: its show desk's state (companion.ports.ShowDesk), its ledger's
    finished shows (companion.ports.Ledger)."""

    def __init__(self, table, settings: BrokerSettings, *, interval_s: float = STATE_INTERVAL_S,
                 burst: int = STATE_BURST, backoff: tuple[float, float] = broker.BACKOFF_S, clock=time.monotonic):
        ports: Ports = table.ports
        self.desk, self.ledger, self.settings = ports.desk, ports.ledger, settings
        self.progress = ports.progress  # the campaign's stars and events won (None: a table that keeps none)
        self.topics = Topics(settings.base, settings.table)
        self._client = broker.make_client(settings, f"companion-{settings.base}-{settings.table}".replace("/", "-"),
                                          will=(self.topics.availability, OFFLINE), backoff=backoff)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_connect_fail = lambda client, userdata: self._answer("the broker cannot be reached")
        self._pacer, self._clock = Pacer(interval_s, burst=burst), clock
        self._lock = threading.Lock()  # one state publication at a time, so an older one never lands last
        self._state: bytes | None = None
        self._progress: bytes | None = None  # the campaign's progress as last sent (retained), sent again on connect
        self._unsent: deque[bytes] = deque(maxlen=MAX_UNSENT_SHOWS)
        self._online = False
        self._running: int | None = None  # the show running at the last look
        self._pending = False  # a show has ended that the records do not yet say has
        self._sent_up_to = 0  # shows up to this id are sent (or ended before the bridge started)
        self._last_show: dict | None = None  # the show that ended last, {"id", "outcome"}, told with an idle state
        self._early: dict | None = None  # an idle state that went out before the record it waited for: sent again
        self._held: dict | None = None  # the newest state, not sent yet: one between shows waits for a record
        self._held_since = 0.0  # when the state now held was first held (on `clock`)
        self._sent_at = 0.0  # when the state was last sent (on `clock`)
        self._echoed = True  # whether the state last sent has been sent again once (ECHO_S after it went out)
        self._stopping = threading.Event()
        self._answered = threading.Condition()
        self.problem: str | None = None  # why the last try to join the broker failed (None: it did not)
        self._answers = 0
        self._thread = threading.Thread(target=self._follow, name="mqtt-bridge", daemon=True)

    @property
    def online(self) -> bool:
        return self._online

    def wait_for_answer(self, timeout: float) -> bool:
        """Wait until the broker has accepted or refused the table (or cannot be reached); False after `timeout`."""
        with self._answered:
            return self._answered.wait_for(lambda: self._answers > 0, timeout)

    def _answer(self, problem: str | None) -> None:
        if problem:
            log.warning("table %s cannot join the broker at %s: %s", self.topics.table, self.settings.url, problem)
        with self._answered:
            self.problem = problem
            self._answers += 1
            self._answered.notify_all()

    def start(self) -> "Bridge":
        self._send_progress()
        ended = [row for row in self.ledger.shows() if row.get("ended")]
        self._sent_up_to = max((row["id"] for row in ended), default=0)
        if ended:
            self._last_show = _ended_show(max(ended, key=lambda row: row["id"]))
        broker.start(self._client, self.settings)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Say `offline` (a clean goodbye sends no will) and disconnect."""
        self._stopping.set()
        self._thread.join(timeout=WAKE_S * 2)
        if self._online:
            info = self._client.publish(self.topics.availability, OFFLINE, qos=QOS, retain=True)
            try:
                info.wait_for_publish(timeout=STOP_TIMEOUT_S)
            except RuntimeError:
                pass  # the connection went while saying goodbye: the will says it instead
        self._online = False
        self._client.disconnect()
        self._client.loop_stop()

    # ---- paho's thread ----------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            self._answer(f"refused: {reason_code}")
            return
        log.info("table %s joined the broker at %s", self.topics.table, self.settings.url)
        for topic, config in discovery_messages(self.topics, __version__, progress=self.progress is not None).items():
            client.publish(topic, _payload(config), qos=QOS, retain=True)
        with self._lock:
            self._online = True
            if self._state is not None:
                client.publish(self.topics.state, self._state, qos=QOS, retain=True)
            if self._progress is not None:
                client.publish(self.topics.progress, self._progress, qos=QOS, retain=True)
            while self._unsent:
                client.publish(self.topics.shows, self._unsent.popleft(), qos=QOS)
        client.publish(self.topics.availability, ONLINE, qos=QOS, retain=True)
        self._answer(None)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if self._online:
            log.warning("lost the broker at %s (%s); reconnecting", self.settings.url, reason_code)
        self._online = False

    # ---- the bridge's thread ---------------------------------------------

    def _follow(self) -> None:
        seq = -1  # the newest state looked at
        while not self._stopping.is_set():
            try:
                waiting = self._pending or self._held is not None
                snapshot = self.desk.wait_for_change(seq, RECHECK_S if waiting else self._quiet_wait_s())
                if snapshot["seq"] > seq:
                    hold = self._pacer.wait_s(self._clock())
                    if hold and self._stopping.wait(hold):
                        break
                    snapshot = self.desk.snapshot()  # the newest, after holding back
                    seq = snapshot["seq"]
                    self._hold(snapshot)
                    self._note_finished(snapshot)
                elif self._pending:
                    self._note_finished(snapshot, again=True)
                if self._held is not None and self._ready(self._held):
                    self._send_state(self._held)
                    self._held = None
                    self._pacer.sent(self._clock())
                elif self._held is None and self._clock() >= self._resend_at():
                    self._send_again()
            except Exception:  # the bridge must never stop following because one message failed
                log.exception("the bridge could not publish the table's state")
                self._stopping.wait(WAKE_S)

    def _resend_at(self) -> float:
        """When the state last sent goes out again: ECHO_S after it first went, then every REFRESH_S."""
        return self._sent_at + (REFRESH_S if self._echoed else ECHO_S)

    def _quiet_wait_s(self) -> float:
        """How long to wait for a change with nothing held: until the state is due to go again, WAKE_S at most."""
        return min(WAKE_S, max(RECHECK_S / 10, self._resend_at() - self._clock()))

    def _hold(self, snapshot: dict) -> None:
        if self._held is None:
            self._held_since = self._clock()
        self._held = snapshot

    def _ready(self, snapshot: dict) -> bool:
        """Whether a state can go out: one between shows only once the show before it is recorded as ended.

        Past RECORD_WAIT_S (the store is failing, say) it goes out with the
        show known to have ended last, and again once the record comes.
        """
        if snapshot.get("outcome") != "idle" or not self._pending:
            return True
        return self._clock() - self._held_since >= RECORD_WAIT_S

    def _send_state(self, snapshot: dict) -> None:
        """Publish the table's state; between shows, with the show that ended last (`last_show`)."""
        with self._lock:
            idle = snapshot.get("outcome") == "idle"
            self._early = snapshot if idle and self._pending else None
            if idle and self._last_show is not None:
                snapshot = {**snapshot, "last_show": dict(self._last_show)}
            self._state = _payload(snapshot)
            self._sent_at, self._echoed = self._clock(), False
            if self._online:
                self._client.publish(self.topics.state, self._state, qos=QOS, retain=True)

    def _send_again(self) -> None:
        """The state as last sent, once more: a listener that missed it (its broker dropped it) has it now."""
        with self._lock:
            self._sent_at, self._echoed = self._clock(), True
            if self._online and self._state is not None:
                self._client.publish(self.topics.state, self._state, qos=QOS, retain=True)

    def _send_show(self, row: dict) -> None:
        with self._lock:
            if self._online:
                self._client.publish(self.topics.shows, _payload(row), qos=QOS)
            else:
                self._unsent.append(_payload(row))

    def _send_progress(self) -> None:
        """The campaign's stars and events won, as they stand (retained): a show that ended may have moved them."""
        if self.progress is None:
            return
        payload = _payload(progress_payload(self.progress.campaign()))
        with self._lock:
            self._progress = payload
            if self._online:
                self._client.publish(self.topics.progress, payload, qos=QOS, retain=True)

    def _note_finished(self, snapshot: dict, *, again: bool = False) -> None:
        """Send each show that ended since the last look: its row, its run-outs and advances.

        A running show cannot have ended, so the records are looked at only
        when the state is not a running show, or is another one than before.
        The records may lag the state by a moment (the journal is written
        after the state is published): a show that has ended but is not yet
        recorded as ended is looked at `again` shortly after.
        """
        running = snapshot.get("id") if snapshot.get("outcome") == "running" else None
        if not again and running is not None and running == self._running:
            return
        self._running, self._pending = running, False
        told = False
        for row in reversed(self.ledger.shows()):
            if row["id"] <= self._sent_up_to:
                continue
            if row.get("ended") is None:
                self._pending = row["id"] != running
                break  # the shows after it wait their turn, so they go out in order
            self._sent_up_to = row["id"]
            self._send_show(finished_show(row, self.ledger.show_log(row["id"])))
            self._last_show, told = _ended_show(row), True
        if told:
            self._send_progress()
        if told and self._early is not None and self._held is None:  # the record came after all: say it again
            self._hold(self._early)


def _ended_show(row: dict) -> dict:
    return {"id": row["id"], "outcome": row["outcome"]}


def finished_show(row: dict, log_lines: list[str] | None) -> dict:
    """A past show's row with its run-outs and advances, replayed from its log."""
    from companion.skyrockets.log import LogError, replay

    try:
        result = replay(log_lines or []).result()
    except LogError as e:
        log.warning("show %s: its log does not replay (%s); sent without run-outs", row["id"], e)
        result = {}
    return {**row, "runouts": result.get("runouts", []), "advances": result.get("advances", [])}
