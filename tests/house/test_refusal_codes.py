"""Every refusal carries a catalogue code: no BadInput or Conflict is raised with only an English sentence.

A person meets a refusal on a page, in a terminal or in a log, and a page shows it by its code in the
page's language; a refusal without one shows as "that was not understood". The check reads the syntax
tree of every module: a call of BadInput, Conflict or one of their subclasses must name `code=`, unless
the subclass carries its own `error_code` (NothingToUndo, VersionClash, BadName). Each code named is in
both catalogues.
"""

import ast
import json

from conftest import ROOT

COMPANION = ROOT / "companion"
REFUSALS = {"BadInput", "Conflict"}
CATALOGUES = [COMPANION / "web" / "static" / "i18n", *(COMPANION / "web").glob("*/i18n"),
              COMPANION / "mqtt" / "hall" / "i18n"]


def modules() -> list:
    # The firmware in data/ runs on the board, without the package.
    return [p for p in sorted(COMPANION.rglob("*.py")) if not p.is_relative_to(COMPANION / "data")]


def _called(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def refusal_kinds(trees) -> tuple[set[str], set[str]]:
    """The refusal classes that need a code at the call, and the subclasses that carry their own."""
    needs, coded = set(REFUSALS), set()
    classes = [node for tree in trees for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    grown = True
    while grown:  # a subclass of a subclass is a refusal too
        grown = False
        for cls in classes:
            bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", None) for b in cls.bases}
            if cls.name in needs | coded or not bases & (needs | coded):
                continue
            own = any(isinstance(s, ast.Assign) and any(getattr(t, "id", None) == "error_code" for t in s.targets)
                      for s in cls.body)
            (coded if own or bases & coded else needs).add(cls.name)
            grown = True
    return needs, coded


def uncoded(tree: ast.AST, needs: set[str]) -> list[str]:
    """The calls of a refusal class in `tree` that name no code."""
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and _called(node) in needs
             and not any(k.arg == "code" for k in node.keywords)]
    return [f"line {node.lineno}: {_called(node)}(...)" for node in sorted(calls, key=lambda n: n.lineno)]


def named_codes(tree: ast.AST) -> set[str]:
    """The catalogue codes a module gives its refusals (`code="..."`, `error_code = "..."`)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "code" and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            found.add(node.value.value)
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "error_code" for t in node.targets) \
                and isinstance(node.value, ast.Constant):
            found.add(node.value.value)
    return found


def catalogue(lang: str) -> dict:
    """Every message of `lang`: the catalogues' and the words each kind of sensor brings of its own."""
    from companion.hardware import sensors

    messages = dict(sensors.words().get(lang, {}))
    for folder in CATALOGUES:
        if (folder / f"{lang}.json").exists():
            messages.update(json.loads((folder / f"{lang}.json").read_text("utf-8")))
    return messages


def test_every_refusal_is_raised_with_a_catalogue_code():
    trees = {path: ast.parse(path.read_text("utf-8")) for path in modules()}
    needs, _ = refusal_kinds(trees.values())
    offenders = {str(p.relative_to(ROOT)): found for p, tree in trees.items() if (found := uncoded(tree, needs))}
    assert not offenders, "refusals without a code=:\n" + "\n".join(
        f"  {p}: {'; '.join(f)}" for p, f in offenders.items())


def test_every_code_a_refusal_names_is_in_both_catalogues():
    named = set().union(*(named_codes(ast.parse(p.read_text("utf-8"))) for p in modules()))
    assert {"errors.range", "errors.nothing_to_undo"} <= named  # the search finds them
    english, japanese = catalogue("en"), catalogue("ja")
    assert sorted(code for code in named if code not in english or code not in japanese) == []


def test_the_check_sees_a_refusal_without_a_code():
    sample = ast.parse(
        "class Gone(Conflict):\n    error_code = 'errors.gone'\n\n"
        "class Odd(BadInput):\n    pass\n\n"
        "def f(v):\n"
        "    if v:\n        raise BadInput('n', 'no', code='errors.range', params={'low': 1, 'high': 2})\n"
        "    if v is None:\n        raise errors.Conflict('n', 'not now')\n"
        "    if v == 0:\n        raise Gone('n')\n"
        "    raise Odd('n', 'odd')\n")
    needs, coded = refusal_kinds([sample])
    assert (needs, coded) == ({"BadInput", "Conflict", "Odd"}, {"Gone"})
    assert uncoded(sample, needs) == ["line 11: Conflict(...)", "line 14: Odd(...)"]
    assert named_codes(sample) == {"errors.gone", "errors.range"}
