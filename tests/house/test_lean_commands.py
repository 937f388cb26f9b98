"""A command imports only what it uses: `companion replay` (and the parser every command goes through) never
loads the table, the web, the config or Flask, so a log replays as fast as the rules allow."""

import json
import subprocess
import sys

from conftest import ROOT

HEAVY = ("companion.table", "companion.web", "companion.config", "companion.hardware", "flask", "waitress",
         "gpiozero")

LOADED_BY_REPLAY = """
import contextlib, io, json, sys
from companion.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(["replay", sys.argv[1]])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def test_replay_loads_neither_the_table_nor_the_web():
    log = ROOT / "tests" / "rules" / "scenarios" / "three_star_win.jsonl"
    done = subprocess.run([sys.executable, "-c", LOADED_BY_REPLAY, str(log)], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    assert loaded["status"] == 0
    heavy = [m for m in loaded["modules"] if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == []
