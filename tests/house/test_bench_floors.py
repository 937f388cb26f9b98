"""A bench's floor shares no code with the product: what both paid would cancel, and the floor would flatter.

A floor run as its own process is a string of the bench's own lines (FLOOR); a floor in the bench's file is a
function or class named for it. Neither may import the product, nor use a name the bench imported from it.
"""

import ast

from conftest import ROOT

BENCH = ROOT / "bench"
FLOOR_FUNCTIONS = {"replay_growth.py": ("floor_s",), "history.py": ("floor_serve",),
                   "sse.py": ("OneThreadFloor", "ContractFloor", "floor_app", "QueueFloor")}


def product_names(tree: ast.Module) -> set[str]:
    """The names a bench module binds from the product's package."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "companion":
            names |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names
                      if alias.name.split(".")[0] == "companion"}
    return names


def imports_product(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "companion":
            return True
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "companion" for a in node.names):
            return True
    return False


def floor_strings() -> list[tuple[str, str]]:
    found = []
    for path in sorted(BENCH.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id.startswith("FLOOR")
                                                     for t in node.targets)
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                found.append((path.name, node.value.value))
    return found


def test_every_floor_run_as_a_process_is_python_that_imports_nothing_of_the_product():
    floors = floor_strings()
    assert {name for name, _ in floors} >= {"flip.py", "restart.py", "replay_growth.py", "mqtt_hall.py"}
    for name, source in floors:
        assert not imports_product(ast.parse(source)), name


def test_a_floor_function_uses_nothing_the_bench_took_from_the_product():
    for name, functions in FLOOR_FUNCTIONS.items():
        tree = ast.parse((BENCH / name).read_text(encoding="utf-8"))
        taken, seen = product_names(tree), set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in functions:
                seen.add(node.name)
                used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                assert not imports_product(node) and not used & taken, (name, node.name, used & taken)
        assert seen == set(functions), name  # a floor renamed is still held to it
