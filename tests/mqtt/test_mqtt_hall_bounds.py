"""The hall bounded in time and memory (issue 22 #3): a flood of finished shows, stray cards, greedy tables."""

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import paho.mqtt.client as mqtt
import psutil
import pytest

from mqtt_support import WAIT_S, mosquitto  # noqa: F401  (fixtures)
from companion.clock import FakeClock
from companion.mqtt.hall import Hall
from companion.mqtt.hall.board import BEST_PER_EVENT, MAX_EVENTS, SEEN_PER_TABLE, Leaderboard
from companion.mqtt.hall.cards import FRAME_BURST, FRAME_S, MAX_TABLES, NEVER_ONLINE_S, finished_show
from companion.mqtt.hall.listener import SHOW_BURST, STATE_BURST, STATE_RATE, HallListener
from companion.mqtt.mosquitto import free_port
from companion.mqtt.settings import from_url

ROOT = Path(__file__).resolve().parents[2]
FLOOD = 10_000
FLOOD_TABLES = 100
HALL_RSS_MB = 80  # issue 24's target for the hall
BEHIND_TABLES, BEHIND_STATES = 100, 3000  # thirty states a table, three times what a broker queues for a client


def show(n: int, event: str = "training", stars: int = 1, outcome: str = "win") -> bytes:
    return json.dumps({"id": n, "event": event, "event_name": event.title(), "outcome": outcome, "stars": stars,
                       "started": f"2026-12-01T10:{n // 60 % 60:02d}:{n % 60:02d}Z", "runouts": [],
                       "advances": []}).encode()


def a_listener(clock) -> HallListener:
    hall = Hall(clock=clock)
    return HallListener(from_url("mqtt://127.0.0.1:1", table="hall"), hall, Leaderboard(":memory:"), clock=clock)


def test_thousands_of_distinct_shows_keep_the_board_capped_and_each_one_cheap():
    # Before: every show regrouped every stored show (1 000 / 2 000 / 3 000 shows: 1.4 / 5.3 / 12 s) and the
    # board, and /api/hall, grew with them. Now each show changes one row; the board holds the best few.
    board = Leaderboard(":memory:")
    for n in range(3000):
        board.record(f"t{n % 300}", finished_show(json.loads(show(n, event=f"e{n % 7}", stars=n % 4))))
    rows = board.rows()
    assert len(rows) == 7 and all(len(event["tables"]) == BEST_PER_EVENT for event in rows)
    assert sum(event["attempts"] for event in rows) == 3000  # every table still counts in its event's totals
    assert all(event["tables"][0]["best_stars"] == 3 for event in rows)
    kept = board.database.read("SELECT COUNT(*) FROM shows WHERE tbl = 't0'")[0][0]
    assert kept <= SEEN_PER_TABLE


def test_the_board_stays_within_its_cap_and_still_counts_a_new_event():
    board = Leaderboard(":memory:")
    for n in range(2 * MAX_EVENTS):
        board.record(f"t{n % 20}", finished_show(json.loads(show(n, event=f"e{n}"))))
    assert len(board.rows()) == MAX_EVENTS
    listener = HallListener(from_url("mqtt://127.0.0.1:1", table="hall"), Hall(), board)
    listener.take("companion/t/availability", b"online")
    listener.take("companion/t/shows", show(10**6, event="one-more"))
    assert len(board.rows()) == MAX_EVENTS and "one-more" in {row["event"] for row in board.rows()}


def test_a_table_over_its_budget_is_dropped_unread_and_others_go_on():
    clock = FakeClock()
    listener = a_listener(clock)
    listener.take("companion/greedy/availability", b"online")
    listener.take("companion/honest/availability", b"online")
    for n in range(1000):
        listener.take("companion/greedy/shows", show(n))
    assert listener.board.rows()[0]["attempts"] == SHOW_BURST
    listener.take("companion/honest/shows", show(1, stars=3))
    assert listener.board.rows()[0]["best_stars"] == 3
    clock.advance(60.0)  # the budget refills: a table that plays on is heard again
    listener.take("companion/greedy/shows", show(5000))
    assert listener.board.rows()[0]["attempts"] == SHOW_BURST + 2
    for _ in range(STATE_BURST + 5):
        listener.take("companion/greedy/state", b'{"outcome": "idle"}')
    assert listener.dropped >= 1000 - SHOW_BURST + 5


def test_a_state_over_its_budget_is_late_but_never_lost():
    # Before: a state over its table's budget was dropped, however new, and the card kept the one before
    # until the table's next message, for good if it had none.
    clock = FakeClock()
    listener = a_listener(clock)
    listener.take("companion/greedy/availability", b"online")
    for n in range(STATE_BURST + 5):
        listener.take("companion/greedy/state", json.dumps(_running(f"n{n}")).encode())
    assert _probe(listener.hall.view(), "greedy") == f"n{STATE_BURST - 1}"  # the budget holds: the rest wait
    clock.advance(1.0)
    listener.take("companion/other/availability", b"online")  # any message: the late state goes first
    assert _probe(listener.hall.view(), "greedy") == f"n{STATE_BURST + 4}"  # the newest, never one between
    listener.take("companion/greedy/state", json.dumps(_running("after")).encode())
    assert _probe(listener.hall.view(), "greedy") == "after"


def test_the_same_state_again_moves_nothing_and_costs_no_read():
    # A table's bridge repeats a quiet state (in case a broker dropped it): before, each repeat was read, and its
    # card sent again to every page.
    listener = a_listener(FakeClock())
    listener.take("companion/t/availability", b"online")
    listener.take("companion/t/state", json.dumps(_running("a")).encode())
    seq = listener.hall.view()["seq"]
    listener.take("companion/t/state", json.dumps(_running("a")).encode())
    assert listener.hall.view()["seq"] == seq
    listener.take("companion/t/state", json.dumps(_running("b")).encode())  # the state the broker had dropped
    assert _probe(listener.hall.view(), "t") == "b"
    listener.take("companion/t/state", b"")  # its owner cleared the retained state
    assert _probe(listener.hall.view(), "t") is None


def test_a_late_state_is_applied_by_the_halls_own_thread_once_its_budget_allows():
    clock = FakeClock()
    listener = a_listener(clock)
    listener.take("companion/greedy/availability", b"online")
    for n in range(STATE_BURST + 1):
        listener.take("companion/greedy/state", json.dumps(_running(f"n{n}")).encode())
    assert listener.catch_up() == pytest.approx(1 / STATE_RATE)  # when the thread looks again
    clock.advance(1 / STATE_RATE)
    listener.catch_up()
    assert _probe(listener.hall.view(), "greedy") == f"n{STATE_BURST}"


def test_a_hall_that_falls_behind_still_shows_every_tables_last_state(mosquitto, tmp_path):
    # Before: paho's thread applied each state and acknowledged it (QoS 1); a hall that fell behind left the
    # broker a thousand states queued and it dropped the rest, the newest among them: cards kept a state their
    # tables had left. Now states come at QoS 0, filed newest per table, and the hall applies each table's newest.
    class BusyHall(Hall):
        """A hall whose cards wait (a busy machine) until `free`."""

        def __init__(self):
            super().__init__(frame_s=0.0)
            self.free = threading.Event()

        def set_show(self, table, show):
            self.free.wait(WAIT_S)
            super().set_show(table, show)

    hall = BusyHall()
    listener = HallListener(from_url(mosquitto.url, table="hall"), hall, Leaderboard(":memory:"),
                            backoff=(0.05, 0.2)).start()
    tables = [f"t{n:03d}" for n in range(BEHIND_TABLES)]
    sender = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    sender.max_inflight_messages_set(1000)
    sender.connect("127.0.0.1", mosquitto.port)
    sender.loop_start()
    try:
        assert listener.subscribed.wait(WAIT_S)
        for n in range(BEHIND_STATES):  # more than the broker queues for one client (1 000)
            last = sender.publish(f"companion/{tables[n % len(tables)]}/state",
                                  json.dumps(_running(f"n{n}")).encode(), qos=1)
        last.wait_for_publish(WAIT_S * 3)  # the broker has every state while the hall is still busy
        hall.free.set()
        newest = {table: f"n{BEHIND_STATES - len(tables) + i}" for i, table in enumerate(tables)}
        seq = -1
        while {t: _probe(hall.view(), t) for t in tables} != newest:
            changed = hall.changes(seq, WAIT_S)
            assert changed["seq"] > seq, f"never shown: {[t for t in tables if _probe(hall.view(), t) != newest[t]]}"
            seq = changed["seq"]
    finally:
        hall.free.set()
        sender.loop_stop()
        sender.disconnect()
        listener.stop()


def test_shows_from_a_table_with_no_card_do_not_count():
    listener = a_listener(FakeClock())
    listener.take("companion/nobody/shows", show(1))
    assert listener.board.rows() == []


def test_cards_of_tables_never_seen_online_expire_and_give_way_to_real_tables():
    clock = FakeClock()
    listener = a_listener(clock)
    for n in range(MAX_TABLES):  # a stray publisher fills every card with states alone
        listener.take(f"companion/stray{n}/state", b'{"outcome": "idle"}')
    listener.take("companion/real/availability", b"online")  # a real table is not refused
    cards = {c["table"] for c in listener.hall.view()["cards"]}
    assert "real" in cards and len(cards) == MAX_TABLES and "stray0" not in cards
    seq = listener.hall.view()["seq"]
    clock.advance(NEVER_ONLINE_S + 1)
    listener.take("companion/real/state", b'{"outcome": "idle"}')
    assert [c["table"] for c in listener.hall.view()["cards"]] == ["real"]
    gone = listener.hall.changes(seq, 0)["cards"]
    assert {"table": "stray1", "gone": True} in gone


def test_a_frame_is_serialised_once_for_every_viewer_and_carries_only_what_moved():
    clock = FakeClock()
    hall = Hall(clock=clock)
    for n in range(200):
        hall.set_online(f"t{n:03d}", True)
    first = hall.frame(-1, 0)
    clock.advance(1.0)
    for _ in range(10):  # ten changes of one table between frames: one frame, one card
        hall.set_show("t007", {"outcome": "idle"})
    frames = [hall.frame(first["seq"], 0) for _ in range(40)]
    assert all(f["text"] is frames[0]["text"] for f in frames)  # the same string: serialised once
    assert [c["table"] for c in json.loads(frames[0]["text"])["cards"]] == ["t007"]


def test_a_lone_change_goes_to_the_viewers_at_once_and_only_a_run_of_changes_is_paced():
    # Before: every frame waited FRAME_S after the one before, so a table that changed just after another
    # table's change reached the page FRAME_S late, although nothing else was being sent.
    clock = FakeClock()
    hall = Hall(clock=clock)
    hall.set_online("t1", True)
    seq = hall.frame(-1, 0)["seq"]
    clock.advance(1.0)  # a quiet moment
    for n in range(FRAME_BURST):  # changes a moment apart, each a frame of its own at once
        clock.advance(0.001)
        hall.set_show("t1", {"outcome": "idle"} if n % 2 else None)
        frame = hall.frame(seq, 0)
        assert frame["seq"] > seq and frame["text"] is not None, n
        seq = frame["seq"]
    hall.set_show("t1", {"outcome": "idle"})
    hall.set_show("t2", None)
    assert hall.frame(seq, 0)["text"] is None  # the burst is spent: the next frame waits for the pace ...
    clock.advance(FRAME_S)
    frame = hall.frame(seq, 0)  # ... and carries everything that changed meanwhile
    assert [c["table"] for c in json.loads(frame["text"])["cards"]] == ["t1", "t2"]


def test_a_flood_of_10000_shows_leaves_the_hall_responsive_and_small(mosquitto, tmp_path):
    port = free_port()
    hall = subprocess.Popen([sys.executable, "-m", "companion", "hall", "--mqtt", mosquitto.url, "--port", str(port),
                             "--db", str(tmp_path / "hall.sqlite3")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
    url = f"http://127.0.0.1:{port}/api/hall"
    flooder = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    flooder.max_queued_messages_set(0)
    flooder.max_inflight_messages_set(1000)
    flooder.connect("127.0.0.1", mosquitto.port)
    flooder.loop_start()
    try:
        _until(lambda: _get(url) is not None, "the hall never started")
        for t in range(FLOOD_TABLES):
            flooder.publish(f"companion/flood{t}/availability", b"online", qos=1, retain=True)
        _until(lambda: len(_get(url)["cards"]) == FLOOD_TABLES, "the flooding tables never showed")
        last = None
        for n in range(FLOOD):
            last = flooder.publish(f"companion/flood{n % FLOOD_TABLES}/shows", show(n, event=f"e{n % 300}"), qos=1)
        last.wait_for_publish(60)
        ended = time.monotonic()  # the broker has taken the whole flood
        flooder.publish("companion/probe/state", json.dumps(_running("after-the-flood")).encode(), qos=1)
        seen = _until(lambda: _probe(_get(url)) == "after-the-flood", "the hall never showed the probe")
        took = seen - ended
        rss_mb = psutil.Process(hall.pid).memory_info().rss / 2**20
        view = _get(url)
        # The hall's work after the flood is one state message and one answer: seen at all (within _until's wait),
        # it did not regroup behind 10 000 queued shows, which took minutes before the fix. How soon is a figure,
        # printed below, not a bound a busy machine could break.
        assert rss_mb <= HALL_RSS_MB, f"the hall holds {rss_mb:.0f} MB"
        assert len(view["board"]) <= MAX_EVENTS and all(len(e["tables"]) <= BEST_PER_EVENT for e in view["board"])
        print(f"\nflood of {FLOOD} shows: probe seen {took * 1000:.0f} ms after, hall RSS {rss_mb:.1f} MB, "
              f"/api/hall {len(json.dumps(view)) // 1024} KB")
    finally:
        flooder.loop_stop()
        flooder.disconnect()
        hall.terminate()
        hall.wait(timeout=10)


def _running(name: str) -> dict:
    return {"outcome": "running", "event": {"id": "probe", "name": name},
            "countdown": {"timer": "orange", "position": 4}, "crowd_tokens_turned": 0, "stars": 0,
            "timers": {"red": {"state": "running", "top_s": 30.0}}}


def _get(url: str):
    try:
        with urllib.request.urlopen(url, timeout=WAIT_S) as answer:
            return json.loads(answer.read())
    except OSError:
        return None


def _probe(view, table: str = "probe") -> str | None:
    card = next((c for c in (view or {}).get("cards", []) if c["table"] == table), None)
    return ((card or {}).get("show") or {}).get("event", {}).get("name")


def _until(condition, what: str, timeout: float = 60.0) -> float:
    """Poll `condition` (the hall is another process) until true; the instant it was, or fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)
    return time.monotonic()
