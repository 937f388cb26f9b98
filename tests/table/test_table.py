"""The table runtime on mock pins: physical glasses on tilt cradles, and LED-emulated ones on buttons."""

import ctypes
import sys

import pytest

from companion.clock import FakeClock
from companion.errors import Conflict
from companion.table import demo_table
from companion.table.runtime import SWITCH_INTERVAL_S, TIMER_SLACK_NS
from tabletop import Hands, journal, lines_of, live, near, replayed, tilt_table

PR_GET_TIMERSLACK = 30  # <linux/prctl.h>


@pytest.fixture
def table(tmp_path):
    table = tilt_table(tmp_path)
    yield table
    table.stop()


@pytest.fixture
def hands(table):
    return Hands(table)


def start_training(table, hands):
    """Start, then stand the four running glasses up (one the other way round) inside the start window."""
    table.desk.start_show("training")
    for colour in ("red", "orange", "yellow"):
        hands.set(colour, "a_up")
    hands.set("purple", "b_up")
    hands.wait(5.0)


def test_start_window_absorbs_the_turns_that_start_the_show(table, hands):
    start_training(table, hands)
    assert lines_of(table, "pose") == []
    assert table.fitted.cradles["purple"].swapped is True
    snap = table.desk.snapshot()
    assert {c: t["state"] for c, t in snap["timers"].items()} == {
        "red": "running", "orange": "running", "yellow": "running", "green": "lying", "blue": "lying", "purple": "running"}


def test_a_turn_in_the_start_window_is_logged_as_setting_up_not_lost_without_a_word(table, hands, caplog):
    # The phones see no flip for it: the log says why (a player who turned a glass too early finds the reason).
    with caplog.at_level("INFO", logger="companion.table.cradles"):
        start_training(table, hands)
    said = [r.getMessage() for r in caplog.records if r.name == "companion.table.cradles"]
    assert "purple seen b_up within the start window (the first 5 s of a show): taken as setting the table up, " \
           "not as a flip" in said
    assert len(said) == 4  # red, orange, yellow and purple, each stood up once


def test_a_tilt_show_to_a_win_replays_to_the_same_result(table, hands):
    start_training(table, hands)
    plan = {25: ["red"], 40: ["orange"], 45: ["red", "yellow"], 65: ["red"], 70: ["purple"], 80: ["orange"],
            85: ["red", "yellow"], 105: ["red"], 120: ["orange"], 125: ["red", "yellow"], 135: ["purple"],
            145: ["red"], 160: ["orange"]}
    for at, colours in plan.items():
        hands.wait(at + 0.5 - table.desk.show_time())
        for colour in colours:
            hands.turn(colour)
    snap = table.desk.snapshot()
    assert snap["outcome"] == "win" and snap["stars"] == 3
    assert live(table) == replayed(table)
    assert journal(table)[-1] == '{"t": %r, "type": "end"}' % snap["t"]
    assert table.store.show(table.live.show_id)["outcome"] == "win"


def test_a_tilt_show_to_a_loss_replays_to_the_same_result(table, hands):
    start_training(table, hands)
    hands.wait(40)
    hands.turn("red")  # red ran out at 31 and waited, empty; the players turn it now
    assert table.desk.snapshot()["timers"]["red"]["awaiting_turn"] is False
    hands.wait(40)
    snap = table.desk.snapshot()
    assert snap["outcome"] == "loss" and [r["timer"] for r in snap["runouts"]] == ["red", "yellow", "red"]
    assert live(table) == replayed(table)
    pad = table.store.scorepad()["events"][0]
    assert pad["attempts"] == 1 and pad["best_stars"] is None


def test_chatter_settles_to_one_pose_change(table, hands):
    start_training(table, hands)
    hands.chatter("red", "b_up", [0.005, 0.012, 0.02, 0.007, 0.015, 0.009, 0.018])
    assert [(p["timer"], p["pose"]) for p in lines_of(table, "pose")] == [("red", "b_up")]


def test_a_glass_laid_down_and_stood_up_with_its_other_end_up(table, hands):
    start_training(table, hands)
    hands.set("red", "side")
    hands.wait(2)
    hands.set("red", "b_up")
    assert [p["pose"] for p in lines_of(table, "pose")] == ["side", "b_up"]
    assert table.desk.snapshot()["timers"]["red"]["top_s"] == pytest.approx(5.2, abs=0.3)


def test_a_lying_glass_stood_up_puts_its_sand_on_top_whichever_end(table, hands):
    start_training(table, hands)
    hands.set("green", "b_up")
    snap = table.desk.snapshot()["timers"]["green"]
    assert snap["state"] == "running" and snap["top_s"] == pytest.approx(60, abs=0.2)
    assert table.fitted.cradles["green"].swapped is True


def test_a_run_out_glass_awaits_its_turn_and_runs_from_the_real_turn(table, hands):
    start_training(table, hands)
    hands.wait(26.5)  # red ran out at 31 (30 s + 1 s grace)
    red = table.desk.snapshot()["timers"]["red"]
    assert red["awaiting_turn"] is True and red["fault"] is None and red["state"] == "empty"
    with pytest.raises(Conflict):
        table.desk.flip("red")  # healthy sensors: the players turn the glass itself
    hands.wait(40)  # nobody turns it: a plain reminder, never a sensor fault, and no second token
    red = table.desk.snapshot()["timers"]["red"]
    assert red["awaiting_turn"] is True and red["fault"] is None
    assert [r["timer"] for r in table.desk.snapshot()["runouts"]] == ["red", "yellow"]
    hands.turn("red")
    turned_at = lines_of(table, "pose")[-1]["t"]
    red = table.desk.snapshot()["timers"]["red"]
    assert red["awaiting_turn"] is False and red["state"] == "running"
    assert table.live.show.timers["red"].glass.empties_at() == pytest.approx(turned_at + 30.0)
    assert live(table) == near(replayed(table, at=table.desk.snapshot()["t"]))


def test_both_switches_closed_too_long_is_a_fault_and_the_show_goes_on(table, hands):
    start_training(table, hands)
    hands.set("yellow", "both")
    hands.wait(3.5)
    yellow = table.desk.snapshot()["timers"]["yellow"]
    assert yellow["fault"] and "both tilt switches closed" in yellow["fault"]
    assert table.desk.snapshot()["outcome"] == "running"
    before = len(journal(table))
    table.desk.flip("yellow")
    assert len(journal(table)) == before + 1
    hands.set("yellow", "a_up")  # a clean reading clears it; the model follows the sensors again
    assert table.desk.snapshot()["timers"]["yellow"]["fault"] is None
    assert lines_of(table, "pose")[-1]["timer"] == "yellow"
    assert live(table) == near(replayed(table, at=table.desk.snapshot()["t"]))


def test_flip_refused_for_healthy_sensor_and_out_of_play(table, hands):
    with pytest.raises(Conflict, match="no show is running"):
        table.desk.flip("red")
    table.desk.start_show({"id": "duo", "countdown": "red", "running": ["red", "blue"]})
    with pytest.raises(Conflict, match="read by its tilt sensors"):
        table.desk.flip("red")
    with pytest.raises(Conflict, match="not in play"):
        table.desk.flip("green")
    with pytest.raises(Conflict, match="already running"):
        table.desk.start_show("training")
    assert "duo" in [e["id"] for e in table.ledger.events()]


def test_abort_records_the_show_and_replays_to_its_last_state(table, hands):
    start_training(table, hands)
    hands.wait(12)
    show_id = table.live.show_id
    assert table.desk.abort()["outcome"] == "idle"
    assert table.store.show(show_id)["outcome"] == "aborted"
    result = replayed(table, show_id)
    assert result["outcome"] == "running" and result["t"] == pytest.approx(17.2, abs=0.5)


def test_each_show_is_described_with_its_own_id_event_and_start(demo):
    first = demo.desk.start_show("training", challenge=True)
    demo.desk.abort()
    demo.clock.advance(61.0)
    second = demo.desk.start_show({"id": "only-red", "name": "Only red", "hand_size": 4, "countdown": "purple",
                              "countdown_start": 4, "running": ["red"], "lying": ["purple"], "rules": ""})
    assert second["id"] == first["id"] + 1
    assert (first["event"]["id"], second["event"]["id"]) == ("training", "only-red")
    assert (first["challenge"], second["challenge"]) == (True, False)
    assert second["started"] > first["started"]


def test_wait_for_change_and_seq(table, hands):
    first = table.desk.snapshot()["seq"]
    assert table.desk.wait_for_change(first, timeout=0.01)["seq"] == first
    table.desk.start_show("training")
    assert table.desk.wait_for_change(first, timeout=0.01)["seq"] > first


# ---- LED-emulated timers on buttons -----------------------------------------

@pytest.fixture
def demo(tmp_path):
    table = demo_table(tmp_path / "demo.sqlite3", clock=FakeClock())
    yield table
    table.stop()


def test_buttons_play_an_emulated_show_to_a_win(demo):
    hands = Hands(demo)
    demo.desk.start_show("training")
    # A press counts on release (~0.13 s later), so the countdown is pressed a second after it empties.
    plan = {25: ["red"], 41: ["orange"], 45: ["red", "yellow"], 65: ["red"], 70: ["purple"], 82: ["orange"],
            85: ["red", "yellow"], 105: ["red"], 123: ["orange"], 125: ["red", "yellow"], 135: ["purple"],
            145: ["red"], 164: ["orange"]}
    for at, colours in plan.items():
        hands.wait(at - demo.desk.show_time())
        for colour in colours:
            hands.press(colour)
    snap = demo.desk.snapshot()
    assert snap["outcome"] == "win" and snap["stars"] == 3
    assert live(demo) == replayed(demo)
    assert replayed(demo)["t"] == snap["t"]


def test_buttons_lay_down_and_stand_up_and_a_loss(demo):
    hands = Hands(demo)
    demo.desk.start_show("training")
    hands.press("red", hold=1.0)  # a long press lays the glass down
    assert demo.desk.snapshot()["timers"]["red"]["state"] == "lying"
    hands.press("red", hold=1.0)  # and stands it up again, sand on top
    assert demo.desk.snapshot()["timers"]["red"]["state"] == "running"
    hands.wait(200)
    assert demo.desk.snapshot()["outcome"] == "loss"
    assert live(demo) == replayed(demo)


def test_emulated_flip_from_the_page_and_grace_is_zero(demo):
    demo.desk.start_show("training")
    Hands(demo).wait(10)
    snap = demo.desk.flip("red")
    assert snap["timers"]["red"]["top_s"] == pytest.approx(10, abs=0.01)
    assert snap["runout_grace_s"] == 0 and snap["advance_tolerance_s"] == 0
    assert [line["type"] for line in lines_of(demo, "flip")] == ["flip"]


def test_a_flip_from_the_page_reaches_the_phones_before_the_rest_of_the_runtimes_step(demo):
    # Nothing was queued or due as the flip began: the step after it (the rig, the cradles, the show run on by the
    # microseconds since) adds nothing the phones need first, and runs once they have the flip, which goes once.
    demo.desk.start_show("training")
    order, advance, taken = [], demo.live.advance, demo.live.input
    demo.live.advance = lambda mono: order.append("the step") or advance(mono)
    demo.live.input = lambda *args: order.append("the flip") or taken(*args)
    demo.desk.write_to(lambda seq, text: order.append(("written", seq)))
    seq = demo.desk.flip("red")["seq"]
    after = order[order.index("the flip") + 1:]
    assert after[0] == ("written", seq) and "the step" in after
    assert [entry for entry in order if isinstance(entry, tuple)] == [("written", seq)]


def test_runtime_thread_with_fake_clock(tmp_path):
    clock = FakeClock()
    table = demo_table(tmp_path / "t.sqlite3", clock=clock).start()
    try:
        seq = table.desk.start_show("training")["seq"]
        clock.advance(30.0)
        snap = table.desk.wait_for_change(seq, timeout=5)
        while snap["crowd_tokens_turned"] == 0:
            snap = table.desk.wait_for_change(snap["seq"], timeout=5)
        assert snap["runouts"] == [{"timer": "red", "t": 30.0}]
        assert table.alive()
    finally:
        table.stop()
    assert not table.alive()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="timer slack is Linux's")
def test_the_runtime_thread_wakes_at_its_deadlines_without_timer_slack(tmp_path):
    prctl = ctypes.CDLL(None).prctl
    table = demo_table(tmp_path / "t.sqlite3", clock=FakeClock()).start()
    try:
        assert table.runtime.submit(lambda: prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0)) == TIMER_SLACK_NS
        assert sys.getswitchinterval() <= SWITCH_INTERVAL_S  # a woken thread soon gets the interpreter
    finally:
        table.stop()


def test_a_deadline_is_never_settled_before_its_instant_though_the_thread_wakes_just_ahead_of_it():
    from companion.clock import SystemClock
    from companion.table.runtime import LAST_STRETCH_S, Runtime

    clock = SystemClock()
    runtime = Runtime(clock)
    for ahead in (0.0, LAST_STRETCH_S / 2, 3 * LAST_STRETCH_S):
        due = clock.monotonic() + ahead
        assert runtime._next_item(due) is None
        assert clock.monotonic() >= due
    runtime.put("edge")
    assert runtime._next_item(clock.monotonic() + 3600) == "edge"  # an item meanwhile comes at once


def test_a_clock_that_does_not_move_by_itself_does_not_hold_the_thread_watching_it():
    from companion.table.runtime import LAST_STRETCH_S, Runtime

    clock = FakeClock()
    runtime = Runtime(clock)
    assert runtime._next_item(LAST_STRETCH_S / 2) is None  # watched a moment, then a plain timed wait
    assert clock.monotonic() == 0.0
    clock.advance(1.0)  # a fake clock's move is announced as an item (a tick): the thread looks again
    assert runtime._next_item(2.0) is not None


def test_a_table_handed_no_backups_refuses_them_by_their_code(table):
    """The running table keeps backups through what the program serving it hands it (companion.appliance), and
    imports nothing of the appliance itself: without one, a backup is refused as the page can say it."""
    for refuse in (table.setup.back_up, lambda: table.setup.receive_backup(b"x", 1, 1, 1, None)):
        with pytest.raises(Conflict) as refused:
            refuse()
        assert refused.value.error_code == "errors.backup.none"


def test_a_board_game_is_kept_at_the_tables_own_time(tmp_path):
    """The board games were stamped by the machine's clock and the shows by the table's: on a table whose clock
    is not the machine's, the games finished tonight were counted on another night."""
    from companion.web import create_app

    clock = FakeClock(wall=1_700_000_000.0)
    table = demo_table(tmp_path / "t.sqlite3", clock=clock)
    try:
        clock.advance(60.0)
        answer = create_app(table).test_client().post("/api/geese/games", json={"players": ["ann", "ben", "cho"]},
                                                       headers={"X-Table-Pin": "1234"})
        assert answer.status_code == 201, answer.json
        assert table.games.game("geese", answer.json["id"])["updated"] == clock.wall()
    finally:
        table.stop()
