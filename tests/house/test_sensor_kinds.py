"""A kind of sensor source lives in its own module: nothing else asks whether a glass is a tilt pair, a button
or on the hub, nor keeps a list of kinds; every other place asks the kind (companion/hardware/sensors)."""

import ast

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
