"""The spoken cues' queue (companion/web/show/static/cues.js), run in Node: every milestone is said,
the most important first, and glasses low together are one sentence."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

CUES = Path(__file__).resolve().parents[2] / "companion" / "web" / "show" / "static" / "cues.js"
RANK = {"win": 4, "loss": 4, "runout": 3, "advance": 2, "low_sand": 1}

# Adds each step's milestones, then takes `take` cues; prints what was taken.
SCRIPT = """
const { CueQueue } = await import(process.argv[1]);
const steps = JSON.parse(process.argv[2]);
const queue = new CueQueue();
const taken = [];
for (const { add, take } of steps) {
  for (const [milestone, rank] of add) queue.add(milestone, rank);
  for (let i = 0; i < take; i++) taken.push(queue.take());
}
console.log(JSON.stringify({ taken, left: queue.items.length }));
"""

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")


def run(*steps):
    steps = [{"add": [[m, RANK[m["kind"]]] for m in add], "take": take} for add, take in steps]
    out = subprocess.run(["node", "--input-type=module", "-e", SCRIPT, CUES.as_uri(), json.dumps(steps)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def low(timer, seconds=10):
    return {"kind": "low_sand", "timer": timer, "seconds": seconds}


def test_glasses_low_together_are_one_cue_naming_each():
    got = run(([low("red", 10), low("blue", 9), low("green", 10)], 2))
    assert got == {"taken": [{"kind": "low_sand", "timers": ["red", "blue", "green"], "seconds": 9, "rank": 1},
                             None], "left": 0}


def test_nothing_is_dropped_and_the_most_important_goes_first():
    runout = {"kind": "runout", "timer": "yellow", "tokens": 1}
    advance = {"kind": "advance", "spaces": 3}
    got = run(([low("red")], 0), ([advance, low("blue"), runout, low("red")], 0), ([], 4))
    assert [cue and cue["kind"] for cue in got["taken"]] == ["runout", "advance", "low_sand", None]
    assert got["taken"][2]["timers"] == ["red", "blue"]  # red once: it is still the same low sand


def test_a_low_glass_after_the_waiting_cue_was_said_is_its_own_cue():
    got = run(([low("red")], 1), ([low("blue"), low("red")], 2))
    assert [cue and cue.get("timers") for cue in got["taken"]] == [["red"], ["blue", "red"], None]


def test_equal_milestones_keep_their_order():
    a, b = {"kind": "runout", "timer": "red", "tokens": 2}, {"kind": "runout", "timer": "red", "tokens": 1}
    got = run(([a, low("blue"), b], 3))
    assert [cue.get("tokens") for cue in got["taken"]] == [2, 1, None]


def test_a_glass_that_runs_out_while_its_low_sand_waits_is_told_by_its_run_out():
    runout = {"kind": "runout", "timer": "red", "tokens": 2}
    got = run(([low("red"), low("blue")], 0), ([runout], 3))
    assert [(cue["kind"], cue.get("timers")) for cue in got["taken"][:2]] == [("runout", None), ("low_sand", ["blue"])]
    got = run(([low("red")], 0), ([runout], 2))
    assert [cue and cue["kind"] for cue in got["taken"]] == ["runout", None]
