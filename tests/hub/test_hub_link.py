"""The line's health as the protocol says: hellos until the hub answers, then silence and garbage."""

import os
import queue

from companion.hardware import hub_link
from companion.hardware.hub_frames import frame
from companion.hardware.hub_link import GARBAGE_RUN, HELLO_TRIES, MAX_LINE, HubLink, LineWatch

HELLO = frame(0, "hello", fw="1.2.0", proto=1, timers=6, ms=5)


def test_a_device_that_never_answers_gets_three_hellos_then_is_not_answering_never_silent():
    watch = LineWatch(0.0)
    said = list(watch.opened(0.0))
    reason = None
    for tenth in range(1, 100):
        send, reason = watch.due(tenth / 10)
        said += [kind for kind in send if kind == "hello"]
        if reason:
            break
    assert (said, reason, tenth / 10) == (["hello"] * HELLO_TRIES, "not answering", 6.0)


def test_a_device_that_says_something_else_is_not_answering_rather_than_garbage():
    watch = LineWatch(0.0)
    watch.opened(0.0)
    for tenth in range(1, 70):
        lines, reason = watch.received(b"Adafruit CircuitPython 9.2.1 on 2024-11-20; REPL\r\n>>> \n", tenth / 10)
        assert reason is None and len(lines) == 2
        _, reason = watch.due(tenth / 10)
        if reason:
            break
    assert reason == "not answering"


def test_once_greeted_silence_and_garbage_give_the_connection_up():
    watch = LineWatch(0.0)
    watch.opened(0.0)
    assert watch.received(HELLO, 0.1) == ([HELLO], None) and watch.greeted
    assert watch.due(2.09) == (["beat"], None)
    assert watch.due(2.1) == ([], "silent")

    watch = LineWatch(0.0)
    watch.received(HELLO, 0.1)
    snap = frame(1, "snap", ms=6, pose=",".join(["side"] * 6), beam=",".join(["none"] * 6))
    for _ in range(GARBAGE_RUN):  # a good frame of any kind, whatever the hub's channel count, is no garbage
        assert watch.received(b"x\n" + snap, 0.15)[1] is None
    assert watch.received(b"x\n" * (GARBAGE_RUN - 1), 0.2)[1] is None
    assert watch.received(HELLO, 0.3)[1] is None  # a good frame ends the run
    assert watch.received(b"x\n" * (GARBAGE_RUN - 1), 0.4)[1] is None
    assert watch.received(b"\x55" * (MAX_LINE + 1), 0.5)[1] == "garbage"  # an endless line counts per line's worth


def test_a_silent_device_on_a_real_line_is_said_hello_to_three_times_then_not_answering(monkeypatch):
    monkeypatch.setattr(hub_link, "HELLO_EVERY_S", 0.3)
    monkeypatch.setattr(hub_link, "SILENCE_S", 0.5)  # shorter than the hello tries: silence must not win
    master, slave = os.openpty()
    items = queue.SimpleQueue()
    link = HubLink(os.ttyname(slave), items.put, lambda: 0.0)
    try:
        item = items.get(timeout=15)
        assert item.what == "open"
        item = items.get(timeout=15)
        assert (item.what, item.data) == ("lost", "not answering")
    finally:
        link.close()
        said = os.read(master, 4096)
        os.close(master)
        os.close(slave)
    assert said.count(b" hello proto=1*") == HELLO_TRIES
