"""The publisher: numbered snapshots, and one text of each for every phone's live feed."""

import json

from companion.table import publisher as publishing
from companion.table.publisher import STALE_STEP_S, Publisher

RUNNING = {"outcome": "running", "t": 10.0, "speed": 2.0,
           "timers": {"red": {"state": "running", "top_s": 20.0}, "blue": {"state": "lying", "top_s": 5.0}}}


def test_a_snapshot_is_serialised_once_as_it_is_published_and_every_reader_shares_that_text(monkeypatch):
    publisher = Publisher(boot=1)
    dumped = []
    real = publishing._compact
    monkeypatch.setattr(publishing, "_compact", lambda value: dumped.append(1) or real(value))
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
