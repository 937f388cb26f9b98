"""Measure a printed part as the printer will see it: the STL OpenSCAD exports from hw/cradle.scad.

    python hw/printcheck.py                 # render the documented sizes and print the figures the guide gives
    python hw/printcheck.py x.stl           # measure one STL (end B down, as it prints)

Every figure comes from the finished mesh, not from the modules that cut it:
overhangs (faces that lean out more than 45° from vertical, grouped into
regions), the thinnest wall (a ray from each surface point straight into the
material, counted where it meets a face within 37° of parallel to its own:
a wall, not a corner), the snap fingers' strain, where a cradle rests, and
the filament and time a print takes. Needs trimesh and manifold3d (the
`test` extra).

>>> round(finger_strain(hook=1.2, reach=1.3, length=19.7), 4)
0.0121
>>> grams_and_minutes(volume=30000.0, area=12000.0)
(17.0, 76)
"""

import math
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SCAD = ROOT / "hw" / "cradle.scad"
OVERHANG_MAX = 45.0        # degrees from vertical a face may lean out over air: PLA's bare-overhang rule
FACET_SLACK = 0.5          # a 45° cone's flat facets lean a little less than the cone; rounding, no more
SLIVER_MM2 = 1e-3         # a triangle this small is a seam where CSG cuts meet, not a surface a nozzle draws
BRIDGE_MAX = 12.0          # mm a flat ceiling may span between two supports (a bridge) on a tuned printer
WALL_MIN = 1.2             # mm: three 0.4 mm lines, the least a wall that carries load should be
FIN_MIN = 0.8              # mm: two lines; anything thinner is a fin the slicer drops or prints weak
FINGER_STRAIN_MAX = 0.015  # bending across printed layers: PLA yields near 2-3 %, weaker between layers
SIZES = ((16, 65), (26, 92), (40, 150))  # the documented range's corners and the default glass

# Print estimate: the slicer's defaults this guide assumes (0.4 mm nozzle, 0.2 mm layers).
PLA_G_PER_CM3 = 1.24
SHELL_MM = 0.8             # two perimeters, and roughly as much again as top and bottom skin
INFILL = 0.20
FLOW_MM3_PER_S = 3.0       # average extrusion of a stock bed-slinger over a small, fiddly part, travel included


@dataclass(frozen=True)
class Region:
    """Faces that hang over air, joined by their edges: its worst lean, its extent and whether it is flat."""
    lean: float            # degrees from vertical of the worst face (90 = a flat ceiling)
    low: tuple             # (x, y, z) corner of its bounding box
    high: tuple
    flat: bool             # every face a flat ceiling (a bridge, if it is short and supported)

    @property
    def span(self) -> float:
        return max(self.high[0] - self.low[0], self.high[1] - self.low[1])


def facts(log: str) -> dict:
    """What cradle.scad echoes about itself (ECHO: "fact NAME = VALUE"), as Python values."""
    found = {}
    for name, value in re.findall(r'ECHO: "fact (\w+) = (.*)"', log):
        text = value.replace("true", "True").replace("false", "False")
        found[name] = eval(text, {"__builtins__": {}})  # numbers, lists and booleans only, from our own model
    return found


def render(out: Path, *defines: str, scad: Path = SCAD) -> subprocess.CompletedProcess:
    args = ["openscad", "-o", str(out)]
    for define in defines:
        args += ["-D", define]
    return subprocess.run([*args, str(scad)], capture_output=True, text=True, timeout=900)


def load(stl: Path):
    import trimesh

    return trimesh.load(str(stl), force="mesh")


def overhangs(mesh, bed: float = 0.01) -> list[Region]:
    """Regions of faces leaning out more than OVERHANG_MAX from vertical, printed end B down; the bed's own faces excepted."""
    import trimesh

    limit = -math.sin(math.radians(OVERHANG_MAX + FACET_SLACK))
    nz = mesh.face_normals[:, 2]
    on_bed = mesh.triangles[:, :, 2].max(axis=1) < bed
    sliver = mesh.area_faces < SLIVER_MM2
    hanging = np.nonzero((nz < limit) & ~on_bed & ~sliver)[0]
    if len(hanging) == 0:
        return []
    pairs = [p for p in mesh.face_adjacency if p[0] in set(hanging) and p[1] in set(hanging)]
    groups = trimesh.graph.connected_components(pairs, nodes=hanging, min_len=1)
    regions = []
    for group in groups:
        points = mesh.triangles[group].reshape(-1, 3)
        worst = math.degrees(math.acos(max(-1.0, min(1.0, -nz[group].min()))))
        regions.append(Region(lean=round(90 - worst, 1), low=tuple(points.min(axis=0)), high=tuple(points.max(axis=0)),
                              flat=bool((nz[group] < -0.999).all())))
    return sorted(regions, key=lambda r: r.low[2])


def thickness(mesh, count: int = 6000, seed: int = 1):
    """(points, thicknesses) where a ray from the surface straight inwards meets a face within 37° of parallel."""
    import trimesh

    points, faces = trimesh.sample.sample_surface_even(mesh, count, seed=seed)
    normals = mesh.face_normals[faces]
    origins = points - normals * 1e-4
    hits, rays, tris = mesh.ray.intersects_location(origins, -normals, multiple_hits=False)
    distance = np.linalg.norm(hits - origins[rays], axis=1)
    facing = np.einsum("ij,ij->i", normals[rays], mesh.face_normals[tris]) < -0.8
    return points[rays][facing], distance[facing]


def finger_strain(hook: float, reach: float, length: float) -> float:
    """The outer fibre's stretch when a cantilever of `length` is bent `hook` at its end: 3·hook·c / L².

    `reach` (c) is how far the finger's cross-section reaches from its centroid in the bending direction.
    """
    return 3 * hook * reach / length ** 2


def fingers(mesh, at: float):
    """The snap fingers' cross-sections at height `at`: one polygon per finger (shapely polygons)."""
    section = mesh.section(plane_origin=[0, 0, at], plane_normal=[0, 0, 1])
    if section is None:
        return []
    planar, _ = section.to_2D(to_2D=np.eye(4))
    return list(planar.polygons_full)


def finger_reach(polygon) -> float:
    """c: the farthest the section reaches from its centroid along the radius through that centroid."""
    cx, cy = polygon.centroid.x, polygon.centroid.y
    radial = np.array([cx, cy]) / math.hypot(cx, cy)
    ring = np.array(polygon.exterior.coords) - [cx, cy]
    return float(np.abs(ring @ radial).max())


def hook_tip(mesh, sleeve_h: float) -> tuple[float, float]:
    """(the hooks' innermost radius, the height where they reach it), from slices through the mouth."""
    best = (math.inf, 0.0)
    for z in np.arange(sleeve_h - 6, sleeve_h - 0.05, 0.2):
        for polygon in fingers(mesh, z):
            r = min(math.hypot(x, y) for x, y in polygon.exterior.coords)
            best = min(best, (round(r, 3), -z))
    return best[0], -best[1]


def strain(mesh, f: dict, tip: tuple[float, float] | None = None) -> float:
    """The fingers' worst strain when the glass's cap opens the hooks, measured on the mesh (`f`: the model's facts)."""
    r_tip, z_tip = tip or hook_tip(mesh, f["sleeve_h"])
    reach = max(finger_reach(p) for p in fingers(mesh, f["finger_z"] + 3))
    return finger_strain(hook=f["r_glass"] - r_tip, reach=reach, length=z_tip - f["finger_z"])


def rests(points, centre, margin: float = 0.3) -> list[tuple]:
    """The outward normals of the hull's faces a body of these points rests on, its mass at `centre`.

    A face holds the body when the centre, dropped onto the face's plane, lands inside the face
    by `margin` mm; on any other face it tips over onto a neighbour.
    """
    import trimesh
    from shapely.geometry import Point, Polygon

    hull = trimesh.convex.convex_hull(points)
    found = []
    groups = [list(f) for f in hull.facets] + [[i] for i in range(len(hull.faces))
                                                if not any(i in f for f in hull.facets)]
    for group in groups:
        normal = hull.face_normals[group[0]]
        corners = hull.vertices[np.unique(hull.faces[group])]
        u = np.cross(normal, [1, 0, 0] if abs(normal[0]) < 0.9 else [0, 1, 0])
        u /= np.linalg.norm(u)
        v = np.cross(normal, u)
        face = Polygon([(p @ u, p @ v) for p in corners]).convex_hull
        if face.area > 0 and face.buffer(-margin).contains(Point(centre @ u, centre @ v)):
            found.append(tuple(np.round(normal, 3)))
    return found


def grams_and_minutes(volume: float, area: float) -> tuple[float, int]:
    """Filament (g) and print time (min) for a part of `volume` mm³ and surface `area` mm².

    The outer SHELL_MM of material is solid (perimeters and skins), the rest INFILL; the time is
    that volume at FLOW_MM3_PER_S. The figures are plain numbers, as the table prints them, whatever
    the mesh library measured them in (numpy's floats print as np.float64(...)).
    """
    volume, area = float(volume), float(area)
    shell = min(volume, area * SHELL_MM)
    printed = shell + INFILL * (volume - shell)
    return round(printed / 1000 * PLA_G_PER_CM3, 1), round(printed / FLOW_MM3_PER_S / 60)


def figures(stl: Path, log: str = "") -> dict:
    """The closing figures for one STL: overhang regions, thinnest wall, grams, minutes and (a cradle's) finger strain."""
    mesh = load(stl)
    _, walls = thickness(mesh, count=20000)
    grams, minutes = grams_and_minutes(mesh.volume, mesh.area)
    found = {"overhangs": len(overhangs(mesh)), "thinnest": round(float(walls.min()), 2), "grams": grams,
             "minutes": minutes}
    f = facts(log)
    if "finger_z" in f:
        found["strain"] = round(float(strain(mesh, f)), 4)
    return found


def main() -> None:
    import tempfile

    if len(sys.argv) > 1:
        print(figures(Path(sys.argv[1])))
        return
    print("| glass (mm) | cradle and ring | print time | finger strain |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        ring = Path(folder) / "ring.stl"
        for d, h in SIZES:
            out = Path(folder) / f"cradle-{d}x{h}.stl"
            done = render(out, f"glass_d={d}", f"glass_h={h}")
            ring_done = render(ring, 'part="ring"', f"glass_d={d}", f"glass_h={h}")
            if done.returncode or ring_done.returncode:
                sys.exit(done.stderr + ring_done.stderr)
            cradle, extra = figures(out, done.stderr), figures(ring)
            print(f"| {d} × {h} | {cradle['grams'] + extra['grams']:.0f} g | {cradle['minutes'] + extra['minutes']} min "
                  f"| {cradle['strain']:.1%} |", file=sys.stdout)
            print(f"  cradle {cradle}, ring {extra}", file=sys.stderr)

if __name__ == "__main__":
    main()
