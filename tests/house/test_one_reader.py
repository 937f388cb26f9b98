"""One reader for outside values: no module checks a number, a yes/no or an object's fields by hand.

A hand-written `isinstance(x, bool) or not isinstance(x, int)` is a second
reader that drifts from the first (one door refuses what another lets in).
Every such check lives in companion/fields.py; everyone else calls it. The
check reads the syntax tree, so a comment or a string never trips it.
"""

import ast

from conftest import ROOT

COMPANION = ROOT / "companion"
READER = COMPANION / "fields.py"
# Refusals that only the reader gives: a module raising one of these codes itself has a reader of its own.
READERS_CODES = {"errors.whole", "errors.number", "errors.yes_no", "errors.unknown_field", "errors.count"}
# Config sections name an unknown key when the section is done: the same refusal, read key by key.
OWN_CODES = {COMPANION / "section.py": {"errors.unknown_field"}}


def _kinds(node: ast.expr) -> set[str]:
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    return {n.id for n in names if isinstance(n, ast.Name)}


def hand_checks(path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                and len(node.args) == 2:
            kinds = _kinds(node.args[1])
            if "bool" in kinds or {"int", "float"} <= kinds:
                found.append(f"line {node.lineno}: isinstance(..., {ast.unparse(node.args[1])})")
        if isinstance(node, ast.keyword) and node.arg == "code" and isinstance(node.value, ast.Constant) \
                and node.value.value in READERS_CODES - OWN_CODES.get(path, set()):
            found.append(f"line {node.value.lineno}: raises {node.value.value} itself")
    return found


def test_outside_values_are_checked_by_the_one_reader():
    offenders = {}
    for path in sorted(COMPANION.rglob("*.py")):
        if path == READER or path.is_relative_to(COMPANION / "data"):
            continue  # the firmware in data/ runs on the board, without the package
        found = hand_checks(path)
        if found:
            offenders[str(path.relative_to(ROOT))] = found
    assert not offenders, "checks written by hand (use companion.fields):\n" + "\n".join(
        f"  {p}: {'; '.join(f)}" for p, f in offenders.items())


def test_the_check_sees_a_hand_written_reader(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f(v):\n    if isinstance(v, bool) or not isinstance(v, int):\n"
                      "        raise BadInput('n', 'no', code='errors.whole')\n"
                      "    return isinstance(v, (int, float))\n", encoding="utf-8")
    assert sorted(f.split(":")[0] for f in hand_checks(sample)) == ["line 2", "line 3", "line 4"]
