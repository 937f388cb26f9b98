"""A kind of sensor source lives in its own module: nothing else asks whether a glass is a tilt pair, a button
or on the hub, nor keeps a list of kinds; every other place asks the kind (companion/hardware/sensors). The setup
page too: its scripts and templates name no kind, and every word of its catalogue that is one kind's is a word
that kind gives as its own."""

import ast
import json
import re

from conftest import ROOT

from companion.hardware import sensors

COMPANION = ROOT / "companion"
KINDS_HOME = COMPANION / "hardware" / "sensors"


def _kind_names(node, names) -> list[str]:
    if isinstance(node, ast.Constant):
        return [node.value] if node.value in names else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [n for element in node.elts for n in _kind_names(element, names)]
    return []


def kinds_named(package, names=frozenset(sensors.names()), home=KINDS_HOME) -> list[str]:
    """Each place outside the kinds' own folder that compares a value with a kind's name, matches on one, or
    lists two kinds or more: "path:line name"."""
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.is_relative_to(home) or path.is_relative_to(package / "data"):
            continue  # the firmware in data/ runs on the board and knows nothing of the table's kinds
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                named = [n for operand in (node.left, *node.comparators) for n in _kind_names(operand, names)]
            elif isinstance(node, ast.MatchValue):
                named = _kind_names(node.value, names)
            elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                named = _kind_names(node, names)
                named = named if len(named) > 1 else []
            else:
                continue
            found += [f"{path.relative_to(package.parent).as_posix()}:{node.lineno} {n}" for n in named]
    return sorted(set(found))


def test_only_a_kind_names_itself():
    assert kinds_named(COMPANION) == []


STRING = re.compile(r"""(["'`])([\w-]*)\1""")  # a quoted word, in a script or inside a template's {{ }} and {% %}
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
ATTRIBUTE = re.compile(r"\bdata-[\w-]+")


def kinds_named_on_the_page(area, names=frozenset(sensors.names()), words=None) -> list[str]:
    """Each place of a page's area (its scripts, its templates, its catalogue) that names a kind: a string that is
    a kind's name, an attribute named after one, a catalogue key naming one that no kind gives as its own word."""
    words = {w for k in sensors.kinds() for w in k.page_words()} if words is None else words
    found = []

    def named(path, text, pattern, name_of, start=0):
        for match in pattern.finditer(text, start):
            for n in names:
                if name_of(match[0] if pattern is ATTRIBUTE else match[2], n):
                    line = text.count("\n", 0, match.start()) + 1
                    found.append(f"{path.relative_to(area.parent).as_posix()}:{line} {n}")

    def equal(word, n):
        return word == n

    def after_a_dash(attribute, n):
        return attribute.endswith(f"-{n}")

    for path in sorted(area.rglob("*.js")):
        named(path, path.read_text(encoding="utf-8"), STRING, equal)
    for path in sorted(area.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        for block in JINJA.finditer(text):
            named(path, text[:block.end()], STRING, equal, block.start())
        named(path, text, ATTRIBUTE, after_a_dash)
    for path in sorted(area.rglob("i18n/*.json")):
        for key in json.loads(path.read_text(encoding="utf-8")):
            parts = key.split(".")
            if key not in words and any(p in names or p.split("_")[0] in names for p in parts):
                found.append(f"{path.relative_to(area.parent).as_posix()} {key}")
    return sorted(set(found))


def test_the_setup_page_names_no_kind():
    assert kinds_named_on_the_page(COMPANION / "web" / "setup") == []


def test_a_kind_named_on_a_page_is_found(tmp_path):
    area = tmp_path / "setup"
    (area / "static").mkdir(parents=True)
    (area / "templates").mkdir()
    (area / "i18n").mkdir()
    (area / "static" / "page.js").write_text(
        'const word = glass.kind.label;\nif (glass.source === "emulated") show();\n', encoding="utf-8")
    (area / "templates" / "page.html").write_text(
        '<input data-pins data-pins-tilt="4, 5">\n{% if timer.source == "hub" %}x{% endif %}\n', encoding="utf-8")
    (area / "i18n" / "en.json").write_text(json.dumps({"setup.source.tilt": "Tilt cradle", "setup.hub_port": "Port",
                                                       "setup.pose": "Pose"}), encoding="utf-8")
    assert kinds_named_on_the_page(area, words={"setup.source.tilt"}) == [
        "setup/i18n/en.json setup.hub_port", "setup/static/page.js:2 emulated", "setup/templates/page.html:1 tilt",
        "setup/templates/page.html:2 hub"]


def test_a_kind_named_elsewhere_is_found(tmp_path):
    (tmp_path / "pkg" / "kinds").mkdir(parents=True)
    (tmp_path / "pkg" / "rig.py").write_text(
        'PHYSICAL = ("tilt", "hub")\n'
        'def pins(timer):\n'
        '    return timer.pins[:1] if timer.source == "emulated" else timer.pins\n', encoding="utf-8")
    (tmp_path / "pkg" / "kinds" / "tilt.py").write_text('if source == "tilt":\n    pass\n', encoding="utf-8")
    assert kinds_named(tmp_path / "pkg", home=tmp_path / "pkg" / "kinds") == [
        "pkg/rig.py:1 hub", "pkg/rig.py:1 tilt", "pkg/rig.py:3 emulated"]


def test_every_kind_registers_its_own_section():
    """Each kind reads a section of its own, so a kind's settings are never another's."""
    sections = [kind.section for kind in sensors.kinds()]
    assert sorted(sections) == sorted(set(sections)) and sensors.names() == ("tilt", "hub", "emulated")


def test_a_new_kind_is_one_module(monkeypatch):
    """A kind registered with its section, its sources and its words is read, opened and described by the
    config, the rig and the wiring check, with nothing else changed."""
    from companion.config import parse_config
    from companion.hardware.mock import mock_pin_factory
    from companion.table import wiring
    from companion.table.rig import Rig

    class Beam:
        def __init__(self, colour, gain):
            self.device, self.gain = colour, gain

        def take(self, item): pass

        def update(self, t): return []

        def next_due(self): return None

        def close(self): pass

    def read(section):
        return {"gain": section.number("gain", 1, 1, 10)}

    def open_beams(rig, colours, sink, clock):
        gain = sensors.settings_of(rig.config, sensors.kind("beam"))["gain"]
        rig.sources.update({colour: Beam(colour, gain) for colour in colours})

    beam = sensors.SensorKind("beam", rank=3, physical=True, section="beam", read=read, open=open_beams,
                              describe=lambda rig, colour, glass: glass.update(pose="a_up"),
                              readout=lambda glass: ("(beam)", f"pose {glass['pose']}"), on_gpio=False)
    sensors.kinds()
    monkeypatch.setattr(sensors, "_KINDS", {**sensors._KINDS})
    sensors.register(beam)
    config = parse_config({"timers": {"red": {"source": "beam"}}, "beam": {"gain": 3}}, None)
    rig = Rig(config, mock_pin_factory(), lambda item: None, lambda: 0.0)
    try:
        assert rig.sources["red"].gain == 3 and "red" in rig.physical()
        assert wiring.readout(rig)[0].split() == ["red", "beam", "(beam)", "pose", "a_up"]
    finally:
        rig.close()


def test_every_kind_is_found_whichever_module_is_imported_first():
    import subprocess
    import sys

    code = ("import companion.hardware.sensors.hub\nfrom companion.hardware import sensors\n"
            "print(' '.join(sensors.names()))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["tilt", "hub", "emulated"]
