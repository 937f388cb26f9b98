"""What strangers can fill in the hall, bounded and never for good: the board's events, the cards, removal."""

import json

import paho.mqtt.client as mqtt
from hypothesis import given, settings, strategies as st

from mqtt_support import WAIT_S, mosquitto  # noqa: F401  (fixtures)

from companion.clock import FakeClock
from companion.mqtt.hall import Hall
from companion.mqtt.hall.board import ENTRY_KEPT_S, EVENTS_PER_TABLE, MAX_EVENTS, Leaderboard
from companion.mqtt.hall.cards import MAX_TABLES, NEVER_ONLINE_S, QUIET_S, finished_show
from companion.mqtt.hall.listener import REMOVALS_EVERY_S, HallListener
from companion.mqtt.settings import from_url


def show(n: int, event: str = "training", stars: int = 1) -> dict:
    return finished_show({"id": n, "event": event, "event_name": event.title(), "outcome": "win", "stars": stars,
                          "started": "2026-12-01T10:00:00Z"})


def events_of(board: Leaderboard) -> set[str]:
    return {row["event"] for row in board.rows()}


def tables_of(board: Leaderboard) -> set[str]:
    return {t["table"] for row in board.rows() for t in row["tables"]}


def a_listener(clock: FakeClock, board: Leaderboard | None = None) -> HallListener:
    board = board or Leaderboard(":memory:", clock=clock.wall)
    return HallListener(from_url("mqtt://127.0.0.1:1", table="hall"), Hall(clock=clock), board, clock=clock)


def cards(listener: HallListener) -> set[str]:
    return {c["table"] for c in listener.hall.view()["cards"]}


# ---- the board --------------------------------------------------------------------------------------------


def test_ten_stray_tables_filling_the_board_never_refuse_a_real_tables_show_even_after_a_restart(tmp_path):
    # Before: ten tables of ten fake events filled the 100 events for good; "training" was refused, restart or not.
    clock = FakeClock()
    board = Leaderboard(tmp_path / "hall.sqlite3", clock=clock.wall)
    for n in range(MAX_EVENTS):
        clock.advance(1)
        board.record(f"stray{n // 10}", show(n, event=f"fake{n}"))
    assert len(events_of(board)) == MAX_EVENTS
    board.close()
    board = Leaderboard(tmp_path / "hall.sqlite3", clock=clock.wall)
    clock.advance(1)
    assert board.record("real", show(1)) is True
    assert "training" in events_of(board) and len(events_of(board)) == MAX_EVENTS
    assert "fake0" not in events_of(board)  # the stalest of the others' events made the room


def test_one_table_alone_holds_at_most_its_quota_of_events_its_newest():
    # Before: one table user filled all 100 events alone (in ~15 min at its show budget).
    clock = FakeClock()
    board = Leaderboard(":memory:", clock=clock.wall)
    for n in range(MAX_EVENTS):
        clock.advance(1)
        board.record("greedy", show(n, event=f"fake{n}"))
    assert events_of(board) == {f"fake{n}" for n in range(MAX_EVENTS - EVENTS_PER_TABLE, MAX_EVENTS)}
    assert board.record("real", show(1)) and "training" in events_of(board)


def test_a_full_board_keeps_the_events_the_new_table_shares_and_drops_the_stalest_of_the_others():
    clock = FakeClock()
    board = Leaderboard(":memory:", clock=clock.wall)
    for n in range(MAX_EVENTS):
        clock.advance(1)
        board.record(f"t{n // EVENTS_PER_TABLE}", show(n, event=f"e{n}"))
    board.record("real", show(1, event="e0"))  # the stalest event, now the real table's too
    clock.advance(1)
    board.record("real", show(2, event="mine"))
    assert "e0" in events_of(board) and "e1" not in events_of(board) and "mine" in events_of(board)


def test_a_standing_no_show_refreshed_for_a_season_ages_out_also_across_a_restart(tmp_path):
    clock = FakeClock()
    board = Leaderboard(tmp_path / "hall.sqlite3", clock=clock.wall)
    board.record("gone", show(1, event="old"))
    board.record("kept", show(1, event="old"))
    clock.advance(ENTRY_KEPT_S / 2)
    board.record("kept", show(2, event="old"))
    board.close()
    clock.advance(ENTRY_KEPT_S / 2 + 1)
    board = Leaderboard(tmp_path / "hall.sqlite3", clock=clock.wall)
    [old] = board.rows()
    assert [t["table"] for t in old["tables"]] == ["kept"] and old["attempts"] == 2  # the totals redrawn too
    clock.advance(ENTRY_KEPT_S)
    board.record("new", show(1, event="fresh"))
    assert events_of(board) == {"fresh"}
    assert board.database.read("SELECT COUNT(*) FROM shows WHERE tbl != 'new'")[0][0] == 0


def test_a_hall_file_from_before_keeps_its_standings_from_now(tmp_path):
    from companion.records.schema import Schema
    from companion.mqtt.hall import board as hall_board
    from companion.records.database import Database

    old = Database(tmp_path / "hall.sqlite3", Schema(steps=hall_board.HALL_FILE.steps[:2]), durable=False)
    with old.transaction() as db:
        db.execute("INSERT INTO standings VALUES ('training', 't1', 'Training', 2, 3)")
    old.close()
    board = Leaderboard(tmp_path / "hall.sqlite3")
    assert [(r["event"], r["attempts"]) for r in board.rows()] == [("training", 3)]


# ---- the cards ---------------------------------------------------------------------------------------------


def test_500_retained_online_cards_never_refuse_the_501st_real_table():
    # Before: 500 retained "online" cards never expired and the 501st, real table was refused.
    clock = FakeClock()
    listener = a_listener(clock)
    for n in range(MAX_TABLES):
        clock.advance(0.001)
        listener.take(f"companion/stray{n}/availability", b"online")
    listener.take("companion/real/availability", b"online")
    assert "real" in cards(listener) and "stray0" not in cards(listener) and len(cards(listener)) == MAX_TABLES


def test_online_cards_no_message_refreshed_age_out():
    clock = FakeClock()
    listener = a_listener(clock)
    for n in range(10):
        listener.take(f"companion/stray{n}/availability", b"online")
    listener.take("companion/real/availability", b"online")
    clock.advance(QUIET_S / 2)
    listener.take("companion/real/state", b'{"outcome": "idle"}')
    clock.advance(QUIET_S / 2 + 1)
    assert cards(listener) == {"real"}  # the page alone lets them go: no message needed
    clock.advance(QUIET_S)
    assert cards(listener) == set()
    listener.take("companion/real/availability", b"online")  # a real table shows again at its next message
    assert cards(listener) == {"real"}


# ---- removal -----------------------------------------------------------------------------------------------


def test_the_owner_removes_a_table_from_another_process_and_it_stays_removed(tmp_path):
    clock = FakeClock()
    board = Leaderboard(tmp_path / "hall.sqlite3", clock=clock.wall)
    listener = a_listener(clock, board)
    for table in ("real", "stray"):
        listener.take(f"companion/{table}/availability", b"online")
        listener.take(f"companion/{table}/shows", json.dumps(dict(show(1), stars=3 if table == "stray" else 1)))
    assert tables_of(board) == {"real", "stray"}

    owner = Leaderboard(tmp_path / "hall.sqlite3", clock=clock.wall)  # `companion hall remove stray`
    assert owner.remove("stray") is True and owner.remove("stray") is False
    owner.close()
    listener.take("companion/stray/shows", json.dumps(show(5, event="late")))  # before the hall looks again
    clock.advance(REMOVALS_EVERY_S)
    listener.take("companion/real/state", b'{"outcome": "idle"}')
    assert cards(listener) == {"real"} and events_of(board) == {"training"}
    [training] = listener.hall.view()["board"]
    assert [t["table"] for t in training["tables"]] == ["real"] and training["best_stars"] == 1

    listener.take("companion/stray/availability", b"online")
    listener.take("companion/stray/shows", json.dumps(show(2)))
    assert cards(listener) == {"real"} and tables_of(board) == {"real"}
    board.close()
    again = a_listener(clock, Leaderboard(tmp_path / "hall.sqlite3", clock=clock.wall))  # after a restart
    again.take("companion/stray/availability", b"online")
    again.take("companion/stray/shows", json.dumps(show(3)))
    assert cards(again) == set() and tables_of(again.board) == {"real"}


def test_companion_hall_remove_writes_the_removal_in_the_halls_file(tmp_path, capsys):
    from companion.cli import main

    db = tmp_path / "hall.sqlite3"
    board = Leaderboard(db)
    board.record("stray", show(1))
    board.close()
    assert main(["hall", "--db", str(db), "remove", "stray"]) == 0
    assert "stray" in capsys.readouterr().out
    assert Leaderboard(db).rows() == []
    assert main(["hall", "remove", "stray", "--db", str(db)]) == 0  # twice: said so, not an error
    assert "already" in capsys.readouterr().out
    assert main(["hall", "remove", "stray", "--db", str(tmp_path / "typo.sqlite3")]) == 2
    assert main(["hall", "remove", "a/b", "--db", str(db)]) == 2
    assert not (tmp_path / "typo.sqlite3").exists()


def test_on_a_real_broker_500_retained_online_cards_make_room_for_a_real_table_and_the_owner_removes_one(
        mosquitto, tmp_path):
    from companion.cli import main

    stray = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="stray")
    stray.connect("127.0.0.1", mosquitto.port)
    stray.loop_start()
    try:
        for n in range(MAX_TABLES):  # left behind on the open broker, retained
            info = stray.publish(f"companion/stray{n}/availability", b"online", qos=1, retain=True)
        info.wait_for_publish(WAIT_S)
        clock = FakeClock()  # the listener's, for its look at the owner's removals
        db = tmp_path / "hall.sqlite3"
        board = Leaderboard(db)
        listener = HallListener(from_url(mosquitto.url, table="hall"), Hall(frame_s=0.0), board,
                                backoff=(0.05, 0.2), clock=clock).start()
        try:
            until(listener, lambda names: len(names) == MAX_TABLES)
            stray.publish("companion/real/availability", b"online", qos=1, retain=True).wait_for_publish(WAIT_S)
            until(listener, lambda names: "real" in names and len(names) == MAX_TABLES)
            assert main(["hall", "remove", "stray7", "--db", str(db)]) == 0
            clock.advance(REMOVALS_EVERY_S)
            stray.publish("companion/real/state", b'{"outcome": "idle"}', qos=1).wait_for_publish(WAIT_S)
            until(listener, lambda names: "stray7" not in names and "real" in names)
        finally:
            listener.stop()
            board.close()
    finally:
        stray.loop_stop()
        stray.disconnect()


def until(listener: HallListener, holds, timeout: float = WAIT_S) -> None:
    """Wait on the hall's own frames (each one sent as soon as something changed) until `holds(card names)`."""
    seq = listener.hall.published()
    while not holds(cards(listener)):
        frame = listener.hall.frame(seq, timeout)
        assert frame["text"] is not None, f"the hall never got there: {len(cards(listener))} cards"
        seq = frame["seq"]


# ---- the standing fuzz, on the new paths ---------------------------------------------------------------------


STEPS = st.lists(st.one_of(
    st.tuples(st.just("show"), st.integers(0, 12), st.integers(0, 130)),
    st.tuples(st.just("online"), st.integers(0, 12), st.just(0)),
    st.tuples(st.just("remove"), st.integers(0, 12), st.just(0)),
    st.tuples(st.just("wait"), st.just(0), st.sampled_from([1.0, NEVER_ONLINE_S, QUIET_S, ENTRY_KEPT_S / 3])),
), max_size=60)


@settings(max_examples=60, deadline=None)
@given(STEPS)
def test_any_mix_of_shows_removals_and_time_keeps_the_bounds_and_never_refuses_a_tables_own_show(steps):
    clock = FakeClock()
    listener = a_listener(clock)
    board, removed, n = listener.board, set(), 0
    for kind, table, value in steps:
        name = f"t{table}"
        if kind == "wait":
            clock.advance(value)
            continue
        if kind == "remove":
            board.remove(name)
            removed.add(name)
        elif kind == "online":
            listener.take(f"companion/{name}/availability", b"online")
        else:
            n += 1
            counted = board.record(name, show(n, event=f"e{value}"))
            assert counted is (name not in removed)
            if counted:
                assert f"e{value}" in events_of(board)  # never refused for room
        own = board.database.read("SELECT COUNT(*) FROM standings WHERE tbl = ?", (name,))[0][0]
        assert own <= EVENTS_PER_TABLE
        assert len(board.rows()) <= MAX_EVENTS
        assert not tables_of(board) & removed
        clock.advance(REMOVALS_EVERY_S)
        listener.look_for_removals()
        assert not cards(listener) & removed and len(cards(listener)) <= MAX_TABLES
