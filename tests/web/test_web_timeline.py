"""The past-show timeline: a pure function from log lines to SVG, drawn from a replay by the rules core."""

import json
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import BadInput
from companion.skyrockets import COLOURS, replay
from companion.web.looks import LOOKS
from companion.web.shows.timeline import timeline_svg, trace

from conftest import SCENARIOS
SVG = "{http://www.w3.org/2000/svg}"


def lines_of(name: str) -> list[str]:
    return (SCENARIOS / f"{name}.jsonl").read_text().splitlines()


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


@pytest.mark.parametrize("name", sorted(p.stem for p in SCENARIOS.glob("*.jsonl")))
def test_every_scenario_draws_a_well_formed_timeline_agreeing_with_replay(name):
    lines = lines_of(name)
    root = parse(timeline_svg(lines))
    result = replay(lines).result()
    in_play = [c for c in COLOURS if result["timers"][c]["state"] != "out_of_play"]
    strokes = {line.get("stroke") for line in root.iter(f"{SVG}polyline")}
    assert strokes == {LOOKS[c]["fill"] for c in in_play}
    assert texts(root).count("✕") == len(result["runouts"]) + 1  # and the legend's
    assert root.get("role") == "img" and root.find(f"{SVG}title").text
    if result["outcome"] == "loss":
        assert "lost ✕" in texts(root)


def test_the_three_star_win_is_marked_with_its_stars_and_advances():
    root = parse(timeline_svg(lines_of("three_star_win")))
    words = texts(root)
    assert "won ★★★" in words
    assert {"3", "2", "1"} <= set(words)  # the countdown's spaces at its advances
    assert "show time (s)" in words and "sand on top (s)" in words
    assert "red" in words and "purple" in words  # the legend names every glass in play


@pytest.mark.parametrize("name", sorted(p.stem for p in SCENARIOS.glob("*.jsonl")))
def test_every_glass_and_each_of_its_marks_carries_its_symbol(name):
    """Without colour, each line and each run-out still says whose it is; the description lists the run-outs."""
    lines = lines_of(name)
    root, result = parse(timeline_svg(lines)), replay(lines).result()
    groups = {g.get("data-timer"): g for g in root.iter(f"{SVG}g") if g.get("class") == "glass"}
    in_play = {c for c, timer in result["timers"].items() if timer["state"] != "out_of_play"}
    assert set(groups) == in_play
    for colour, group in groups.items():
        glyphs = [t.text for t in group.iter(f"{SVG}text")]
        assert set(glyphs) <= {LOOKS[colour]["symbol"], "✕"} and LOOKS[colour]["symbol"] in glyphs
        ran_out = [r for r in result["runouts"] if r["timer"] == colour]
        assert glyphs.count("✕") == len(ran_out)
        assert glyphs.count(LOOKS[colour]["symbol"]) >= 1 + len(ran_out)  # where its line begins, and each run-out
    summary = root.find(f"{SVG}desc").text
    assert root.get("aria-describedby") == root.find(f"{SVG}desc").get("id")
    if result["runouts"]:
        assert summary == "Ran out: " + ", ".join(f"{r['timer']} at {r['t']:g} s" for r in result["runouts"]) + "."
    else:
        assert summary == "No glass ran out."


def test_the_trace_follows_the_sand_through_a_flip():
    tr = trace(lines_of("three_star_win"))
    red = tr.points["red"]
    at_flip = [top for t, top, _ in red if t == 25.0]
    assert at_flip[0] == pytest.approx(5.0) and at_flip[-1] == pytest.approx(25.0)  # before and after the turn
    assert (25.0, "red", pytest.approx(25.0)) in [(t, c, top) for t, c, top in tr.turns]
    assert all(0.0 <= top <= tr.show.timers[c].glass.duration for c, pts in tr.points.items() for _, top, _ in pts)
    assert [t for t, _, _ in red] == sorted(t for t, _, _ in red)


def test_a_lying_glass_is_drawn_dashed():
    root = parse(timeline_svg(lines_of("three_star_win")))
    green = [line for line in root.iter(f"{SVG}polyline") if line.get("stroke") == LOOKS["green"]["fill"]]
    assert green and all(line.get("stroke-dasharray") for line in green)


def test_labels_come_in_the_callers_words():
    svg = timeline_svg(lines_of("three_star_win"), {"time_axis": "ショーの経過時間（秒）", "red": "赤"})
    assert "ショーの経過時間（秒）" in svg and ">赤<" in svg


def test_text_in_labels_is_escaped():
    svg = timeline_svg(lines_of("three_star_win"), {"title": "<script>x</script>"})
    assert "<script>" not in svg and "&lt;script&gt;" in svg


@pytest.mark.parametrize("lines", [[], ["{nope"], ['{"t": 0, "type": "flip", "timer": "red"}']])
def test_a_bad_log_is_bad_input(lines):
    with pytest.raises(BadInput):
        timeline_svg(lines)


flips = st.lists(st.tuples(st.floats(0, 200, allow_nan=False), st.sampled_from(COLOURS)), max_size=25)


@settings(max_examples=60, deadline=None)
@given(flips=flips, end=st.floats(0, 300, allow_nan=False))
def test_any_show_traces_to_the_replayed_result(flips, end):
    events = sorted(flips)
    lines = [json.dumps({"t": 0, "type": "setup", "event": "training"})]
    lines += [json.dumps({"t": t, "type": "flip", "timer": c}) for t, c in events]
    lines.append(json.dumps({"t": max([end] + [t for t, _ in events]), "type": "end"}))
    tr = trace(lines)
    expected = replay(lines)
    assert tr.show.result() == expected.result()
    parse(timeline_svg(lines))


CHATTER = {"id": "chatter", "name": "Chatter", "hand_size": 4, "countdown": "purple", "countdown_start": 9,
           "running": ["red", "orange", "yellow", "green"], "lying": ["purple"], "rules": ""}


def chattering(minutes: float) -> list[str]:
    """A show that runs for `minutes` with a sensor chattering all along (a glass wobbling through `side`)."""
    from companion.skyrockets import Setup, Show, parse_event

    show = Show(Setup(parse_event(CHATTER)))
    lines, t, i = [{"t": 0, "type": "setup", "event": CHATTER}], 0.0, 0
    while t < minutes * 60:
        t = round(t + 0.7, 3)
        colour = CHATTER["running"][i % 4]
        glass = show.timers[colour].glass
        if glass.top(t) < glass.duration / 2:
            show.flip(t, colour)
            lines.append({"t": t, "type": "flip", "timer": colour})
        else:
            pose = glass.pose.value
            show.pose(t, colour, "side")
            t = round(t + 0.05, 3)
            show.pose(t, colour, pose)
            lines += [{"t": t - 0.05, "type": "pose", "timer": colour, "pose": "side"},
                      {"t": t, "type": "pose", "timer": colour, "pose": pose}]
        i += 1
    return [json.dumps(line) for line in lines + [{"t": t, "type": "end"}]]


def test_a_long_chattering_show_draws_no_heavier_than_a_screen_can_show():
    hour, four_hours = timeline_svg(chattering(60)), timeline_svg(chattering(240))
    assert replay(chattering(240)).result()["outcome"] == "running"  # it really lasted four hours
    assert len(hour.encode()) < 50_000 and len(four_hours.encode()) < 50_000
    for polyline in parse(four_hours).iter(f"{SVG}polyline"):
        assert len(polyline.get("points").split()) <= 2 * 346 + 2  # at most each column's lowest and highest


def distance(point, a, b) -> float:
    (px, py), (ax, ay), (bx, by) = point, a, b
    dx, dy = bx - ax, by - ay
    k = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return ((px - ax - k * dx) ** 2 + (py - ay - k * dy) ** 2) ** 0.5


def test_the_lighter_drawing_still_passes_through_every_sample():
    lines = lines_of("three_star_win")
    tr = trace(lines)
    span = max(tr.end, 1.0)
    sand_max = max(tr.show.timers[c].glass.duration for c in tr.points)
    drawn = {}
    for polyline in parse(timeline_svg(lines)).iter(f"{SVG}polyline"):
        points = [tuple(map(float, p.split(","))) for p in polyline.get("points").split()]
        drawn.setdefault(polyline.get("stroke"), []).append(points)
    for colour, samples in tr.points.items():
        runs = drawn[LOOKS[colour]["fill"]]
        for t, top, _ in samples:
            point = (44 + 346 * t / span, 196 - 178 * top / sand_max)
            nearest = min(distance(point, a, b) if b else distance(point, a, a)
                          for run in runs for a, b in zip(run, run[1:] + [None]))
            assert nearest <= 0.2, (colour, t, top)
