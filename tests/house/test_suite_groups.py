"""The suite in two groups: the README's test command for a developer's loop, and the tests that build or boot a
whole system, by a command of their own; CI runs both, each taken from the README so they never drift apart."""

import re
import shlex
import tomllib

from conftest import ROOT


def test_ci_runs_both_of_the_readmes_test_commands():
    readme, ci = (ROOT / "README.md").read_text("utf-8"), (ROOT / ".ci" / "run").read_text("utf-8")
    patterns = re.findall(r"grep -m1 -E '([^']+)' README\.md", ci)
    commands = [next((line for line in readme.splitlines() if re.search(p, line)), None) for p in patterns]
    assert len(commands) == 2 and None not in commands, patterns
    assert commands[0].endswith(".venv/bin/python -m pytest") and commands[1].endswith("-m system")
    assert commands[0] in (ROOT / "README.ja.md").read_text("utf-8") and commands[1] in \
        (ROOT / "README.ja.md").read_text("utf-8")


def test_the_first_command_leaves_out_the_whole_system_group_alone():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["pytest"]["ini_options"]
    words = shlex.split(options["addopts"])
    assert words[words.index("-m") + 1] == "not system"
    assert any(marker.startswith("system:") for marker in options["markers"])
