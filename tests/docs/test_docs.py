"""The documents' examples work as written."""

import re

from conftest import ROOT


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def test_the_scripting_example_plays_a_three_star_win(capsys):
    (code,) = python_blocks(ROOT / "docs" / "scripting.md")
    exec(compile(code, "docs/scripting.md", "exec"), {"__name__": "docs"})
    printed = capsys.readouterr().out.strip()
    assert printed.startswith("win with 3 stars at ")
    assert printed in (ROOT / "docs" / "scripting.md").read_text()
