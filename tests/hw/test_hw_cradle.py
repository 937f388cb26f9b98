"""The printable cradle, checked on the finished part: the STL OpenSCAD exports, read as a mesh.

Every variant (the default, the documented range's corners, each timer's
symbol, and seven broken copies of the model) is rendered once per test
session, in parallel, and kept under ~/.cache/companion/cradle by the hash of its SCAD text, its
settings and OpenSCAD's version: a later run renders only what changed.
The checks read only the mesh and the facts the model echoes about where its
features are; the measuring itself is hw/printcheck.py, which also prints the
guide's figures. A check that a broken copy passes is a check that cannot
fail: test_every_broken_copy_fails_a_check keeps them honest.
"""

import concurrent.futures
import fcntl
import hashlib
import itertools
import math
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pytest

from companion.skyrockets.colours import COLOURS, SYMBOLS
from conftest import ROOT, hw_script, need

pytest.importorskip("trimesh")
pytest.importorskip("manifold3d")
printcheck = hw_script("printcheck")
pytestmark = pytest.mark.timeout(1800)  # the first test waits for renders: minutes on a busy machine

SCAD = ROOT / "hw" / "cradle.scad"
OPENSCAD = shutil.which("openscad")
CACHE = Path(os.environ.get("COMPANION_CRADLE_CACHE", Path.home() / ".cache/companion/cradle"))
DEFAULT = (26, 92)
CORNERS = ((16, 65), (40, 150))  # the documented range's ends: glass_d 16-40, glass_h 65-150
COARSE = "$fn=24"  # for the symbols: quicker, and the cut's volume does not depend on it
CAN_D, CAN_L = 6.0, 12.0  # SW-520D can by its datasheet, mm
POCKET_SLACK_MAX = 0.6    # the pocket's wall may stand this far off the can: a rattling switch chatters
CLEARANCE = (0.4, 0.8)    # mm round the glass: it slides in, and does not rattle
HOOK_HOLD_MIN = 0.4       # mm of hook over the cap on the far side, with the glass pushed to one side
END_PLAY_MAX = 1.0        # mm the glass may move along its axis between floor and hooks
GLASS_G_PER_CM3 = 1.0     # a sand timer's mass over its cylinder (glass, sand, air), for where it rests
PLA_G_PER_CM3 = printcheck.PLA_G_PER_CM3
SWITCH_OPERATE_MAX = 20   # a ball switch closes once its lead end is 10 +- 10 deg below horizontal
SWITCH_DIFFERENTIAL_MAX = 15  # and opens again up to 15 deg past that
RESTS = {(-1.0, 0.0, 0.0): "its rails", (0.0, 0.0, -1.0): "end B", (0.0, 0.0, 1.0): "end A"}

# Seven ways to break the model, each of which some check must see.
BROKEN = {
    "no switch pockets": ("        for (i = [0, 1]) switch_pocket(i);\n", ""),
    "no cable recess": ("        cable_groove();\n", ""),
    "no windows": ("        windows();\n", ""),
    "thin wall": ("wall = 2.0;", "wall = 1.0;"),
    "fingers not slit": ("        slits();\n        for (i", "        for (i"),
    "hook shorter than the clearance": ("hook = 1.2;", "hook = 0.3;"),
    "glass rattles 4 mm": ("end_play = 0.5;", "end_play = 4;"),
}
GUARD = ('assert(hook > clearance', 'assert(true || hook > clearance')  # so the mesh, not the assert, must see it


@dataclass
class Part:
    """One rendered variant: its STL, OpenSCAD's log and the facts the model echoed."""
    stl: Path
    log: str

    @cached_property
    def mesh(self):
        return printcheck.load(self.stl)

    @cached_property
    def hook(self) -> tuple[float, float]:
        return printcheck.hook_tip(self.mesh, self.facts["sleeve_h"])

    @cached_property
    def facts(self) -> dict:
        return printcheck.facts(self.log)

    def empty(self, points) -> bool:
        return not self.mesh.contains(np.asarray(points, dtype=float)).any()

    def solid(self, points) -> bool:
        return bool(self.mesh.contains(np.asarray(points, dtype=float)).all())


def scad_text(broken: str | None = None) -> str:
    text = SCAD.read_text(encoding="utf-8").replace(*GUARD)
    if broken:
        old, new = BROKEN[broken]
        assert text.count(old) == 1, broken
        text = text.replace(old, new)
    return text


class Renders:
    """Renders each (SCAD text, settings) once, two at a time, into a folder keyed by their hash."""

    def __init__(self, folder: Path, version: str):
        self.folder, self.version = folder, version  # another OpenSCAD may render the same text otherwise
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
        self.jobs: dict[str, concurrent.futures.Future] = {}

    def start(self, text: str, *defines: str) -> str:
        key = hashlib.sha256("\n".join([self.version, text, *defines]).encode()).hexdigest()[:16]
        if key not in self.jobs:
            self.jobs[key] = self.pool.submit(self._render, key, text, defines)
        return key

    def _render(self, key: str, text: str, defines) -> tuple[Path, str]:
        source, out, log = (self.folder / f"{key}{ext}" for ext in (".scad", ".stl", ".log"))
        with open(self.folder / f"{key}.lock", "w") as lock:
            # Test processes (and runs) share the folder: one renders a part while any other that needs it waits
            # for it, so none reads an STL another is still writing.
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not log.exists():  # a log is written only once its STL is whole
                source.write_text(text, encoding="utf-8")
                done = printcheck.render(out, *defines, scad=source)
                assert done.returncode == 0 and "WARNING" not in done.stderr, done.stderr
                log.write_text(done.stderr, encoding="utf-8")
        return out, log.read_text(encoding="utf-8")

    def get(self, text: str, *defines: str) -> Part:
        out, log = self.jobs[self.start(text, *defines)].result()
        return Part(out, log)


def size(d, h) -> tuple[str, str]:
    return f"glass_d={d}", f"glass_h={h}"


@pytest.fixture(scope="session")
def renders():
    need("openscad")
    CACHE.mkdir(parents=True, exist_ok=True)
    version = subprocess.run([OPENSCAD, "--version"], capture_output=True, text=True, timeout=60)
    jobs = Renders(CACHE, version.stdout + version.stderr)
    plain = scad_text()
    for d, h in (DEFAULT, *CORNERS):  # queue everything now: two renders run while the first checks do
        jobs.start(plain, *size(d, h))
        jobs.start(plain, 'part="ring"', *size(d, h))
    for broken in BROKEN:
        jobs.start(scad_text(broken))
    jobs.start(plain, COARSE)
    for colour in COLOURS:
        jobs.start(plain, f'colour="{colour}"', COARSE)
    yield jobs
    jobs.pool.shutdown(cancel_futures=True)


@pytest.fixture(scope="session")
def default(renders):
    return renders.get(scad_text(), *size(*DEFAULT))


# --- the checks: each returns what is wrong with a part, nothing when it is right --------------------

def frame(axis):
    """Unit vectors across a switch's axis: in the lean's plane (x) and along Y, towards the spine's face."""
    a = np.asarray(axis, dtype=float)
    return np.array([a[2], 0.0, -a[0]]), np.array([0.0, 1.0, 0.0])


def around(centre, axis, radius, angles, along) -> np.ndarray:
    ex, ey = frame(axis)
    return np.array([np.asarray(centre) + s * np.asarray(axis) + radius * (math.cos(t) * ex + math.sin(t) * ey)
                     for s in along for t in angles])


def check_closed_solid(part: Part) -> list[str]:
    m = part.mesh
    if m.is_watertight and m.is_winding_consistent and m.volume > 0 and m.body_count == 1:
        return []
    return [f"closed solid: watertight {m.is_watertight}, volume {m.volume:.0f}, bodies {m.body_count}"]


def check_pockets(part: Part) -> list[str]:
    """Each pocket holds the datasheet's can, with walls within POCKET_SLACK_MAX of it and a floor under it."""
    wrong = []
    full = np.linspace(0, 2 * math.pi, 16, endpoint=False)
    below = np.radians([200, 230, 270, 310, 340])  # the half towards the sleeve; the other half is open
    for i, (centre, axis) in enumerate(part.facts["pockets"]):
        length = np.linspace(-CAN_L / 2 + 0.05, CAN_L / 2 - 0.05, 9)
        can = np.vstack([around(centre, axis, r, full, length) for r in (0, 1.5, CAN_D / 2 - 0.05)])
        if not part.empty(can):
            wrong.append(f"pocket {i}: the {CAN_D} x {CAN_L} mm can does not fit")
        if not part.solid(around(centre, axis, CAN_D / 2 + POCKET_SLACK_MAX, below, length[1:-1])):
            wrong.append(f"pocket {i}: its walls stand more than {POCKET_SLACK_MAX} mm off the can")
        lower = 1 if axis[2] < 0 else -1  # the lower end (where the can rests) is the lead end of switch 0
        end = CAN_L / 2 + POCKET_SLACK_MAX
        floor = around(centre, axis, 2.5, np.radians([0, 180]), [lower * end])
        if not part.solid(floor):
            wrong.append(f"pocket {i}: nothing under the can's lower end within {POCKET_SLACK_MAX} mm")
    return wrong


def check_wires(part: Part) -> list[str]:
    """Leads run from each can to the recess, along it to the tie bar and out sideways; nothing leaves at B."""
    f, wrong = part.facts, []
    (x0, y0, z0), (x1, y1, z1) = f["recess"]
    (bx0, _, bz0), (bx1, _, bz1) = f["tie_bar"]
    lane_x = (bx0 + bx1) / 2
    for i, ((centre, axis), end) in enumerate(zip(f["pockets"], f["lead_ends"])):
        reach = float(np.linalg.norm(np.subtract(end, centre)))
        slot = [np.add(centre, np.multiply(axis, s)) for s in np.linspace(CAN_L / 2, reach, 6)]
        out = [(end[0], y, end[2]) for y in np.linspace(end[1], y1 + 1, 8)]
        if not part.empty(slot + out):
            wrong.append(f"lead slot {i}: no open way from the can's lead end out to the recess")
        run = [(lane_x, y0 + 0.5, z) for z in np.linspace(end[2], (bz0 + bz1) / 2, 25)]
        if not part.empty(run):
            wrong.append(f"recess: no way along it from lead slot {i} to the tie bar")
    leave = [(lane_x, y, bz0 - 1) for y in np.linspace(y0 + 0.5, y1 + 1, 8)]
    if not part.empty(leave):
        wrong.append("recess: the wires cannot leave it beside the tie bar")
    if not part.solid([(lane_x, y0 + 1, z) for z in np.linspace(0.3, z0 - 0.5, 6)]):
        wrong.append("recess: it runs out through end B, a face the cradle stands on")
    (lx0, ly0, lz0), (lx1, ly1, lz1) = f["led_slot"]
    if not part.solid([(0, (ly0 + ly1) / 2, z) for z in np.linspace(0.3, lz0 - 0.5, 4)]):
        wrong.append("LED slot: it runs out through end B")
    return wrong


def check_walls(part: Part) -> list[str]:
    """No wall under WALL_MIN and so no fin under FIN_MIN (no feature of this part is allowed thinner)."""
    points, walls = printcheck.thickness(part.mesh, count=20000)
    if len(walls) and walls.min() < printcheck.WALL_MIN:
        at = points[walls.argmin()].round(1).tolist()
        kind = "fin" if walls.min() < printcheck.FIN_MIN else "wall"
        return [f"a {kind} {walls.min():.2f} mm thick at {at} (least {printcheck.WALL_MIN} mm)"]
    return []


def check_overhangs(part: Part) -> list[str]:
    """Nothing leans out past 45° but the tie bar, a flat bridge of at most BRIDGE_MAX."""
    (bx0, by0, bz0), (bx1, by1, bz1) = part.facts["tie_bar"]
    wrong = []
    for region in printcheck.overhangs(part.mesh):
        bridge = (region.flat and region.span <= printcheck.BRIDGE_MAX and abs(region.low[2] - bz0) < 0.05
                  and bx0 - 0.05 <= region.low[0] and region.high[0] <= bx1 + 0.05)
        if not bridge:
            at = [round(v, 1) for v in region.low]
            wrong.append(f"overhang {region.lean}° from vertical at {at}, {region.span:.1f} mm across")
    return wrong


def measured_bore(part: Part) -> float:
    f = part.facts
    z = f["floor_top"] + 8
    angles = np.radians([60, 120, 240, 300])  # between the windows
    origins = np.array([[0, 0, z]] * len(angles))
    directions = np.array([[math.cos(a), math.sin(a), 0] for a in angles])
    hits, rays, _ = part.mesh.ray.intersects_location(origins, directions, multiple_hits=False)
    return float(np.linalg.norm(hits[:, :2], axis=1).min())


def finger_strain(part: Part) -> float:
    return printcheck.strain(part.mesh, part.facts, part.hook)


def check_fingers(part: Part) -> list[str]:
    """The mouth is split into the fingers the model names (the glass can go in) and none bends past PLA's limit."""
    f = part.facts
    sections = printcheck.fingers(part.mesh, f["finger_z"] + 3)
    if len(sections) != f["fingers"] or f["fingers"] < 3:
        return [f"fingers: {len(sections)} at the mouth, not {f['fingers']}: the hooks cannot spread for the glass"]
    strain = finger_strain(part)
    if strain > printcheck.FINGER_STRAIN_MAX:
        return [f"fingers: opening the hooks stretches them {strain:.1%} (most {printcheck.FINGER_STRAIN_MAX:.1%})"]
    return []


def glass(f, shift_x=0.0, shift_z=0.0):
    import trimesh

    cylinder = trimesh.creation.cylinder(radius=f["r_glass"], height=f["glass_h"], sections=180)
    cylinder.apply_translation([shift_x, 0, f["floor_top"] + f["glass_h"] / 2 + shift_z])
    return cylinder


def check_hold(part: Part) -> list[str]:
    """Upside down with the glass pushed aside by the clearance, the far side's hooks still catch its cap."""
    import trimesh

    f, wrong = part.facts, []
    clearance = measured_bore(part) - f["r_glass"]
    if not CLEARANCE[0] <= clearance <= CLEARANCE[1]:
        wrong.append(f"clearance: {clearance:.2f} mm round the glass, not {CLEARANCE[0]}-{CLEARANCE[1]}")
    tip, _ = part.hook
    hold = f["r_glass"] - tip - clearance
    if hold < HOOK_HOLD_MIN:
        wrong.append(f"hooks: {hold:.2f} mm over the cap with the glass pushed aside (least {HOOK_HOLD_MIN})")
    # Lifted as far as the mouth: whatever of the far side's hooks it then overlaps is what catches it.
    pushed = glass(f, shift_x=clearance, shift_z=f["sleeve_h"] - f["floor_top"] - f["glass_h"] - 0.05)
    far = trimesh.creation.box(bounds=[[-100, -100, 0], [0, 100, 400]])
    caught = trimesh.boolean.intersection([part.mesh, pushed, far], engine="manifold")
    if caught.volume < 0.5:
        wrong.append("hooks: a glass pushed to one side slips past the far side's hooks")
    return wrong


def check_end_play(part: Part) -> list[str]:
    """The glass's cap rim sits between the floor and the hooks' underside with at most END_PLAY_MAX to spare."""
    f = part.facts
    r = f["r_glass"] - 0.05
    angles = [2 * math.pi * k / f["fingers"] for k in range(f["fingers"])]
    z = f["floor_top"] + f["glass_h"] / 2
    origins = np.array([[r * math.cos(a), r * math.sin(a), z] for a in angles] * 2)
    directions = np.array([[0, 0, 1]] * len(angles) + [[0, 0, -1]] * len(angles))
    hits, rays, _ = part.mesh.ray.intersects_location(origins, directions, multiple_hits=False)
    up = [hits[rays == k][:, 2].min() for k in range(len(angles)) if (rays == k).any()]
    down = [hits[rays == k][:, 2].max() for k in range(len(angles), 2 * len(angles)) if (rays == k).any()]
    if len(up) < len(angles) or len(down) < len(angles):
        return ["end play: the glass's rim meets no hook or no floor above or below it"]
    play = min(up) - max(down) - f["glass_h"]
    if not 0 <= play <= END_PLAY_MAX:
        return [f"end play: the glass moves {play:.2f} mm along its axis (0-{END_PLAY_MAX} mm)"]
    return []


def check_windows_and_beam(part: Part) -> list[str]:
    f, wrong = part.facts, []
    for side, z in f["windows"]:
        sight = [(side * x, y, z) for x in np.linspace(f["r_glass"], f["r_out"] + 1, 8) for y in (-2, 0, 2)]
        if not part.empty(sight):
            wrong.append(f"window at {'+X' if side > 0 else '-X'}, z {z:.0f}: the sand cannot be seen")
    if f["beam"] and not part.empty([(x, 0, f["neck_z"]) for x in np.linspace(-f["r_out"] - 4, f["r_out"] + 4, 40)]):
        wrong.append("beam: something stands in the light's path across the neck")
    return wrong


CHECKS = {"closed solid": check_closed_solid, "pockets": check_pockets, "wires": check_wires,
          "walls": check_walls, "overhangs": check_overhangs, "fingers": check_fingers, "hold": check_hold,
          "end play": check_end_play, "windows": check_windows_and_beam}


def problems(part: Part) -> dict[str, list[str]]:
    found = {}
    for name, check in CHECKS.items():
        try:
            wrong = check(part)
        except Exception as e:  # a check that cannot even measure (no fingers to slice) has found a fault
            wrong = [f"{type(e).__name__}: {e}"]
        if wrong:
            found[name] = wrong
    return found


# --- the tests --------------------------------------------------------------------------------------

@pytest.mark.parametrize("check", CHECKS)
def test_the_default_cradle_passes(default, check):
    assert CHECKS[check](default) == []


@pytest.mark.parametrize("corner", CORNERS, ids=lambda c: f"{c[0]}x{c[1]}")
def test_every_corner_of_the_documented_range_passes_every_check(renders, corner):
    assert problems(renders.get(scad_text(), *size(*corner))) == {}


# What each broken copy must trip, at the least.
EXPECTED = {"no switch pockets": "pockets", "no cable recess": "wires", "no windows": "windows",
            "thin wall": "walls", "fingers not slit": "fingers", "hook shorter than the clearance": "hold",
            "glass rattles 4 mm": "end play"}


@pytest.mark.parametrize("broken", BROKEN)
def test_every_broken_copy_fails_a_check(renders, broken):
    found = problems(renders.get(scad_text(broken)))
    assert EXPECTED[broken] in found, found


def test_the_ring_is_a_closed_flat_solid(renders):
    ring = renders.get(scad_text(), 'part="ring"', *size(*DEFAULT))
    assert check_closed_solid(ring) == []
    assert ring.mesh.bounds[1][2] - ring.mesh.bounds[0][2] == pytest.approx(2.0, abs=0.01)
    assert printcheck.overhangs(ring.mesh) == []


@pytest.mark.parametrize("glass_size", (DEFAULT, *CORNERS), ids=lambda c: f"{c[0]}x{c[1]}")
def test_it_rests_only_on_its_rails_or_an_end(renders, glass_size):
    """With its glass in and its ring on, every other side tips it back: no side where the switches read wrong."""
    cradle = renders.get(scad_text(), *size(*glass_size))
    ring = renders.get(scad_text(), 'part="ring"', *size(*glass_size))
    f = cradle.facts
    ring_points = ring.mesh.vertices + [0, 0, f["ring_z"]]
    tube = glass(f)
    masses = [(cradle.mesh.volume * PLA_G_PER_CM3, cradle.mesh.center_mass),
              (ring.mesh.volume * PLA_G_PER_CM3, ring.mesh.center_mass + [0, 0, f["ring_z"]]),
              (tube.volume * GLASS_G_PER_CM3, tube.center_mass)]
    centre = sum(m * c for m, c in masses) / sum(m for m, _ in masses)
    rests = printcheck.rests(np.vstack([cradle.mesh.vertices, ring_points]), centre)
    assert sorted(RESTS.get(tuple(float(v) + 0.0 for v in n), str(n)) for n in rests) == sorted(RESTS.values())


def test_the_lean_keeps_a_lying_glass_open_and_a_standing_one_closed(default):
    """Read from the pockets the mesh holds: lying on its rails each switch's leads point `lean` above horizontal.

    A ball switch closes at most 20 deg below horizontal and, once closed, may
    stay closed until 15 deg above: the lean must clear that, with room for a
    table that is not level, and the docs must say how much room.
    """
    (_, lead_b), (_, lead_a) = default.facts["pockets"]  # switch 0 leads towards B, switch 1 towards A
    elevation = lambda lead, up: math.degrees(math.asin(float(np.dot(lead, up))))  # noqa: E731
    lying = [elevation(lead, (1, 0, 0)) for lead in (lead_b, lead_a)]  # laid on its rails, +X is up
    a_up = [elevation(lead_b, (0, 0, 1)), elevation(lead_a, (0, 0, 1))]
    assert min(lying) - SWITCH_DIFFERENTIAL_MAX >= 10
    assert -a_up[0] - SWITCH_OPERATE_MAX >= 30 and a_up[1] > 0
    lean, lying_margin = round(min(lying)), round(min(lying)) - SWITCH_DIFFERENTIAL_MAX
    standing_margin = round(-a_up[0]) - SWITCH_OPERATE_MAX
    for guide in ("README.md", "README.ja.md"):
        text = (ROOT / "hw" / guide).read_text(encoding="utf-8")
        assert f"{lean:g}°" in text and f"{lying_margin:g}°" in text and f"{standing_margin:g}°" in text, guide


def test_the_led_piece_fits_its_slot_and_the_guide_says_how_many(default):
    fitted, density, length = re.search(r'led_slot: (\d+) LEDs at (\d+)/m, ([\d.]+) mm', default.log).groups()
    (x0, y0, z0), (x1, y1, z1) = default.facts["led_slot"]
    piece = int(fitted) * 1000 / int(density)
    assert float(length) >= piece and z1 - z0 >= piece
    wire = (z1 - z0 - piece) / 2
    box = [(x, y, z) for x in (-4.9, 0, 4.9) for y in (y0 + 0.3, y1 - 0.3) for z in np.linspace(z0 + wire, z0 + wire + piece, 8)]
    assert default.empty(box)
    for guide in ("ASSEMBLY.md", "ASSEMBLY.ja.md"):
        assert f"led_slot: {fitted} LEDs at {density}/m" in (ROOT / "hw" / guide).read_text(encoding="utf-8")


def test_the_guide_gives_the_figures_the_model_prints(renders):
    """Grams, minutes and finger strain per size, as hw/printcheck.py works them out, are the guide's."""
    for guide in ("ASSEMBLY.md", "ASSEMBLY.ja.md"):
        text = (ROOT / "hw" / guide).read_text(encoding="utf-8")
        for d, h in (CORNERS[0], DEFAULT, CORNERS[-1]):
            cradle = renders.get(scad_text(), *size(d, h))
            ring = renders.get(scad_text(), 'part="ring"', *size(d, h))
            grams = sum(printcheck.grams_and_minutes(p.mesh.volume, p.mesh.area)[0] for p in (cradle, ring))
            minutes = sum(printcheck.grams_and_minutes(p.mesh.volume, p.mesh.area)[1] for p in (cradle, ring))
            strain = finger_strain(cradle)
            row = f"| {d} × {h} | {grams:.0f} g | {minutes} min | {strain:.1%} |"
            assert row in text, (guide, row)


def test_a_lean_out_of_range_is_refused(tmp_path):
    if OPENSCAD is None:
        pytest.skip("openscad is not installed")
    done = printcheck.render(tmp_path / "bad.stl", "lean=60", "$fn=12")
    assert "lean" in done.stderr and "assert" in done.stderr.lower()
    assert not (tmp_path / "bad.stl").exists() or done.returncode != 0


def test_a_hook_that_does_not_reach_past_the_clearance_is_refused(tmp_path):
    if OPENSCAD is None:
        pytest.skip("openscad is not installed")
    done = printcheck.render(tmp_path / "bad.stl", "hook=0.5", "$fn=12")
    assert "hook" in done.stderr and "assert" in done.stderr.lower()


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


def symbol_shapes(tmp_path) -> dict:
    """Each symbol as a shapely shape, from OpenSCAD's own 2D drawing of it, all six rendered in one go."""
    from shapely.geometry import Polygon
    from shapely.ops import unary_union

    shapes = "\n".join(f'translate([{20 * k}, 0]) symbol("{s.shape}", symbol_size);' for k, s in enumerate(SYMBOLS.values()))
    source = tmp_path / "symbols.scad"
    source.write_text(f'include <{SCAD}>\npart = "none";\n{shapes}\n', encoding="utf-8")
    out = tmp_path / "symbols.svg"
    done = subprocess.run([OPENSCAD, "-o", str(out), str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    pieces: dict[str, list] = {}
    for d in re.findall(r'd="([^"]+)"', out.read_text()):
        for ring in re.findall(r"M([^z]+)z", d):
            pts = [tuple(map(float, p.split(","))) for p in ring.replace("L", " ").split()]
            k = round(min(x for x, _ in pts) / 20 + 0.3)
            pieces.setdefault(list(SYMBOLS)[k], []).append(Polygon([(x - 20 * k, y) for x, y in pts]))
    return {colour: unary_union(polygons) for colour, polygons in pieces.items()}


@pytest.mark.parametrize("colour", COLOURS)
def test_each_timer_s_cradle_has_its_symbol_cut_in_full_and_still_passes(renders, tmp_path, colour):
    plain, marked = renders.get(scad_text(), COARSE), renders.get(scad_text(), f'colour="{colour}"', COARSE)
    area = symbol_shapes(tmp_path)[colour].area
    depth = float(re.search(r"^symbol_depth = ([\d.]+);", SCAD.read_text(), re.M)[1])
    # Two symbols, each cut to its full depth: none of it falls in the air beside the spine.
    assert plain.mesh.volume - marked.mesh.volume == pytest.approx(2 * area * depth, rel=0.02)
    assert check_walls(marked) == [] and check_pockets(marked) == [] and check_wires(marked) == []


def test_the_six_symbols_are_six_different_shapes_big_enough_to_read(tmp_path):
    if OPENSCAD is None:
        pytest.skip("openscad is not installed")
    shapes = symbol_shapes(tmp_path)
    size_ = float(re.search(r"^symbol_size = ([\d.]+);", SCAD.read_text(), re.M)[1])
    assert set(shapes) == set(SYMBOLS) and min(s.area for s in shapes.values()) > 0.25 * size_ ** 2
    # No two look alike: the area inside one but not the other is at least a tenth of the smaller one
    # (a circle and a square of the same size differ by their corners, about 0.8 mm each at 8 mm).
    for (c1, a), (c2, b) in itertools.combinations(shapes.items(), 2):
        assert a.symmetric_difference(b).area >= 0.1 * min(a.area, b.area), (c1, c2)
    # A 0.4 mm nozzle's line reaches all but 1 % of each: no point too sharp to print (the old star lost 1.5 %).
    for colour, shape in shapes.items():
        assert shape.buffer(-0.2).buffer(0.2).area >= 0.99 * shape.area, colour


def test_a_colour_that_is_no_timer_is_refused(tmp_path):
    if OPENSCAD is None:
        pytest.skip("openscad is not installed")
    done = printcheck.render(tmp_path / "pink.stl", 'colour="pink"', "$fn=12")
    assert "colour" in done.stderr and "assert" in done.stderr.lower()
    assert not (tmp_path / "pink.stl").exists() or done.returncode != 0


def test_the_guide_says_how_to_print_each_timer_s_cradle():
    for guide in ("ASSEMBLY.md", "ASSEMBLY.ja.md"):
        text = (ROOT / "hw" / guide).read_text(encoding="utf-8")
        assert "-D 'colour=\"red\"'" in text and all(s.glyph in text for s in SYMBOLS.values()), guide
        assert "-D 'part=\"ring\"'" in text, guide


def test_the_figures_print_as_plain_numbers_whatever_the_mesh_library_measured_them_in():
    """printcheck printed np.float64(60.7) for a gram figure the mesh library measured in numpy's floats."""
    grams, minutes = printcheck.grams_and_minutes(np.float64(27000.0), np.float64(5400.0))
    assert type(grams) is float and type(minutes) is int
    assert "np." not in repr({"grams": grams, "minutes": minutes})
