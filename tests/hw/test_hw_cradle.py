"""The printable cradle: OpenSCAD renders it to a clean STL, its size follows its parameters, and bad ones are refused."""

import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT

SCAD = ROOT / "hw" / "cradle.scad"
OPENSCAD = shutil.which("openscad")


@pytest.fixture(scope="module")
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


def extent(stl) -> list[tuple[float, float]]:
    """(min, max) of the model along X, Y and Z, read from an ASCII STL."""
    points = [tuple(map(float, m.groups())) for m in
              re.finditer(r"vertex\s+(\S+)\s+(\S+)\s+(\S+)", stl.read_text())]
    assert len(points) > 100
    return [(min(p[i] for p in points), max(p[i] for p in points)) for i in range(3)]


def parameter(name: str) -> float:
    return float(re.search(rf"^{name} = ([\d.]+);", SCAD.read_text(), re.M).group(1))


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


def test_the_sleeve_fits_the_default_glass(default_stl):
    (x0, x1), (y0, y1), (z0, z1) = extent(default_stl[0])
    glass_d, glass_h = parameter("glass_d"), parameter("glass_h")
    assert z0 == pytest.approx(0) and z1 == pytest.approx(parameter("floor_t") + glass_h * parameter("sleeve_frac"))
    assert x1 - x0 > glass_d and y1 - y0 > glass_d + parameter("switch_d")


def test_a_taller_wider_glass_makes_a_bigger_cradle(openscad, tmp_path, default_stl):
    out = tmp_path / "big.stl"
    done = render(openscad, out, "glass_d=34", "glass_h=120", "$fn=24")  # coarser circles: quicker, same extents
    assert done.returncode == 0, done.stderr
    small, big = extent(default_stl[0]), extent(out)
    assert big[2][1] - small[2][1] == pytest.approx((120 - parameter("glass_h")) * parameter("sleeve_frac"))
    assert (big[0][1] - big[0][0]) - (small[0][1] - small[0][0]) == pytest.approx(34 - parameter("glass_d"))


def test_a_lean_out_of_range_is_refused(openscad, tmp_path):
    done = render(openscad, tmp_path / "bad.stl", "lean=60", "$fn=12")
    assert "lean" in done.stderr and "assert" in done.stderr.lower()
    assert not (tmp_path / "bad.stl").exists() or done.returncode != 0


def test_the_guide_has_a_rendered_picture():
    png = (ROOT / "hw" / "cradle.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000
    assert "cradle.png" in (ROOT / "hw" / "ASSEMBLY.md").read_text(encoding="utf-8")
