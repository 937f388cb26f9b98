"""A kind of sensor source lives in its own module: nothing else asks whether a glass is a tilt pair, a button
or on the hub, nor keeps a list of kinds; every other place asks the kind (companion/hardware/sensors). The pages
too: their scripts and templates name no kind, and no catalogue holds a kind's words (each kind brings its own,
in every language)."""

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
NAMING = re.compile(r'\b(?:id|for|name|aria-describedby|data-error-for)="([^"{}]*)"')  # a literal id or name


def kinds_named_on_the_page(area, names=frozenset(sensors.names()), words=None) -> list[str]:
    """Each place of a page's area (its scripts, its templates, its catalogue) that names a kind: a string that is
    a kind's name, an attribute named after one or an id, a name or a field written with one, a catalogue key
    naming one or that a kind gives as its own word (the kind's module holds it)."""
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
        for match in NAMING.finditer(text):
            for n in names & set(re.split(r"[-. ]", match[1])):
                found.append(f"{path.relative_to(area.parent).as_posix()}:{text.count(chr(10), 0, match.start()) + 1} {n}")
    for path in sorted(area.rglob("i18n/*.json")):
        for key in json.loads(path.read_text(encoding="utf-8")):
            parts = key.split(".")
            if key in words or any(p in names or p.split("_")[0] in names for p in parts):
                found.append(f"{path.relative_to(area.parent).as_posix()} {key}")
    return sorted(set(found))


def test_no_page_names_a_kind():
    assert kinds_named_on_the_page(COMPANION / "web") == []


def test_a_kind_named_on_a_page_is_found(tmp_path):
    area = tmp_path / "setup"
    (area / "static").mkdir(parents=True)
    (area / "templates").mkdir()
    (area / "i18n").mkdir()
    (area / "static" / "page.js").write_text(
        'const word = glass.kind.label;\nif (glass.source === "emulated") show();\n', encoding="utf-8")
    (area / "templates" / "page.html").write_text(
        '<input data-pins data-pins-tilt="4, 5">\n{% if timer.source == "hub" %}x{% endif %}\n'
        '<input id="hub-port" name="{{ section }}.port"><label for="pins-{{ colour }}">\n', encoding="utf-8")
    (area / "i18n" / "en.json").write_text(json.dumps({"setup.beam_gain": "Gain", "setup.hub_port": "Port",
                                                       "setup.pose": "Pose"}), encoding="utf-8")
    assert kinds_named_on_the_page(area, words={"setup.beam_gain"}) == [
        "setup/i18n/en.json setup.beam_gain", "setup/i18n/en.json setup.hub_port", "setup/static/page.js:2 emulated",
        "setup/templates/page.html:1 tilt", "setup/templates/page.html:2 hub", "setup/templates/page.html:3 hub"]


def test_a_kind_named_elsewhere_is_found(tmp_path):
    (tmp_path / "pkg" / "kinds").mkdir(parents=True)
    (tmp_path / "pkg" / "rig.py").write_text(
        'PHYSICAL = ("tilt", "hub")\n'
        'def pins(timer):\n'
        '    return timer.pins[:1] if timer.source == "emulated" else timer.pins\n', encoding="utf-8")
    (tmp_path / "pkg" / "kinds" / "tilt.py").write_text('if source == "tilt":\n    pass\n', encoding="utf-8")
    assert kinds_named(tmp_path / "pkg", home=tmp_path / "pkg" / "kinds") == [
        "pkg/rig.py:1 hub", "pkg/rig.py:1 tilt", "pkg/rig.py:3 emulated"]


def test_every_kind_says_its_words_in_every_language():
    """A kind's words are its own, in English and Japanese alike, with the same {slots}; no catalogue says them."""
    from companion.ports import LANGUAGES

    for kind in sensors.kinds():
        assert set(kind.words) == set(LANGUAGES), kind.name
        english = kind.words["en"]
        for lang in LANGUAGES:
            assert set(kind.words[lang]) == set(english), (kind.name, lang)
            for code, text in kind.words[lang].items():
                assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", english[code])), code
        assert kind.label in english and (kind.title is None or kind.title in english), kind.name


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


BEAM = '''"""A light beam across each glass's neck: a kind of source made up to show that a kind is one module."""

from companion.hardware.sensors import PageField, SensorKind, register

GAIN = PageField("gain", "setup.beam_gain", default=1, low=1, high=10, help="setup.beam_help")


class Beam:
    def __init__(self, colour, gain):
        self.device, self.gain = colour, gain

    def take(self, item): pass

    def update(self, t): return []

    def next_due(self): return None

    def close(self): pass


def _open(rig, colours, sink, clock):
    gain = rig.config.sensor_sections["beam"]["gain"]
    rig.sources.update({colour: Beam(colour, gain) for colour in colours})


WORDS = {"en": {"setup.source.beam": "Light beam", "setup.beam": "Light beams", "setup.beam_gain": "Beam gain",
                "setup.beam_help": "How strongly the beams shine."},
         "ja": {"setup.source.beam": "光線", "setup.beam": "光線センサー", "setup.beam_gain": "光線の強さ",
                "setup.beam_help": "光線の明るさ。"}}

register(SensorKind("beam", rank=3, physical=True, section="beam", read=lambda s: {"gain": GAIN.read(s)},
                    open=_open, describe=lambda rig, colour, glass: None, readout=lambda glass: ("(beam)", "-"),
                    on_gpio=False, fields=(GAIN,), title="setup.beam", words=WORDS))
'''


def test_a_new_kind_is_one_module_on_the_pages(tmp_path, monkeypatch):
    """A kind module dropped into the kinds' folder, and no other file touched: the setup page offers it and its
    own settings (with their limits) in English and Japanese, saves them through the config's reader, and the
    show's state says its glasses are read by sensors."""
    import sys

    from companion.clock import FakeClock
    from companion.config import load_or_fresh
    from companion.hardware.mock import mock_pin_factory
    from companion.records import Store
    from companion.table import Table
    from companion.web import create_app
    from conftest import as_owner

    folder = tmp_path / "kinds"
    folder.mkdir()
    (folder / "beam.py").write_text(BEAM, encoding="utf-8")
    monkeypatch.setattr(sensors, "__path__", [*sensors.__path__, str(folder)])
    monkeypatch.setattr(sensors, "_KINDS", {**sensors._KINDS})
    monkeypatch.setattr(sensors, "_all_found", False)
    monkeypatch.delitem(sys.modules, "companion.hardware.sensors.beam", raising=False)
    text = (ROOT / "docs" / "config.example.toml").read_text(encoding="utf-8")
    text = text.replace("/var/lib/companion/companion.sqlite3", str(tmp_path / "db.sqlite3"))
    text = text.replace('source = "tilt"', 'source = "beam"', 1) + "\n[beam]\ngain = 3\n"
    (tmp_path / "config.toml").write_text(text, encoding="utf-8")
    config = load_or_fresh(tmp_path / "config.toml")
    table = Table(config, Store(config.database), mock_pin_factory(), clock=FakeClock())
    try:
        client = create_app(table, testing=True).test_client()
        csrf = as_owner(client, table)
        english = client.get("/setup/").get_data(as_text=True)
        assert '<option value="beam"' in english and "Light beam" in english and "Beam gain" in english
        assert 'name="beam.gain"' in english and 'min="1"' in english and 'max="10"' in english
        assert 'value="3"' in english and 'data-section="beam"' in english
        client.set_cookie("lang", "ja")
        japanese = client.get("/setup/").get_data(as_text=True)
        assert "光線" in japanese and "光線の強さ" in japanese and "光線の明るさ。" in japanese
        assert client.get("/i18n/ja.json?area=setup").json["setup.beam_gain"] == "光線の強さ"
        assert client.get("/api/show").json["sensors"]["red"]["sensed"] is True

        headers = {"X-CSRF-Token": csrf}
        refused = client.post("/api/setup/settings", json={"beam": {"gain": 11}}, headers=headers)
        assert refused.status_code == 400 and refused.json["field"] == "beam.gain", refused.json
        saved = client.post("/api/setup/settings", json={"beam": {"gain": 4}}, headers=headers)
        assert saved.status_code == 200 and saved.json["beam"] == {"gain": 4}, saved.json
        assert table.ports.setup.settings()["beam"] == {"gain": 4}
    finally:
        table.stop()
