"""One reader for outside values: no module checks a value's kind by hand and refuses it itself.

A hand-written `if not isinstance(x, list): raise BadInput(...)` is a second
reader that drifts from the first: one door refuses what another lets in, or
refuses it with another field's words (a table's name refused as a broker
address). Every such check lives in the reader, companion/fields.py (and
jsonin.py below it, which reads the JSON text); everyone else calls it, with
its own words for what it expected and its own catalogue code. The check
reads the syntax tree, so a comment or a string never trips it.
"""

import ast

from conftest import ROOT

COMPANION = ROOT / "companion"
READER = {COMPANION / "fields.py", COMPANION / "jsonin.py"}
# Refusals that only the reader gives: a module raising one of these codes itself has a reader of its own.
READERS_CODES = {"errors.whole", "errors.number", "errors.yes_no", "errors.unknown_field", "errors.count"}
# Config sections name an unknown key when the section is done: the same refusal, read key by key.
OWN_CODES = {COMPANION / "section.py": {"errors.unknown_field"}}
# Raised when our own code hands over a value of a type it never makes: a mistake in the program, not a refusal.
NOT_REFUSALS = {"TypeError"}


def _checks_a_kind(node: ast.expr) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "isinstance"
               for n in ast.walk(node))


def _refuses(statements: list) -> bool:
    for node in (n for s in statements for n in ast.walk(s)):
        if isinstance(node, ast.Raise) and node.exc is not None:  # a bare raise passes on what was caught
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if not (isinstance(raised, ast.Name) and raised.id in NOT_REFUSALS):
                return True
    return False


def _kind_then_refusal(tree) -> list[int]:
    """Lines of every `if` that tests a value's kind and refuses: in its branches, or just after it returns."""
    found = []
    for block in ast.walk(tree):
        for statements in (getattr(block, name, None) for name in ("body", "orelse", "finalbody")):
            if not isinstance(statements, list):
                continue
            for i, node in enumerate(statements):
                if not (isinstance(node, ast.If) and _checks_a_kind(node.test)):
                    continue
                returns_first = bool(node.body) and isinstance(node.body[-1], ast.Return)
                if _refuses(node.body) or _refuses(node.orelse) or (returns_first and _refuses(statements[i + 1:i + 2])):
                    found.append(node.lineno)
    return found


def _kinds(node: ast.expr) -> set[str]:
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    return {n.id for n in names if isinstance(n, ast.Name)}


def hand_checks(path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [f"line {n}: tests a kind and refuses" for n in _kind_then_refusal(tree)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                and len(node.args) == 2 and ("bool" in (kinds := _kinds(node.args[1])) or {"int", "float"} <= kinds):
            found.append(f"line {node.lineno}: isinstance(..., {ast.unparse(node.args[1])})")  # a number or yes/no
        if isinstance(node, ast.keyword) and node.arg == "code" and isinstance(node.value, ast.Constant) \
                and node.value.value in READERS_CODES - OWN_CODES.get(path, set()):
            found.append(f"line {node.value.lineno}: raises {node.value.value} itself")
    return sorted(found, key=lambda f: int(f.split()[1].rstrip(":")))


def test_outside_values_are_checked_by_the_one_reader():
    offenders = {}
    for path in sorted(COMPANION.rglob("*.py")):
        if path in READER or path.is_relative_to(COMPANION / "data"):
            continue  # the firmware in data/ runs on the board, without the package
        found = hand_checks(path)
        if found:
            offenders[str(path.relative_to(ROOT))] = found
    assert not offenders, "checks written by hand (use companion.fields):\n" + "\n".join(
        f"  {p}: {'; '.join(f)}" for p, f in offenders.items())


def test_the_check_sees_a_hand_written_reader(tmp_path):
    """A planted copy of each shape is found; a type dispatch that only guards against our own mistakes is not."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(v):\n"
        "    if isinstance(v, bool) or not isinstance(v, int):\n"            # 2: refuses in its branch
        "        raise BadInput('n', 'no', code='errors.whole')\n"           # 3: the reader's own code
        "    if isinstance(v, str):\n"                                       # 4: refuses further in
        "        if v not in KNOWN:\n"
        "            raise BadInput('n', 'unknown', code='errors.x')\n"
        "    if isinstance(v, dict):\n"                                      # 7: accepts, refuses after
        "        return v\n"
        "    raise LogError(1, 'n', 'no', code='errors.shape')\n"
        "    if isinstance(v, list):\n"                                      # 10: refuses in its else
        "        pass\n"
        "    else:\n"
        "        raise BadInput('n', 'not a list')\n"
        "    try:\n"
        "        pass\n"
        "    except OSError as e:\n"
        "        if isinstance(e, PermissionError):\n"                       # passes it on: no refusal
        "            raise\n"
        "    if isinstance(v, tuple):\n"                                     # our own mistake: no refusal
        "        pass\n"
        "    else:\n"
        "        raise TypeError(v)\n"
        "    return isinstance(v, (int, float))\n", encoding="utf-8")                # 23: a number, by hand
    assert [f.split(":")[0] for f in hand_checks(sample)] == \
        ["line 2", "line 2", "line 3", "line 4", "line 7", "line 10", "line 23"]
