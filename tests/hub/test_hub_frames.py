"""The Pi's reading of hub frames: the shared vectors, and no byte sequence that crashes it or makes a pose."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware.hub import HubSource
from companion.hardware.firmware import firmware_module
from conftest import ROOT
from companion.hardware.hub_frames import MAX_LINE, crc16, read_frame, read_message
from companion.hardware.hub_link import HubItem
from companion.hardware.source import PoseChange

FIRMWARE = ROOT / "firmware"  # the board's source, every file of it
VECTORS = json.loads((FIRMWARE / "vectors.json").read_text(encoding="utf-8"))
hubframe = firmware_module("hubframe")
hubcore = firmware_module("hubcore")


@pytest.mark.parametrize("vector", VECTORS["valid"], ids=lambda v: v["note"])
def test_the_pi_reads_every_valid_vector(vector):
    assert read_frame(vector["line"].encode("latin-1")) == (vector["seq"], vector["kind"], vector["fields"])


@pytest.mark.parametrize("vector", VECTORS["invalid"], ids=lambda v: v["note"])
def test_the_pi_refuses_every_invalid_vector(vector):
    assert read_frame(vector["line"].encode("latin-1")) is None


def test_both_sides_compute_the_same_crc():
    for vector in VECTORS["valid"]:
        payload = vector["line"].encode("latin-1").split(b"*")[0]
        assert crc16(payload) == hubframe.crc16(payload)


@pytest.mark.parametrize("line, why", [
    (hubframe.encode(1, "pose", (("ms", 5), ("ch", 6), ("pose", "a_up"))), "channel beyond the hub's count"),
    (hubframe.encode(1, "pose", (("ms", 5), ("ch", 0), ("pose", "upside_down"))), "not a pose"),
    (hubframe.encode(1, "pose", (("ch", 0), ("pose", "a_up"))), "no ms"),
    (hubframe.encode(1, "pose", (("ms", 1 << 29), ("ch", 0), ("pose", "a_up"))), "ms beyond the wrap"),
    (hubframe.encode(1, "snap", (("ms", 5), ("pose", "a_up"), ("beam", "none"))), "a snapshot of one channel from a hub of six"),
    (hubframe.encode(1, "beam", (("ms", 5), ("ch", 0), ("state", "none"))), "a beam event must be a change"),
    (hubframe.encode(1, "hello", (("fw", "1"), ("proto", 1), ("timers", 0), ("ms", 1))), "a hub of no channels"),
    (hubframe.encode(1, "warp", (("ms", 5),)), "an unknown kind"),
])
def test_well_framed_lines_with_bad_fields_are_bad_messages(line, why):
    assert read_frame(line) is not None
    assert read_message(line, timers=6) is None, why


def test_firmware_frames_read_back_on_the_pi():
    hub = hubcore.HubCore(6, beams=(0,))
    lines = hub.start(7) + hub.set_pose(3, "b_up", 9) + hub.set_beam(0, "flowing", 10) + hub.tick(900)
    kinds = [read_message(line, 6).kind for line in lines]
    assert kinds == ["hello", "snap", "pose", "beam", "beat"]
    assert read_message(lines[2], 6).fields == {"ch": 3, "pose": "b_up"}


def greeted_source():
    hub = HubSource({"red": 0, "blue": 4}, link=None)
    for line in hubcore.HubCore(6).start(0):
        hub.take(HubItem("hub", "line", line, 1.0))
    hub.update(1.0)
    return hub


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=2 * MAX_LINE), max_size=20))
def test_random_bytes_never_crash_the_reader_nor_yield_a_pose(chunks):
    hub = greeted_source()
    for i, chunk in enumerate(chunks):
        for line in chunk.split(b"\n"):
            hub.take(HubItem("hub", "line", line + b"\n", 2.0 + i))
    assert not [c for c in hub.update(100.0) if isinstance(c, PoseChange)]


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=60), st.integers(0, 65535))
def test_random_payloads_with_a_good_crc_never_crash_the_reader(body, seq):
    payload = f"{seq} pose ".encode() + body
    line = payload + f"*{crc16(payload):04X}\n".encode()
    hub = greeted_source()
    hub.take(HubItem("hub", "line", line, 2.0))
    changes = [c for c in hub.update(100.0) if isinstance(c, PoseChange)]
    message = read_message(line, 6)
    assert (message is not None and message.fields["ch"] in (0, 4)) or not changes


def test_the_pi_uses_the_resend_vectors_answer_in_order_with_the_hub_instants():
    """The vectors' hub lost frames 3-5; the Pi asks from 3 and the answer gives each event its own instant."""
    vector = VECTORS["resend"]
    assert read_frame(vector["request"].encode()) == (9, "resend", {"from": "3"})
    messages = [read_message(line.encode(), vector["timers"]) for line in vector["answer"]]
    assert [m.seq for m in messages] == [3, 4, 5]
    assert [(m.kind, m.ms) for m in messages] == [("beam", 1910), ("beam", 4210), ("pose", 4300)]
    too_old = [read_message(line.encode(), vector["timers"]) for line in vector["answer_too_old"]]
    assert [m.kind for m in too_old] == ["snap"]
