"""The show's kept deadlines, its checkpoints and the log's quick path, each against the plain way (hypothesis)."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from companion.skyrockets import COLOURS, replay
from companion.skyrockets.log import LogError, LogReader, apply_lines, checkpoint
from companion.skyrockets.show import Setup, Show

from test_show_properties import events


@st.composite
def show_logs(draw, max_inputs=60):
    """A setup line, then poses, flips, beams and state queries at non-decreasing times."""
    setup = {"t": 0, "type": "setup", "event": draw(st.one_of(st.just("training"), events())),
             "runout_grace_s": draw(st.sampled_from([0, 0.5, 2])),
             "advance_tolerance_s": draw(st.sampled_from([0, 1.5])),
             "warn_lead_s": draw(st.sampled_from([0, 5, 10, 45])),
             "durations": draw(st.dictionaries(st.sampled_from(COLOURS), st.one_of(
                 st.sampled_from([25, 30.5]),
                 st.fixed_dictionaries({"a_up": st.sampled_from([20, 33.3]), "b_up": st.sampled_from([24, 35])})),
                 max_size=3))}
    lines, t = [setup], 0.0
    for _ in range(draw(st.integers(0, max_inputs))):
        t += draw(st.sampled_from([0.0, 0.25, 1.0, 3.0, 7.5, 12.0, 20.0, 29.5]))
        timer = draw(st.sampled_from(COLOURS))
        kind = draw(st.sampled_from(["flip", "pose", "pose", "beam", "end"]))
        if kind == "flip":
            lines.append({"t": t, "type": "flip", "timer": timer})
        elif kind == "pose":
            pose = draw(st.sampled_from(["a_up", "b_up", "side"]))
            lines.append({"t": t, "type": "pose", "timer": timer, "pose": pose})
        elif kind == "beam":
            state = draw(st.sampled_from(["flowing", "stopped"]))
            lines.append({"t": t, "type": "beam", "timer": timer, "state": state})
        else:
            lines.append({"t": t, "type": "end"})
    lines.append({"t": t + draw(st.sampled_from([0.0, 5.0, 40.0])), "type": "end"})
    return lines


def as_text(lines):
    return [json.dumps(line) for line in lines]


def recomputed_due(show: Show) -> list[tuple[float, int, int]]:
    """Every glass's deadlines worked out afresh and sorted: what the kept structure must always equal."""
    if show.ended_at is not None:
        return []
    grace, lead = show.setup.runout_grace_s, show.setup.warn_lead_s
    return sorted((when, kind, i) for i, timer in enumerate(show.timers.values())
                  for when, kind in timer.due(grace, lead))


def check_deadlines(show: Show) -> None:
    expected = recomputed_due(show)
    assert show._due == expected
    assert show.next_due() == (expected[0][0] if expected else None)


@settings(max_examples=300, deadline=None)
@given(show_logs(max_inputs=0), st.data())
def test_kept_deadlines_always_equal_a_fresh_recomputation(lines, data):
    """After every input, query and deadline, the kept order is the naive one; beams are aimed near run-outs."""
    show = replay(as_text(lines[:1]))
    check_deadlines(show)
    for _ in range(data.draw(st.integers(0, 60), label="steps")):
        colour = data.draw(st.sampled_from(COLOURS), label="colour")
        step = data.draw(st.sampled_from(["wait", "deadline", "pose", "flip", "beam"]), label="step")
        t = show.now + data.draw(st.sampled_from([0.0, 0.5, 3.0, 12.0]), label="later")
        if step == "wait":
            show.advance(t)
        elif step == "deadline" and show.next_due() is not None:
            show.advance(show.next_due())
        elif step == "pose":
            show.pose(t, colour, data.draw(st.sampled_from(["a_up", "b_up", "side"]), label="pose"))
        elif step == "flip":
            show.flip(t, colour)
        elif step == "beam":
            glass = show.timers[colour].glass
            modelled = glass.empties_at() if glass is not None else None
            if modelled is not None:  # within the beam's window, or just outside it
                t = max(show.now, modelled + data.draw(st.sampled_from([-2.5, -1.0, 0.0, 0.5, 2.0]), label="off"))
            show.beam(t, colour, data.draw(st.booleans(), label="flowing"))
        check_deadlines(show)


def resumes_alike(text: list[str], cut: int, saved: dict) -> None:
    saved = json.loads(json.dumps(saved))  # as a journal would store it
    resumed, full = replay(text[cut:], since=saved), replay(text)
    assert resumed.result() == full.result()
    assert resumed.next_due() == full.next_due()
    assert resumed.checkpoint() == full.checkpoint()
    later = full.now + 100.0  # and they go on alike
    resumed.advance(later)
    full.advance(later)
    assert resumed.result() == full.result()


@settings(max_examples=200, deadline=None)
@given(show_logs(), st.integers(1, 1000))
def test_a_replay_from_a_checkpoint_reaches_what_a_full_replay_reaches(lines, cut):
    """Checkpoint after any line, through JSON, then replay only the tail: same result, same future, same state."""
    text = as_text(lines)
    cut = 1 + cut % len(text)  # at least the setup line is behind the checkpoint
    resumes_alike(text, cut, checkpoint(apply_lines(text[:cut]), cut))


@settings(max_examples=200, deadline=None)
@given(show_logs(), st.integers(1, 1000))
def test_a_checkpoint_of_a_settled_show_serves_a_tail_that_starts_later(lines, cut):
    """A show settled to its last line's instant (as a live table's is) checkpoints as well, for a later tail."""
    text = as_text(lines)
    cut = 1 + cut % len(text)
    if cut < len(lines) and lines[cut]["t"] == lines[cut - 1]["t"]:
        return  # a journal writes no line at an instant that already fired: it writes it just after
    resumes_alike(text, cut, checkpoint(replay(text[:cut]), cut))


@settings(max_examples=100, deadline=None)
@given(show_logs())
def test_a_restored_show_checkpoints_as_it_was_saved(lines):
    show = replay(as_text(lines))
    again = Show.restore(show.setup, json.loads(json.dumps(show.checkpoint())))
    assert again.checkpoint() == show.checkpoint() and again._due == show._due


def test_a_checkpoint_from_another_version_is_refused():
    state = Show(Setup()).checkpoint()
    with pytest.raises(ValueError, match="version"):
        Show.restore(Setup(), dict(state, version=99))


def test_a_tail_line_before_the_checkpoint_is_bad_input_naming_its_line():
    text = ['{"t": 0, "type": "setup", "event": "training"}', '{"t": 12, "type": "flip", "timer": "red"}']
    with pytest.raises(LogError) as caught:
        replay(['{"t": 5, "type": "end"}'], since=checkpoint(apply_lines(text), 2))
    assert caught.value.line == 3 and caught.value.field == "t"


def test_a_replay_without_notices_reaches_the_same_result_and_keeps_none():
    text = as_text([{"t": 0, "type": "setup", "event": "training"}, {"t": 45, "type": "flip", "timer": "red"},
                    {"t": 90, "type": "end"}])
    quiet, told = replay(text, notices=False), replay(text)
    assert quiet.result() == told.result() and told.drain_notices() and quiet.drain_notices() == []


class StrictReader(LogReader):
    """A reader that takes every line through the full checks."""

    def _quick(self, text):
        return None


def _read_all(reader, texts):
    out = []
    for text in texts:
        try:
            out.append(reader.read(text))
        except LogError as e:
            out.append(("refused", str(e)))
            break
    return out


ODD_VALUES = [-1, -0.5, 0, 3, 2.5, 86400, 86401, 86400.5, 1e9, 1e400, float("nan"), 10 ** 20, True, None,
              "5", "red", "side", "a_up", "stopped", "flowing", "pink", "end", "pose", "flip", "beam", "setup",
              ["red"], {"t": 1}, "\ud800"]
FIELDS = ["t", "type", "timer", "pose", "state", "extra"]


@settings(max_examples=300, deadline=None)
@given(show_logs(max_inputs=8), st.lists(st.tuples(st.integers(1, 50), st.sampled_from(FIELDS),
                                                   st.sampled_from(ODD_VALUES)), max_size=4),
       st.lists(st.sampled_from(["", " ", "\r", "  \t", "}", "x"]), min_size=2, max_size=2))
def test_the_quick_path_reads_every_line_as_the_full_checks_do(lines, edits, padding):
    """Lines made odd (wrong values, extra fields, NaN, huge numbers, surrogates, padding): same line or refusal."""
    for where, field, value in edits:
        line = lines[1 + where % (len(lines) - 1)] if len(lines) > 1 else lines[0]
        line[field] = value
    texts = [json.dumps(line) for line in lines]
    i = len(texts) - 1
    texts[i] = padding[0] + texts[i] + padding[1]
    assert _read_all(LogReader(), texts) == _read_all(StrictReader(), texts)


SETUP_TEXT = '{"t": 0, "type": "setup", "event": "training"}'
PLAIN_LINES = [{"t": 5, "type": "end"}, {"t": 5.5, "type": "flip", "timer": "red"},
               {"t": 5, "type": "pose", "timer": "blue", "pose": "a_up"},
               {"t": 5.25, "type": "beam", "timer": "red", "state": "stopped"}]


def test_every_field_of_every_plain_line_made_odd_reads_as_the_full_checks_read_it():
    for plain in PLAIN_LINES:
        for field in FIELDS:
            for value in ODD_VALUES:
                texts = [SETUP_TEXT, '{"t": 2, "type": "end"}', json.dumps(dict(plain, **{field: value}))]
                assert _read_all(LogReader(), texts) == _read_all(StrictReader(), texts), (field, value)
                del_field = {k: v for k, v in plain.items() if k != field}
                texts[-1] = json.dumps(del_field)
                assert _read_all(LogReader(), texts) == _read_all(StrictReader(), texts), ("without", field)


def test_a_pose_line_s_time_written_any_way_json_allows_reads_as_the_full_checks_read_it():
    """The pose line as a table writes it is read by one match: any other spelling of its time reads the same."""
    for t in ["7", "7.0", "7.25", "0", "0.0", "007", "-0", "-1", "7.", ".5", "7e0", "1E1", "7.50", "86400",
              "86400.0000001", "86401", "1" + "0" * 400, "2.0000000000000000001", "NaN", "Infinity", "1.5 "]:
        texts = [SETUP_TEXT, '{"t": 2, "type": "end"}', '{"t": %s, "type": "pose", "timer": "red", "pose": "side"}' % t]
        assert _read_all(LogReader(), texts) == _read_all(StrictReader(), texts), t
