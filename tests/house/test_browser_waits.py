"""The browser tests wait for what a page shows, never for time to pass.

A test that let a demo table run at ten times speed and waited for a glass to
run out failed on a busy machine; a wait handed to Playwright as a bare
expression polls it with eval, which the pages' script policy refuses, so it
failed whenever the page was a moment late. Both are read here from the tests'
own source.
"""

import ast
import re
from pathlib import Path

from conftest import ROOT

BROWSER = ROOT / "tests" / "browser"
TABLE_MAKERS = {"demo_table", "Table", "installed_table"}  # what builds a table a browser test serves
A_FUNCTION = re.compile(r"\s*(async\s+)?(\(|function\b|\w+\s*=>)")  # Playwright calls it; an expression is eval'd


def called(node: ast.Call) -> str:
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")


def opening(node, constants: dict[str, str]) -> str | None:
    """The first characters of a script argument: a string, an f-string or a module's constant; None if unknown."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return node.values[0].value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def faults(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                     for target in node.targets if isinstance(target, ast.Name)
                     and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            where = f"{path.name}:{node.lineno}"
            if called(node) in TABLE_MAKERS and "clock" not in {k.arg for k in node.keywords}:
                found.append(f"{where}: a table on the real clock (give it a FakeClock the test moves)")
            if called(node) == "wait_for_function" and node.args:
                script = opening(node.args[0], constants)
                if script is not None and not A_FUNCTION.match(script):
                    found.append(f"{where}: wait_for_function given an expression, not a function")
    return found


def test_every_browser_test_moves_its_tables_clock_and_waits_on_functions():
    assert faults(BROWSER) == []


def test_a_table_on_the_real_clock_and_a_bare_expression_are_found(tmp_path):
    (tmp_path / "test_late.py").write_text(
        "def test_late(tmp_path, page):\n"
        "    demo_table(tmp_path / 'db', speed=10.0)\n"
        "    demo_table(tmp_path / 'db', clock=FakeClock())\n"
        "    page.wait_for_function(\"window.done\")\n"
        "    page.wait_for_function(\"() => window.done\")\n"
        "    page.wait_for_function(\"s => document.querySelector(s)\", arg='p')\n", encoding="utf-8")
    assert faults(tmp_path) == ["test_late.py:2: a table on the real clock (give it a FakeClock the test moves)",
                                "test_late.py:4: wait_for_function given an expression, not a function"]
