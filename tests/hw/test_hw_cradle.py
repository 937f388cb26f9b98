"""The printable cradle, checked as geometry by OpenSCAD itself.

Each check builds a small SCAD file that includes hw/cradle.scad (its
`part = "none"` draws nothing by itself) and asks OpenSCAD for a CSG
intersection: empty when two things must not touch, with volume when they
must. The documented sizes are rendered to STL files in a temporary folder.
"""

import itertools
import os
import re
import shutil
import subprocess

import pytest

from companion.skyrockets.colours import COLOURS, SYMBOLS
from conftest import ROOT

SCAD = ROOT / "hw" / "cradle.scad"
OPENSCAD = shutil.which("openscad")
DOCUMENTED_D = (16, 26, 40)  # the glass_d range the docs give, and the default
DOCUMENTED_H = (65, 92, 150)  # the glass_h range the docs give, and the default
SWITCH_OPERATE_MAX = 20  # a ball switch closes once its lead end is 10 +- 10 deg below horizontal
SWITCH_DIFFERENTIAL_MAX = 15  # and opens again up to 15 deg past that
COARSE = "$fn = 24;"  # coarser circles: quicker, and every check below still holds


@pytest.fixture(scope="session")  # not "module": only the tests that share a render are kept on one test process
def openscad():
    if OPENSCAD is None:
        if os.environ.get("COMPANION_REQUIRE_TOOLS") == "1":
            pytest.fail("openscad is required (COMPANION_REQUIRE_TOOLS=1) but not installed (Debian: openscad)")
        pytest.skip("openscad is not installed (Debian package: openscad)")
    return OPENSCAD


def render(openscad, out, *defines: str) -> subprocess.CompletedProcess:
    args = [openscad, "-o", str(out)]
    for define in defines:
        args += ["-D", define]
    return subprocess.run([*args, str(SCAD)], capture_output=True, text=True, timeout=300)


def solid(openscad, tmp_path, body: str, **params) -> tuple[float, str]:
    """The volume (mm³) of what `body` draws with the cradle's modules and `params`; 0 when it is empty."""
    settings = "".join(f"{k} = {v};\n" for k, v in params.items())
    source = tmp_path / f"check{len(list(tmp_path.glob('check*.scad')))}.scad"
    source.write_text(f'include <{SCAD}>\npart = "none";\n{COARSE}\n{settings}{body}\n', encoding="utf-8")
    out = source.with_suffix(".off")
    done = subprocess.run([openscad, "-o", str(out), str(source)], capture_output=True, text=True, timeout=300)
    if "Current top level object is empty" in done.stderr:
        return 0.0, done.stderr
    assert done.returncode == 0 and "ERROR" not in done.stderr, done.stderr
    return off_volume(out.read_text()), done.stderr


def off_volume(text: str) -> float:
    """The enclosed volume of an OFF mesh (sum of signed tetrahedra over fan-triangulated faces)."""
    words = text.split()
    assert words[0] == "OFF"
    nv, nf = int(words[1]), int(words[2])
    numbers = words[4:]
    vertices = [tuple(map(float, numbers[3 * i:3 * i + 3])) for i in range(nv)]
    at, volume = 3 * nv, 0.0
    for _ in range(nf):
        count = int(numbers[at])
        face = [vertices[int(i)] for i in numbers[at + 1:at + 1 + count]]
        at += 1 + count
        for b, c in zip(face[1:], face[2:]):
            a = face[0]
            volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                       + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6
    return abs(volume)


def extent(stl) -> list[tuple[float, float]]:
    """(min, max) of the model along X, Y and Z, read from an ASCII STL."""
    points = [tuple(map(float, m.groups())) for m in
              re.finditer(r"vertex\s+(\S+)\s+(\S+)\s+(\S+)", stl.read_text())]
    assert len(points) > 100
    return [(min(p[i] for p in points), max(p[i] for p in points)) for i in range(3)]


def parameter(name: str) -> float:
    return float(re.search(rf"^{name} = ([\d.]+);", SCAD.read_text(), re.M).group(1))


def sleeve_h(glass_h: float) -> float:
    return parameter("floor_t") + glass_h + parameter("end_play") + parameter("hook_t")


@pytest.fixture(scope="module")
def default_stl(openscad, tmp_path_factory):
    out = tmp_path_factory.mktemp("cradle") / "cradle.stl"
    done = render(openscad, out)
    assert done.returncode == 0, done.stderr
    return out, done.stderr


def test_the_default_cradle_renders_to_a_closed_solid(default_stl):
    stl, log = default_stl
    assert stl.read_text().startswith("solid")
    assert "WARNING" not in log and "ERROR" not in log, log


def test_the_sleeve_covers_the_whole_default_glass(default_stl):
    (x0, x1), (y0, y1), (z0, z1) = extent(default_stl[0])
    assert z0 == pytest.approx(0) and z1 == pytest.approx(sleeve_h(parameter("glass_h")), abs=1e-3)
    assert x1 - x0 > parameter("glass_d") and y1 - y0 > parameter("glass_d") + parameter("switch_d")


def test_a_taller_wider_glass_makes_a_bigger_cradle(openscad, tmp_path, default_stl):
    out = tmp_path / "big.stl"
    done = render(openscad, out, "glass_d=34", "glass_h=120", "$fn=24")
    assert done.returncode == 0, done.stderr
    small, big = extent(default_stl[0]), extent(out)
    assert big[2][1] - small[2][1] == pytest.approx(120 - parameter("glass_h"), abs=1e-3)
    assert (big[0][1] - big[0][0]) - (small[0][1] - small[0][0]) == pytest.approx(34 - parameter("glass_d"), abs=0.05)


def test_a_lean_out_of_range_is_refused(openscad, tmp_path):
    done = render(openscad, tmp_path / "bad.stl", "lean=60", "$fn=12")
    assert "lean" in done.stderr and "assert" in done.stderr.lower()
    assert not (tmp_path / "bad.stl").exists() or done.returncode != 0


@pytest.mark.parametrize("glass_h", DOCUMENTED_H)
@pytest.mark.parametrize("glass_d", DOCUMENTED_D)
def test_every_documented_size_renders_to_an_stl_and_the_glass_slides_in(openscad, tmp_path, glass_d, glass_h):
    out = tmp_path / f"cradle-{glass_d}x{glass_h}.stl"
    done = render(openscad, out, f"glass_d={glass_d}", f"glass_h={glass_h}", "$fn=24")
    assert done.returncode == 0 and "WARNING" not in done.stderr, done.stderr
    assert out.read_text().startswith("solid")
    assert extent(out)[2][1] == pytest.approx(sleeve_h(glass_h), abs=1e-3)
    overlap, _ = solid(openscad, tmp_path, "intersection() { cradle(); glass(0); }", glass_d=glass_d, glass_h=glass_h)
    assert overlap == 0, "the glass at rest touches the cradle"


@pytest.mark.parametrize("size", [(16, 65), (26, 92), (40, 150)])
@pytest.mark.parametrize("shift", [5, -5])
def test_the_glass_is_held_at_both_ends(openscad, tmp_path, size, shift):
    """Moved 5 mm along its axis towards A (the hooks) or B (the floor), the glass runs into the cradle."""
    glass_d, glass_h = size
    overlap, _ = solid(openscad, tmp_path, f"intersection() {{ cradle(); glass({shift}); }}",
                       glass_d=glass_d, glass_h=glass_h)
    assert overlap > 1.0


@pytest.mark.parametrize("glass_h", [65, 92])
@pytest.mark.parametrize("switch", [0, 1])
def test_each_lead_slot_runs_from_its_switch_into_the_groove(openscad, tmp_path, switch, glass_h):
    into_groove, _ = solid(openscad, tmp_path, f"intersection() {{ lead_slot({switch}); cable_groove(); }}",
                           glass_h=glass_h)
    from_can, _ = solid(openscad, tmp_path, f"intersection() {{ lead_slot({switch}); switch_placed({switch}) "
                                            "cylinder(d = switch_d, h = switch_l, center = true); }", glass_h=glass_h)
    assert into_groove > 5.0 and from_can > 1.0


def test_the_groove_leaves_at_end_b(openscad, tmp_path):
    below_floor, _ = solid(openscad, tmp_path, "intersection() { cable_groove(); translate([-50, 0, -2]) cube([100, 100, 2]); }")
    assert below_floor > 0


def test_four_leds_at_60_per_metre_fit_the_default_slot(openscad, tmp_path):
    """A piece of 4 LEDs at 60/m is 66.7 mm long: it fits the slot without touching the cradle."""
    overlap, log = solid(openscad, tmp_path, "intersection() { cradle(); led_piece(); }")
    assert overlap == 0
    fitted, density, length = re.search(r'led_slot: (\d+) LEDs at (\d+)/m, ([\d.]+) mm', log).groups()
    assert (int(fitted), int(density)) == (4, 60) and float(length) >= 4 * 1000 / 60
    piece, _ = solid(openscad, tmp_path, "led_piece();")
    assert piece == pytest.approx(4 * 1000 / 60 * 10 * 3, rel=1e-3)


def test_a_short_glass_fits_fewer_leds_rather_than_failing(openscad, tmp_path):
    overlap, log = solid(openscad, tmp_path, "intersection() { cradle(); led_piece(); }", glass_h=65)
    assert overlap == 0 and "led_slot: 3 LEDs at 60/m" in log


def test_the_windows_leave_the_rails_whole_and_it_lies_flat(openscad, tmp_path):
    cut, _ = solid(openscad, tmp_path, "intersection() { windows(); foot(); }")
    assert cut == 0
    # A 0.5 mm layer at the lying plane holds exactly the two rails, end to end.
    layer, _ = solid(openscad, tmp_path, "intersection() { cradle(); "
                                         "translate([-r_out - foot_t, -50, -1]) cube([0.5, 100, 300]); }")
    rails = 2 * 0.5 * parameter("rail_w") * (sleeve_h(parameter("glass_h")) - parameter("finger_l"))
    assert layer == pytest.approx(rails, rel=1e-3)


def test_the_beam_sees_across_the_neck(openscad, tmp_path):
    blocked, _ = solid(openscad, tmp_path, "intersection() { cradle(); beam_path(); }")
    assert blocked == 0
    at_neck, _ = solid(openscad, tmp_path, "intersection() { beam_path(); "
                                           "translate([-50, -50, neck_z - 1]) cube([100, 100, 2]); }")
    assert at_neck > 0


def test_the_lean_keeps_a_lying_glass_open_and_a_standing_one_closed():
    """Lying on its rails, each switch's leads point `lean` above horizontal; standing, the lower one 90 - lean below.

    A ball switch closes at most 20 deg below horizontal and, once closed,
    may stay closed until 15 deg above: the lean must clear that, with room
    for a table that is not level, and the docs must say how much room.
    """
    lean = parameter("lean")
    lying_margin = lean - SWITCH_DIFFERENTIAL_MAX
    standing_margin = 90 - lean - SWITCH_OPERATE_MAX
    assert lying_margin >= 10 and standing_margin >= 30
    for guide in ("README.md", "README.ja.md"):
        text = (ROOT / "hw" / guide).read_text(encoding="utf-8")
        assert f"{lean:g}°" in text and f"{lying_margin:g}°" in text and f"{standing_margin:g}°" in text, guide


def test_the_guide_has_a_rendered_picture_of_an_assembled_cradle():
    png = (ROOT / "hw" / "cradle.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000
    for guide in ("ASSEMBLY.md", "ASSEMBLY.ja.md"):
        assert "cradle.png" in (ROOT / "hw" / guide).read_text(encoding="utf-8")
    assert 'part="assembly"' in SCAD.read_text()


# --- the timer's symbol --------------------------------------------------------------------------

def scad_symbols() -> dict[str, str]:
    table = re.search(r"^SYMBOLS = \[(.*?)\];", SCAD.read_text(), re.M | re.S)[1]
    return dict(re.findall(r'\["(\w+)", "(\w+)"\]', table))


def test_the_cradle_engraves_the_symbols_the_pages_show():
    assert scad_symbols() == {colour: symbol.shape for colour, symbol in SYMBOLS.items()}


def engraved(openscad, tmp_path, colour: str, **params) -> float:
    """How much of the cradle the symbol of `colour` takes away (mm³)."""
    plain, _ = solid(openscad, tmp_path, "cradle();", **params)
    marked, _ = solid(openscad, tmp_path, "cradle();", colour=f'"{colour}"', **params)
    return plain - marked


@pytest.mark.parametrize("colour", COLOURS)
def test_each_timer_s_cradle_renders_with_its_symbol_cut_in_full(openscad, tmp_path, colour):
    out = tmp_path / f"cradle-{colour}.stl"
    done = render(openscad, out, f'colour="{colour}"', "$fn=24")
    assert done.returncode == 0 and "WARNING" not in done.stderr, done.stderr
    shape = SYMBOLS[colour].shape
    area, _ = solid(openscad, tmp_path, f'linear_extrude(1) symbol("{shape}", symbol_size);')
    cut = engraved(openscad, tmp_path, colour)
    # Two symbols, each cut to its full depth: none of it falls in the air beside the spine.
    assert cut == pytest.approx(2 * area * parameter("symbol_depth"), rel=1e-3)


def test_the_six_symbols_are_six_different_cuts(openscad, tmp_path):
    areas = {}
    for colour, symbol in SYMBOLS.items():
        areas[colour], _ = solid(openscad, tmp_path, f'linear_extrude(1) symbol("{symbol.shape}", symbol_size);')
    assert min(areas.values()) > 0.25 * parameter("symbol_size") ** 2  # big enough to read
    # No two look alike: the area inside one but not the other is at least a tenth of the smaller one
    # (a circle and a square of the same size differ by their corners, about 0.8 mm each at 8 mm).
    for (c1, a), (c2, b) in itertools.combinations(SYMBOLS.items(), 2):
        both, _ = solid(openscad, tmp_path, f'intersection() {{ linear_extrude(1) symbol("{a.shape}", symbol_size); '
                                            f'linear_extrude(1) symbol("{b.shape}", symbol_size); }}')
        assert areas[c1] + areas[c2] - 2 * both >= 0.1 * min(areas[c1], areas[c2]), (a.shape, b.shape)


@pytest.mark.parametrize("size", [(16, 65), (40, 150)])
@pytest.mark.parametrize("colour", COLOURS)
def test_the_symbol_fits_the_spine_s_face_and_keeps_clear_of_the_switches(openscad, tmp_path, colour, size):
    glass_d, glass_h = size
    params = {"glass_d": glass_d, "glass_h": glass_h, "colour": f'"{colour}"'}
    beyond, _ = solid(openscad, tmp_path, "difference() { symbol_cut(); "
                      "translate([spine_x[1] - symbol_depth - 0.01, face_y0 + symbol_margin - 0.01, symbol_margin - 0.01]) "
                      "cube([symbol_depth + 1.02, spine_face - face_y0 - 2 * symbol_margin + 0.02, "
                      "finger_z - 2 * symbol_margin + 0.02]); }", **params)
    assert beyond == 0, "the symbol reaches past the face's margins"
    hit, _ = solid(openscad, tmp_path, "intersection() { symbol_cut(); union() { switch_pocket(0); switch_pocket(1); "
                                       "cable_groove(); bore(); } }", **params)
    assert hit == 0, "the symbol cuts into a switch pocket, a lead slot, the groove or the bore"


def test_a_colour_that_is_no_timer_is_refused(openscad, tmp_path):
    done = render(openscad, tmp_path / "pink.stl", 'colour="pink"', "$fn=12")
    assert "colour" in done.stderr and "assert" in done.stderr.lower()
    assert not (tmp_path / "pink.stl").exists() or done.returncode != 0


def test_the_guide_says_how_to_print_each_timer_s_cradle():
    for guide in ("ASSEMBLY.md", "ASSEMBLY.ja.md"):
        text = (ROOT / "hw" / guide).read_text(encoding="utf-8")
        assert "-D 'colour=\"red\"'" in text and all(s.glyph in text for s in SYMBOLS.values()), guide
