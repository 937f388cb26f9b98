"""The import graph of the package: no circle, and every arrow points down the layers (or within one).

Edges are every import, at the top of a module or inside a function (a
circle hidden in a function is still a circle); only a package's
`__init__` gathering its own parts is left out, as Python resolves that by
design. `from package import name` counts as an import of the module
`package.name` when there is one.
"""

import ast

from conftest import ROOT

COMPANION = ROOT / "companion"

# Lowest first. A module may import its own layer or any below it, never one above.
LAYERS = (
    ("companion", "companion.__init__", "companion.errors", "companion.jsonin", "companion.players",
     "companion.clock", "companion.bells", "companion.data", "companion.fields",
     "companion.ports", "companion.guessing"),                                  # plain values, the ports
    ("companion.skyrockets", "companion.flock", "companion.geese"),             # the rules, pure
    ("companion.progress",),                                                    # figures over the rules, pure
    ("companion.calibration", "companion.leds", "companion.hardware", "companion.section",
     "companion.records", "companion.notify", "companion.startup"),             # the parts of the shell
    ("companion.mqtt", "companion.mqtt.settings", "companion.mqtt.topics", "companion.mqtt.client",
     "companion.mqtt.discovery", "companion.mqtt.pacer"),                       # the broker's pieces
    ("companion.config",),                                                      # every section, read
    ("companion.table", "companion.mqtt.bridge"),                               # the running table
    ("companion.appliance",),                                                   # its upkeep: handed to the table
    ("companion.web",),                                                         # its pages
    ("companion.mqtt.hall",),                                                   # the hall, on the web's parts
    ("companion.cli", "companion.__main__", "companion.appliance.__main__"),    # the commands (and the image's)
)


def modules() -> dict:
    found = {}
    for path in COMPANION.rglob("*.py"):
        if path.is_relative_to(COMPANION / "data"):
            continue  # the firmware shipped as data runs on the board; it is not part of the import graph
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def graph() -> dict[str, set[str]]:
    found = modules()

    def resolve(name: str) -> str | None:
        while name and name not in found:
            name = name.rpartition(".")[0]
        return name or None

    edges = {}
    for module, path in found.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in found else node.module
                         for a in node.names]
            else:
                continue
            for name in names:
                target = resolve(name)
                gathering = path.name == "__init__.py" and target and target.startswith(module + ".")
                if target and target != module and not gathering:
                    targets.add(target)
        edges[module] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def layer(module: str) -> int:
    best = None
    for i, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and (best is None or len(name) > len(best[1])):
                best = (i, name)
    assert best is not None, f"{module} is in no layer: place it in LAYERS"
    return best[0]


def upward(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} -> {b}" for a, targets in edges.items() for b in targets if layer(b) > layer(a))


def test_the_package_has_no_import_circle():
    edges = graph()
    assert len(edges) > 100 and sum(map(len, edges.values())) > 300  # the walk saw the whole package
    assert cycles(edges) == []


def test_no_import_points_back_up_the_layers():
    assert upward(graph()) == []


# What the web may import besides its own package (and Flask, werkzeug and other libraries, which are not in
# the graph): the ports it asks the table through, the rules, the errors and the plain values (a bell is one).
WEB_MAY_IMPORT = ("companion.ports", "companion.skyrockets", "companion.flock", "companion.geese", "companion.progress",
                  "companion.errors",
                  "companion.fields", "companion.jsonin", "companion.players", "companion.clock", "companion.bells",
                  "companion.guessing")
WEB_NEVER_IMPORTS = ("companion.records", "companion.hardware", "companion.calibration", "companion.table",
                     "companion.config")


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def foreign(edges: dict[str, set[str]], area: str, allowed) -> list[str]:
    """The imports of `area`'s modules that lead outside the area and outside `allowed`."""
    return sorted(f"{a} -> {b}" for a, targets in edges.items() if within(a, area) for b in targets
                  if not within(b, area) and not any(within(b, name) for name in allowed))


def test_the_web_sees_the_table_through_its_ports_only():
    edges = graph()
    assert foreign(edges, "companion.web", WEB_MAY_IMPORT) == []
    assert any(within(b, "companion.ports") for a, targets in edges.items() if within(a, "companion.web")
               for b in targets)  # the walk saw the web ask its ports
    never = [f"{a} -> {b}" for a, targets in edges.items() if within(a, "companion.web") for b in targets
             if any(within(b, name) for name in WEB_NEVER_IMPORTS)]
    assert never == []


def test_the_web_check_would_see_a_reach_into_the_table_or_the_records():
    edges = {"companion.web.show.api": {"companion.web", "companion.ports", "companion.table.desk"},
             "companion.web.api": {"companion.records.database", "companion.skyrockets.log"}}
    assert foreign(edges, "companion.web", WEB_MAY_IMPORT) == [
        "companion.web.api -> companion.records.database", "companion.web.show.api -> companion.table.desk"]


def test_the_checks_would_see_a_circle_and_an_arrow_up():
    edges = {"companion.config": {"companion.mqtt.settings"}, "companion.mqtt.settings": {"companion.config"}}
    assert cycles(edges) == [["companion.config", "companion.mqtt.settings"]]
    assert upward(edges) == ["companion.mqtt.settings -> companion.config"]
