"""`companion replay` as docs/formats.md specifies, through the real command."""

import json

import pytest

from companion.skyrockets.log import LogError, replay

from conftest import SCENARIOS

SCENARIO_NAMES = sorted(p.stem for p in SCENARIOS.glob("*.jsonl"))


@pytest.mark.parametrize("name", SCENARIO_NAMES)
def test_hand_computed_scenarios(cli, name):
    done = cli("replay", str(SCENARIOS / f"{name}.jsonl"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads((SCENARIOS / f"{name}.expected.json").read_text())


def test_there_are_at_least_six_scenarios():
    assert len(SCENARIO_NAMES) >= 6


def test_reads_stdin(cli):
    done = cli("replay", "-", stdin='{"t": 0, "type": "setup", "event": "training"}\n{"t": 12.5, "type": "end"}\n')
    result = json.loads(done.stdout)
    assert result["t"] == 12.5 and result["timers"]["red"]["top_s"] == 17.5


SETUP = '{"t": 0, "type": "setup", "event": "training"}'


@pytest.mark.parametrize("lines, message", [
    ([], "-:1: the log is empty: it must start with a setup line"),
    (['{"t": 0, "type": "pose", "timer": "red", "pose": "side"}'], "-:1: type: the first line must be a setup line, not 'pose'"),
    ([SETUP, '{"t": 5, "type": "flip", "timer": "pink"}'], "-:2: timer: 'pink' is not a timer colour"),
    ([SETUP, '{"t": 5, "type": "flip"}'], "-:2: timer: missing"),
    ([SETUP, '{"t": 9, "type": "end"}', '{"t": 5, "type": "end"}'], "-:3: t: 5 is earlier than the previous line's 9"),
    ([SETUP, '{"t": 5, "type": "jump"}'], "-:2: type: unknown type 'jump' (expected setup, pose, flip, beam, end)"),
    ([SETUP, '{"t": 5, "type": "pose", "timer": "red", "pose": "upside"}'], "-:2: pose: 'upside' is not a pose"),
    ([SETUP, '{"t": "5", "type": "end"}'], "-:2: t: expected a number of seconds, got '5'"),
    ([SETUP, '{"type": "end"}'], "-:2: t: missing"),
    ([SETUP, '{"t": -1, "type": "end"}'], "-:2: t: must be at least 0 s"),
    ([SETUP, '{"t": 1, "type": "end"'], "-:2: not valid JSON"),
    ([SETUP, '[1, 2]'], "-:2: expected a JSON object, got [1, 2]"),
    ([SETUP, SETUP], "-:2: type: a show log has only one setup line"),
    (['{"t": 3, "type": "setup", "event": "training"}'], "-:1: t: the setup line is at t = 0"),
    (['{"t": 0, "type": "setup"}'], "-:1: event: missing"),
    (['{"t": 0, "type": "setup", "event": "training", "durations": {"red": 0}}'], "-:1: durations.red: must be above 0 s"),
    (['{"t": 0, "type": "setup", "event": "training", "durations": {"mauve": 3}}'], "-:1: durations.mauve: 'mauve' is not a timer colour"),
    (['{"t": 0, "type": "setup", "event": {"id": "x", "countdown": "red"}}'], "-:1: event.running: missing"),
    (['{"t": 0, "type": "setup", "event": "training", "runout_grace_s": "2"}'], "-:1: runout_grace_s: expected a number"),
])
def test_bad_logs_exit_2_with_one_line(cli, lines, message):
    done = cli("replay", "-", stdin="\n".join(lines) + "\n")
    assert done.returncode == 2
    assert done.stdout == ""
    err = done.stderr.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith(f"companion replay: {message}"), err


def test_missing_file(cli, tmp_path):
    done = cli("replay", str(tmp_path / "none.jsonl"))
    assert done.returncode == 2 and "cannot read" in done.stderr


def test_not_utf8(cli, tmp_path):
    p = tmp_path / "bin.jsonl"
    p.write_bytes(b"\xff\xfe\x00")
    done = cli("replay", str(p))
    assert done.returncode == 2 and "not UTF-8" in done.stderr


def test_not_utf8_further_on_names_the_byte(cli, tmp_path):
    p = tmp_path / "late.jsonl"
    first = (SETUP + "\n").encode()
    p.write_bytes(first + b'{"t": 1, "type": "end", "note": "\xff"}\n')
    done = cli("replay", str(p))
    assert done.returncode == 2 and f"not UTF-8 text (byte {len(first) + 34})" in done.stderr


def test_lines_may_end_in_crlf_and_a_last_line_needs_no_newline(cli, tmp_path):
    p = tmp_path / "crlf.jsonl"
    p.write_bytes((SETUP + '\r\n{"t": 12.5, "type": "end"}').encode())
    done = cli("replay", str(p))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["timers"]["red"]["top_s"] == 17.5


@pytest.mark.parametrize("lines, code", [
    ([], "errors.log.empty"),
    (['{"t": 0, "type": "pose", "timer": "red", "pose": "side"}'], "errors.log.setup_first"),
    ([SETUP, '{"t": 5, "type": "flip", "timer": "pink"}'], "errors.colour.unknown"),
    ([SETUP, '{"t": 5, "type": "flip"}'], "errors.missing"),
    ([SETUP, '{"t": 9, "type": "end"}', '{"t": 5, "type": "end"}'], "errors.log.backwards"),
    ([SETUP, '{"t": 5, "type": "jump"}'], "errors.choice"),
    ([SETUP, '{"t": 5, "type": "beam", "timer": "red", "state": "dim"}'], "errors.choice"),
    ([SETUP, '[1, 2]'], "errors.shape"),
    ([SETUP, SETUP], "errors.log.setup_twice"),
    (['{"t": 3, "type": "setup", "event": "training"}'], "errors.log.setup_time"),
    (['{"t": 0, "type": "setup"}'], "errors.missing"),
])
def test_a_bad_log_line_keeps_the_code_of_what_is_wrong(lines, code):
    with pytest.raises(LogError) as refused:
        replay(lines)
    assert refused.value.error_code == code and refused.value.line == max(len(lines), 1)
