"""The shape of the house: the rules import no shell, the web sees the table through its ports, each limit named once."""

import ast
import subprocess
import sys

import pytest

from conftest import ROOT

COMPANION = ROOT / "companion"
RULES = ("skyrockets", "flock", "geese", "progress")  # the pure packages: the rules, and the figures over them
SHELL_MODULES = {"flask", "gpiozero", "serial", "sqlite3", "threading", "time", "socket", "paho", "waitress",
                 "companion.table", "companion.hardware", "companion.web", "companion.records", "companion.cli"}


def imported(path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


@pytest.mark.parametrize("package", [p for p in RULES if (COMPANION / p).is_dir()])
def test_the_rules_import_no_shell(package):
    for path in sorted((COMPANION / package).rglob("*.py")):
        shells = {name for name in imported(path) if any(name == s or name.startswith(s + ".") for s in SHELL_MODULES)}
        assert not shells, f"{path.relative_to(ROOT)} imports {sorted(shells)}"


def test_importing_the_web_loads_neither_the_runtime_nor_the_hardware():
    code = ("import importlib, pkgutil, sys, companion.web as web\n"
            "for m in pkgutil.walk_packages(web.__path__, 'companion.web.'): importlib.import_module(m.name)\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith(('companion.table', 'companion.hardware', "
            "'gpiozero', 'serial')))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_no_route_reaches_through_the_table_into_its_store_or_config():
    for path in sorted((COMPANION / "web").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for reach in ("table().store", "table().config", "table.store.", "table.config."):
            assert reach not in text, f"{path.relative_to(ROOT)} reaches through the table: {reach}"


def test_every_sensor_source_plugs_in_through_the_one_interface(tmp_path):
    from companion.clock import FakeClock
    from companion.hardware.source import Source
    from companion.table import demo_table

    table = demo_table(tmp_path / "t.sqlite3", clock=FakeClock())
    try:
        assert table.rig.sources and all(isinstance(s, Source) for s in table.rig.sources.values())
    finally:
        table.stop()


def test_no_route_reaches_through_the_table_into_its_game_shelf():
    for path in sorted((COMPANION / "web").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for reach in ("table().games", "table.games", "table._games", "GameShelf"):
            assert reach not in text, f"{path.relative_to(ROOT)} reaches through the table: {reach}"


OPENS_SQLITE_ALLOWED = ("companion/records/", "companion/mqtt/hall/board.py")  # the hall keeps its own file


def test_only_the_records_layer_opens_sqlite():
    for path in sorted(COMPANION.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if where.startswith(OPENS_SQLITE_ALLOWED):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            opens = (isinstance(node, ast.Attribute) and node.attr == "connect"
                     and isinstance(node.value, ast.Name) and node.value.id == "sqlite3")
            opens |= isinstance(node, ast.ImportFrom) and node.module == "sqlite3" and any(
                a.name == "connect" for a in node.names)
            assert not opens, f"{where} opens SQLite itself: ask companion.records"


# Limits the table, its records and its web share: each is assigned in one module, which owns its rule, and
# every other imports it from there. Any MAX_ or MIN_ name is a limit too: two modules assigning one are two
# limits that drift apart, or two rules under one name (give each its own).
SHARED_LIMITS = ("LANGUAGES", "RETRY_AFTER_S", "CALIBRATION_BAND", "PIN_DIGITS", "DURABLE_WAIT_S")


def named_in(path) -> set[str]:
    """The names a module assigns at its top level."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for target in targets:
            for leaf in ast.walk(target) if target is not None else ():
                if isinstance(leaf, ast.Name):
                    names.add(leaf.id)
    return names


def limits_named_twice(package) -> dict[str, list[str]]:
    where: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        if path.is_relative_to(package / "data"):
            continue  # the firmware in data/ runs on the board, without the package: it names its own
        for name in named_in(path):
            if name in SHARED_LIMITS or name.startswith(("MAX_", "MIN_")):
                where.setdefault(name, []).append(path.relative_to(package.parent).as_posix())
    return {name: places for name, places in where.items() if len(places) > 1}


def test_each_limit_is_named_once():
    assert limits_named_twice(COMPANION) == {}


def test_a_limit_named_twice_is_found(tmp_path):
    (tmp_path / "pkg" / "games").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("MAX_STATE_BYTES = 256 * 1024\nRETRY_AFTER_S = 1\n", encoding="utf-8")
    (tmp_path / "pkg" / "games" / "b.py").write_text("MAX_STATE_BYTES: int = 1 << 18\n", encoding="utf-8")
    assert limits_named_twice(tmp_path / "pkg") == {"MAX_STATE_BYTES": ["pkg/a.py", "pkg/games/b.py"]}


def test_every_table_of_the_table_file_is_created_by_its_schema():
    """The table file's tables are made in records/schema.py, step by step; no record module opens a side door
    with statements of its own (the hall's board is a file of its own, with its own schema)."""
    def creates(path) -> bool:  # in the code's own text (a docstring's example makes a table of its own)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        documents = {id(node.body[0].value) for node in ast.walk(tree) if isinstance(node, (
            ast.Module, ast.ClassDef, ast.FunctionDef)) and ast.get_docstring(node, clean=False) is not None}
        return any(isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documents
                   and "CREATE TABLE" in node.value.upper() for node in ast.walk(tree))

    makers = sorted(path.relative_to(ROOT).as_posix() for path in COMPANION.rglob("*.py") if creates(path))
    assert makers == ["companion/mqtt/hall/board.py", "companion/records/schema.py"]


def test_every_docstring_example_runs():
    """An example that is never run drifts from the code it shows: run it, or say it in prose."""
    skipped = sorted(path.relative_to(ROOT).as_posix() for path in COMPANION.rglob("*.py")
                     if "doctest: +SKIP" in path.read_text(encoding="utf-8"))
    assert skipped == []
