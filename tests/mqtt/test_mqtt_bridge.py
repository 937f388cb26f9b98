"""The bridge against a real broker: retained state and availability, pacing, finished shows, each state once and
as it should read, reconnecting."""

import json
import time

import pytest
from hypothesis import given, settings, strategies as st
from mqtt_support import LaggingRecords, listen, mosquitto, need_mosquitto, play_to_a_win  # noqa: F401  (fixtures)

from companion.clock import FakeClock
from companion.mqtt.bridge import ECHO_S, RECORD_WAIT_S, REFRESH_S, STATE_BURST, Bridge
from companion.mqtt.pacer import Pacer
from companion.mqtt.mosquitto import Mosquitto
from companion.mqtt.settings import from_url


@pytest.fixture
def bridged(table, mosquitto):
    """The demo table (fake clock) published as `t1`; the bridge is stopped after the test."""
    bridges = []

    def start(source=None, **options):
        bridges.append(Bridge(source or table, from_url(mosquitto.url, table="t1"), backoff=(0.05, 0.2),
                              **options).start())
        return bridges[-1]

    yield start
    for bridge in bridges:
        bridge.stop()


def seq_of(payload: bytes) -> int:
    return json.loads(payload)["seq"]


def test_state_and_availability_are_retained_for_a_late_subscriber(table, mosquitto, bridged, listen):
    bridge = bridged()
    first = listen(mosquitto.port)
    first.wait_for(lambda l: l.on("companion/t1/availability") == [b"online"])
    table.desk.start_show("training")
    first.wait_for(lambda l: any(json.loads(p)["outcome"] == "running" for p in l.on("companion/t1/state")))

    late = listen(mosquitto.port, "companion/#")
    late.wait_for(lambda l: l.on("companion/t1/availability") and l.on("companion/t1/state"))
    retained = {topic: payload for topic, payload, flag in late.messages if flag}
    assert retained["companion/t1/availability"] == b"online"
    state = json.loads(retained["companion/t1/state"])
    assert state["outcome"] == "running" and state["event"]["id"] == "training"
    assert state == table.desk.snapshot()
    assert bridge.online


def test_a_clean_stop_leaves_offline_retained(table, mosquitto, bridged, listen):
    bridge = bridged()
    watcher = listen(mosquitto.port, "companion/t1/availability")
    watcher.wait_for(lambda l: l.on("companion/t1/availability") == [b"online"])
    bridge.stop()
    watcher.wait_for(lambda l: l.on("companion/t1/availability")[-1:] == [b"offline"])
    late = listen(mosquitto.port, "companion/t1/availability")
    late.wait_for(lambda l: l.on("companion/t1/availability") == [b"offline"])


def test_a_burst_of_changes_is_coalesced_and_the_newest_wins(table, mosquitto, bridged, listen):
    bridged(interval_s=0.1)
    watcher = listen(mosquitto.port, "companion/t1/state")
    table.desk.start_show("training")
    watcher.wait_for(lambda l: l.on("companion/t1/state")
                     and seq_of(l.on("companion/t1/state")[-1]) == table.desk.snapshot()["seq"])
    before = len(watcher.on("companion/t1/state"))
    began = time.monotonic()
    for _ in range(30):  # thirty changes, far faster than ten a second
        table.desk.set_muted(not table.desk.snapshot()["muted"])
    newest = table.desk.snapshot()["seq"]
    watcher.wait_for(lambda l: seq_of(l.on("companion/t1/state")[-1]) == newest)
    elapsed = time.monotonic() - began
    seqs = [seq_of(p) for p in watcher.on("companion/t1/state")]
    assert seqs == sorted(seqs)
    assert len(seqs) - before <= 2 + elapsed / 0.1, "more than ten state messages a second"
    assert len(seqs) - before < 30


def test_after_a_quiet_moment_a_few_changes_go_out_at_once_not_a_tenth_of_a_second_apart(table, mosquitto, bridged,
                                                                                          listen):
    # Before: each change was held until `interval_s` after the one before, so a turn and the run-out it caused
    # reached the hall a tenth of a second apart. The bridge's clock stands still here, with a pace of one
    # message in 1 000 s: only a burst that needs no waiting can get these out.
    bridge_clock = FakeClock()
    bridged(clock=bridge_clock, interval_s=1000.0)
    watcher = listen(mosquitto.port, "companion/t1/state")
    watcher.wait_for(lambda l: l.on("companion/t1/state"))  # the state it starts with
    bridge_clock.advance(1000.0 * STATE_BURST)  # a quiet while: the whole burst is there again
    for _ in range(STATE_BURST):
        table.desk.set_muted(not table.desk.snapshot()["muted"])
        newest = table.desk.snapshot()["seq"]
        watcher.wait_for(lambda l: l.on("companion/t1/state") and seq_of(l.on("companion/t1/state")[-1]) == newest)


def test_a_change_is_sent_again_soon_after_then_while_quiet_so_a_listener_that_missed_it_has_it(
        table, mosquitto, bridged, listen):
    # Before: a state went out once, later only after REFRESH_S. A broker drops the newest messages for a listener
    # too slow to take them, so a table that then stayed still left that listener (the hall) its older state.
    bridge_clock = FakeClock()
    bridged(clock=bridge_clock)
    watcher = listen(mosquitto.port, "companion/t1/state")
    table.desk.start_show("training")
    newest = table.desk.snapshot()["seq"]
    watcher.wait_for(lambda l: l.on("companion/t1/state") and seq_of(l.on("companion/t1/state")[-1]) == newest)
    for wait_s in (ECHO_S, REFRESH_S):  # once soon after it went out, then every REFRESH_S while nothing changes
        sent = len(watcher.on("companion/t1/state"))
        bridge_clock.advance(wait_s)
        watcher.wait_for(lambda l: len(l.on("companion/t1/state")) > sent)
        again = watcher.on("companion/t1/state")
        assert again[-1] == again[-2] and seq_of(again[-1]) == newest  # the same bytes: nothing changed


@settings(max_examples=200, deadline=None)
@given(gaps=st.lists(st.floats(0.0, 0.3), min_size=1, max_size=80), burst=st.integers(1, 5))
def test_the_pace_never_lets_more_than_a_burst_and_one_an_interval_through(gaps, burst):
    interval, pacer, now, sent = 0.1, Pacer(0.1, burst=burst), 0.0, []
    for gap in gaps:  # a change every `gap`; the bridge holds each as the pacer says, then sends the newest
        now += gap
        now += pacer.wait_s(now)
        pacer.sent(now)
        sent.append(now)
    for i, start in enumerate(sent):
        within = [t for t in sent[i:] if t - start < 1.0]
        assert len(within) <= burst + 1.0 / interval + 1e-9


def test_a_finished_show_is_sent_once_with_its_runouts_and_advances(table, mosquitto, bridged, listen, clock):
    bridged()
    watcher = listen(mosquitto.port, "companion/t1/shows")
    table.desk.start_show("training")
    clock.advance(31.0)  # red (30 s) runs out
    table.pump()
    table.desk.abort()
    watcher.wait_for(lambda l: l.on("companion/t1/shows"))
    (row,) = [json.loads(p) for p in watcher.on("companion/t1/shows")]
    assert row["id"] == table.ledger.shows()[0]["id"] and row["outcome"] == "aborted" and row["event"] == "training"
    assert [r["timer"] for r in row["runouts"]] == ["red"]
    assert "advances" in row and "started" in row and "stars" in row


def test_the_campaign_progress_is_retained_and_moves_when_a_show_is_won(table, mosquitto, bridged, listen, clock):
    bridged()
    watcher = listen(mosquitto.port, "companion/t1/progress")
    watcher.wait_for(lambda l: l.on("companion/t1/progress"))
    assert json.loads(watcher.on("companion/t1/progress")[-1]) == {"campaign_stars": 0, "max_stars": 90,
                                                                   "events_won": 0, "events": 30}
    table.desk.start_show("training")
    play_to_a_win(table, clock)
    watcher.wait_for(lambda l: json.loads(l.on("companion/t1/progress")[-1])["events_won"] == 1)
    late = listen(mosquitto.port, "companion/t1/progress")
    late.wait_for(lambda l: l.on("companion/t1/progress"))
    assert json.loads(late.on("companion/t1/progress")[-1])["campaign_stars"] == table.ledger.shows()[0]["stars"]


def states(watcher) -> list[dict]:
    return [json.loads(p) for p in watcher.on("companion/t1/state")]


def published(watcher, table) -> None:
    """Wait until the table's newest state is the newest on the broker."""
    watcher.wait_for(lambda l: l.on("companion/t1/state")
                     and seq_of(l.on("companion/t1/state")[-1]) == table.desk.snapshot()["seq"])


def reads(state: dict) -> tuple:
    """What a watcher makes of a state: the table's outcome, and between shows how the one before ended."""
    return state["outcome"], state.get("last_show", {}).get("outcome")


def changes(watcher) -> list[tuple]:
    """What a watcher reads, each time it reads something new."""
    seen = [reads(state) for state in states(watcher)]
    return [r for i, r in enumerate(seen) if i == 0 or r != seen[i - 1]]


def test_each_state_is_published_once_and_right_through_a_win_a_loss_and_an_abort(table, clock, mosquitto,
                                                                                   bridged, listen):
    # The records of each ended show lag its state by one look, as the journal's writer may let them.
    records = LaggingRecords(table)
    bridged(records, clock=FakeClock())  # the bridge's own clock stands still: no wait for a record runs out
    watcher = listen(mosquitto.port, "companion/t1/state")
    published(watcher, table)
    table.desk.start_show("training")
    published(watcher, table)
    play_to_a_win(table, clock)
    published(watcher, table)
    records.lag()
    table.desk.abort()  # the won show is dismissed
    published(watcher, table)
    table.desk.start_show("training")
    published(watcher, table)
    clock.advance(81.0)  # red, yellow, then red again run out
    table.pump()
    published(watcher, table)
    records.lag()
    table.desk.abort()
    published(watcher, table)
    table.desk.start_show("training")
    clock.advance(5.0)
    table.pump()
    published(watcher, table)
    records.lag()
    table.desk.abort()
    published(watcher, table)

    seen = states(watcher)
    assert changes(watcher) == [("idle", None), ("running", None), ("win", None), ("idle", "win"),
                                ("running", None), ("loss", None), ("idle", "loss"),
                                ("running", None), ("idle", "aborted")]
    seqs = [state["seq"] for state in seen]
    assert seqs == sorted(set(seqs)), "a state of the table was published more than once"
    won, lost, aborted = sorted(table.ledger.shows(), key=lambda row: row["id"])
    assert [s["stars"] for s in seen if s["outcome"] == "win"] == [won["stars"]] and won["stars"] > 0
    assert [s["last_show"] for s in seen if "last_show" in s] == [
        {"id": won["id"], "outcome": "win"}, {"id": lost["id"], "outcome": "loss"},
        {"id": aborted["id"], "outcome": "aborted"}]


def test_a_state_between_shows_waits_for_the_record_only_so_long(table, clock, mosquitto, bridged, listen):
    records, bridge_clock = LaggingRecords(table), FakeClock()
    bridged(records, clock=bridge_clock)
    watcher = listen(mosquitto.port, "companion/t1/state")
    published(watcher, table)  # the idle table first: a show started before the bridge's first look is all it sends
    table.desk.start_show("training")
    published(watcher, table)
    records.lag(looks=None)  # the store is failing: the aborted show stays unrecorded
    table.desk.abort()
    records.wait_until_looked()
    bridge_clock.advance(RECORD_WAIT_S)
    published(watcher, table)  # it goes out without the record ...
    records.catch_up()
    watcher.wait_for(lambda l: reads(states(l)[-1]) == ("idle", "aborted"))  # ... and again once it comes
    assert changes(watcher) == [("idle", None), ("running", None), ("idle", None), ("idle", "aborted")]


def test_the_broker_restarted_mid_show_gets_the_state_again(table, mosquitto, bridged, listen):
    bridge = bridged()
    table.desk.start_show("training")
    listen(mosquitto.port).wait_for(lambda l: l.on("companion/t1/state"))
    mosquitto.restart()  # no persistence: every retained message is gone
    table.desk.flip("red")  # the show goes on while the bridge reconnects
    late = listen(mosquitto.port, "companion/#")
    late.wait_for(lambda l: l.on("companion/t1/availability") == [b"online"] and l.on("companion/t1/state")
                  and seq_of(l.on("companion/t1/state")[-1]) == table.desk.snapshot()["seq"])
    assert bridge.online


def test_a_table_starts_and_plays_with_no_broker_then_joins_it(table, tmp_path, listen):
    need_mosquitto()
    broker = Mosquitto(tmp_path / "late")  # its port is chosen, nothing listens yet
    bridge = Bridge(table, from_url(broker.url, table="t1"), backoff=(0.05, 0.2)).start()
    try:
        table.desk.start_show("training")
        table.desk.flip("red")
        assert table.desk.snapshot()["timers"]["red"]["pose"] == "b_up"
        assert not bridge.online
        broker.start()
        watcher = listen(broker.port, "companion/#")
        watcher.wait_for(lambda l: l.on("companion/t1/availability") == [b"online"] and l.on("companion/t1/state")
                         and seq_of(l.on("companion/t1/state")[-1]) == table.desk.snapshot()["seq"])
    finally:
        bridge.stop()
        broker.stop()


def test_a_broker_that_never_answers_does_not_hold_up_the_table(table):
    import socket

    with socket.socket() as black_hole:  # accepts connections, never says a word
        black_hole.bind(("127.0.0.1", 0))
        black_hole.listen()
        port = black_hole.getsockname()[1]
        bridge = Bridge(table, from_url(f"mqtt://127.0.0.1:{port}", table="t1"), backoff=(0.05, 0.2)).start()
        try:
            table.desk.start_show("training")
            for _ in range(20):  # each answered at once (a blocked table would hang the test into its timeout)
                table.desk.flip("red")
            assert table.desk.snapshot()["timers"]["red"]["pose"] == "a_up"  # twenty flips: back where it was
            assert not bridge.online
        finally:
            bridge.stop()
