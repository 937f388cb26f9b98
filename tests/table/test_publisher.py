"""The publisher: numbered snapshots, and one text of each for every phone's live feed."""

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.skyrockets import COLOURS
from companion.table import publisher as publishing
from companion.table.describer import Describer
from companion.table.publisher import STALE_STEP_S, Publisher, Spliced
from tabletop import Hands, tilt_table

RUNNING = {"outcome": "running", "t": 10.0, "speed": 2.0,
           "timers": {"red": {"state": "running", "top_s": 20.0}, "blue": {"state": "lying", "top_s": 5.0}}}


def test_a_snapshot_is_serialised_once_as_it_is_published_and_every_reader_shares_that_text(monkeypatch):
    publisher = Publisher(boot=1)
    dumped = []
    real = publishing.Spliced.__call__
    monkeypatch.setattr(publishing.Spliced, "__call__", lambda self, value: dumped.append(1) or real(self, value))
    snapshot = publisher.publish(dict(RUNNING))
    assert len(dumped) == 1
    texts = [publisher.text(snapshot, 10.0 + i * 0.0002) for i in range(40)]  # 40 phones within 4 ms
    assert len(dumped) == 1 and all(text is texts[0] for text in texts)
    assert json.loads(texts[0]) == snapshot


def test_a_stale_snapshot_is_carried_on_in_steps_shared_by_the_readers_in_each():
    publisher = Publisher(boot=1)
    snapshot = publisher.publish(dict(RUNNING))
    late = 10.0 + 3.5 * STALE_STEP_S * 2.0  # 3.5 steps of wall time later, at speed 2
    text = publisher.text(snapshot, late)
    assert publisher.text(snapshot, late + 0.1 * STALE_STEP_S) is text
    state = json.loads(text)
    assert state["t"] == 10.0 + 3 * STALE_STEP_S * 2.0
    assert state["timers"]["red"]["top_s"] == 20.0 - 3 * STALE_STEP_S * 2.0
    assert state["timers"]["blue"]["top_s"] == 5.0  # a lying glass does not run


def test_a_new_snapshot_gets_a_new_text_and_finished_shows_are_never_carried():
    publisher = Publisher(boot=1)
    first = publisher.text(publisher.publish(dict(RUNNING)), 10.0)
    won = publisher.publish(dict(RUNNING, outcome="win"))
    text = publisher.text(won, 500.0)
    assert text != first and json.loads(text)["t"] == 10.0 and json.loads(text)["seq"] == won["seq"]


def test_the_phones_are_written_to_before_a_listener_wakes_the_led_show():
    # A listener wakes a thread (the LED show renders a frame: a millisecond of Python) that would compete
    # with the writing to the phones for the interpreter; the strip loses nothing by being told after.
    publisher, heard = Publisher(boot=1), []
    publisher.listen(lambda snapshot: heard.append(("listener", snapshot["seq"])))
    publisher.write_to(lambda seq, text: heard.append(("writer", seq)))
    seq = publisher.publish(dict(RUNNING))["seq"]
    assert heard == [("writer", seq), ("listener", seq)]


def test_a_part_equal_to_the_last_snapshots_is_spliced_in_only_if_it_is_of_the_same_type():
    spliced = Spliced()
    assert spliced({"stars": 0, "timers": {"red": {"top_s": 3.0}}}) == '{"stars":0,"timers":{"red":{"top_s":3.0}}}'
    assert spliced({"stars": False, "timers": {"red": {"top_s": 3.0}}}) == '{"stars":false,"timers":{"red":{"top_s":3.0}}}'
    odd = {"stars": 0.0, "timers": {}, "name": "ü\u2028\x07", "sensors": None}
    assert spliced(odd) == publishing._compact(odd)


POSES = ("a_up", "b_up", "side", "both")  # "both": both switches closed, a sensor fault


def afresh(table, snapshot: dict) -> dict:
    """The table described now by a describer that keeps nothing: what the published snapshot must equal."""
    extras = {key: snapshot[key] for key in ("speed", "muted", "journal_problem")}
    described = Describer()(table.desk.show, table.desk.show_id, table.live.started_wall, table.fitted.cradles,
                            table.configured.now, extras)
    return dict(described, seq=snapshot["seq"])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(COLOURS), st.sampled_from(POSES), st.sampled_from([0.1, 2.0, 9.0])),
                max_size=25))
def test_every_published_state_is_the_table_described_afresh_and_its_text_that_state_serialised(moves):
    # A state reuses the parts of the last one that read the same (describer.py), and its text is spliced from
    # theirs: on a show played on a table, its glasses turned, laid down and faulted, neither may be stale. The
    # state must equal the table described by a describer that keeps nothing, and its text must read exactly as
    # the whole state written out.
    with tempfile.TemporaryDirectory() as folder:
        table = tilt_table(Path(folder))
        published = []
        table.publisher.write_to(lambda seq, text: published.append((seq, text)))
        table.publisher.listen(lambda snapshot: published.append((snapshot, afresh(table, snapshot))))  # held
        try:
            hands = Hands(table)
            table.desk.start_show("training")
            for colour, pose, wait in moves:
                hands.set(colour, pose)
                hands.wait(wait)
        finally:
            table.stop()
    assert published
    for (seq, text), (snapshot, described) in zip(published[::2], published[1::2]):
        assert snapshot == described
        assert seq == snapshot["seq"] and text == publishing._compact(snapshot)
