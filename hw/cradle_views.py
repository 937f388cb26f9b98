"""Draw hw/cradle_views.svg from the cradle model itself: where each switch goes and which way its leads point,
and where the beam and a LIS3DH board sit.

    python hw/cradle_views.py           # write hw/cradle_views.svg
    python hw/cradle_views.py --check   # exit 1 if hw/cradle_views.svg is not what cradle.scad draws

The positions are the facts cradle.scad echoes about itself (`openscad -o x.echo`),
so the picture moves with the model. Standard library only and deterministic.
"""

import argparse
import math
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hw"))

from drawing import BOARD_INK, DATA_INK, MUTED, POWER_INK, TEXT, page, text, write_or_check  # noqa: E402
from printcheck import SCAD, facts  # noqa: E402

SVG_PATH = ROOT / "hw" / "cradle_views.svg"
WIDTH, HEIGHT = 1040, 640
MM = 5                          # drawing units per millimetre in both views
SIDE = (260, 590)               # where the side view's x = 0, z = 0 lands (z runs up the page)
END = (800, 300)                # where the end view's axis lands (y runs up the page)
LIS3DH_MM = (25, 18)            # the Adafruit 2809 board's outline


def model_facts() -> dict:
    """What the default cradle echoes, rendered with part="none" (no geometry: quick)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "facts.echo"
        done = subprocess.run(["openscad", "-o", str(out), "-D", 'part="none"', str(SCAD)],
                              capture_output=True, text=True, timeout=120)
        if done.returncode:
            sys.exit(done.stderr)
        return facts(out.read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if hw/cradle_views.svg is out of date")
    args = parser.parse_args()
    write_or_check(draw(model_facts()), SVG_PATH, args.check, "hw/cradle.scad")


def draw(f: dict) -> str:
    """The whole drawing, a pure function of the model's facts."""
    parts = [text(24, 36, "The cradle: switch pockets and lead directions, the beam and a LIS3DH", size=20, weight="bold"),
             text(24, 58, "Drawn from the facts hw/cradle.scad echoes (default glass). Left: the spine seen from "
                          "its face (+Y). Right: end A seen from above, with the ring on.", size=12, fill=MUTED)]
    parts += side_view(f) + end_view(f)
    return page(WIDTH, HEIGHT, parts, "The cradle's switch pockets, lead directions, beam and LIS3DH mounts")


def sx(x: float) -> int:
    return round(SIDE[0] - x * MM * 1.8)  # seen from +Y, +X is on the left


def sz(z: float) -> int:
    return round(SIDE[1] - z * MM * 1.1)  # the side view is squeezed along the glass to fit the page


def poly(points, fill, stroke, width=1.5, dash=False) -> str:
    d = " ".join(f"{x},{y}" for x, y in points)
    extra = ' stroke-dasharray="5 4"' if dash else ""
    return f'<polygon points="{d}" fill="{fill}" stroke="{stroke}" stroke-width="{width}"{extra}/>'


def line(x1, y1, x2, y2, ink, width=2, head=False) -> str:
    end = ' marker-end="url(#head)"' if head else ""
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{ink}" stroke-width="{width}"{end}/>'


def side_view(f: dict) -> list[str]:
    (x0, x1), _ = f["spine"]
    (rx0, _, rz0), (rx1, _, rz1) = f["recess"]
    (bx0, _, bz0), (bx1, _, bz1) = f["tie_bar"]
    top = f["finger_z"]
    out = ['<defs><marker id="head" markerWidth="8" markerHeight="8" refX="6" refY="4" orient="auto">'
           f'<path d="M0,0 L8,4 L0,8 z" fill="{POWER_INK}"/></marker></defs>',
           poly([(sx(x0), sz(0)), (sx(x1), sz(0)), (sx(x1), sz(top)), (sx(x0), sz(top))], "#f2f2f2", TEXT),
           poly([(sx(rx0), sz(rz0)), (sx(rx1), sz(rz0)), (sx(rx1), sz(rz1)), (sx(rx0), sz(rz1))], "#ffffff", MUTED,
                dash=True),
           text(sx(x1) - 8, sz(top) + 4, "A (mouth)", size=12, anchor="end", weight="bold"),
           text(sx(x1) - 8, sz(0), "B (floor)", size=12, anchor="end", weight="bold"),
           text(sx(x1) - 8, sz(rz1) + 14, "recess", size=11, anchor="end", fill=MUTED)]
    can_d, can_l = 6.0, 12.0
    for i, ((cx, _, cz), (ax, _, az)) in enumerate(f["pockets"]):
        ex, ez = az, -ax  # across the can, in the view
        corners = [(cx + s * ax * can_l / 2 + t * ex * can_d / 2, cz + s * az * can_l / 2 + t * ez * can_d / 2)
                   for s, t in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        out.append(poly([(sx(x), sz(z)) for x, z in corners], "#9a9a9a", TEXT))
        lx, _, lz = f["lead_ends"][i]
        tipx, tipz = cx + ax * can_l / 2, cz + az * can_l / 2
        out.append(line(sx(tipx), sz(tipz), sx(lx), sz(lz), POWER_INK, 3, head=True))
        towards = "A" if az > 0 else "B"
        label_z = cz + (8 if az > 0 else -8)
        out.append(text(sx(x0) + 12, sz(label_z), f"switch {i}: leads towards {towards}", size=12, weight="bold"))
        out.append(text(sx(x0) + 12, sz(label_z) + 15, f"closed when {'B' if az > 0 else 'A'} is up; "
                                                       f"leans {f['lean']:g}° towards the front (left here)", size=11))
    out.append(poly([(sx(bx0), sz(bz0)), (sx(bx1), sz(bz0)), (sx(bx1), sz(bz1)), (sx(bx0), sz(bz1))], BOARD_INK, BOARD_INK))
    out.append(text(sx(x0) + 12, sz((bz0 + bz1) / 2) + 4, "tie bar: a cable tie round it and the wires; "
                                                          "they leave here", size=11, fill=BOARD_INK))
    out += [
        text(24, 96, "Cut each switch's leads to " f"{f['lead_cut']:g} mm before soldering: the slot is "
                     f"{f['lead_cut'] + 1:g} mm long.", size=12),
        text(24, 112, "The lead joined to the metal can goes to GND; the other, through 1 kΩ, to the GPIO.", size=12),
        text(24, 128, "Red arrows: the way each switch's leads point. Grey: the cans. Dashed: the wire recess.",
             size=12, fill=MUTED),
    ]
    return out


def ex_(x: float) -> int:
    return round(END[0] + x * MM * 0.8)


def ey_(y: float) -> int:
    return round(END[1] - y * MM * 0.8)


def rocker(f: dict, n: int = 40) -> list[tuple[float, float]]:
    """The rocker outline cradle.scad cuts: flat at the rails, round about its centre, pointed opposite."""
    (ox, oy), r = f["rock"]
    tip, rise = f["rock_tip"]
    half = math.sqrt(r * r - (ox - f["x_base"]) ** 2)
    a0 = math.degrees(math.atan2(half, f["x_base"] - ox))

    def arc(sign):
        return [(ox + r * math.cos(math.radians(sign * a)), oy + r * math.sin(math.radians(sign * a)))
                for a in (a0 + (tip - a0) * k / n for k in range(n + 1))]
    return arc(1) + [(ox + r + rise, oy)] + arc(-1)[::-1]


def end_view(f: dict) -> list[str]:
    (x0, x1), face = f["spine"]
    r_out, r_in = f["r_out"], f["r_in"]
    lw, ly = f["led_rail"]
    rail_y, rail_w = f["rails"]
    base = f["x_base"]
    out = [poly([(ex_(x), ey_(y)) for x, y in rocker(f)], "#ffffff", MUTED, dash=True),
           poly([(ex_(x0), ey_(0)), (ex_(x1), ey_(0)), (ex_(x1), ey_(face)), (ex_(x0), ey_(face))], "#f2f2f2", TEXT),
           poly([(ex_(-lw), ey_(0)), (ex_(lw), ey_(0)), (ex_(lw), ey_(ly)), (ex_(-lw), ey_(ly))], "#f2f2f2", TEXT)]
    for s in (1, -1):
        y0, y1 = s * rail_y, s * (rail_y + rail_w)
        out.append(poly([(ex_(base), ey_(y0)), (ex_(-r_in), ey_(y0)), (ex_(-r_in), ey_(y1)), (ex_(base), ey_(y1))],
                        "#f2f2f2", TEXT))
    out.append(f'<circle cx="{ex_(0)}" cy="{ey_(0)}" r="{round(r_out * MM * 0.8)}" fill="#f2f2f2" stroke="{TEXT}" '
               'stroke-width="1.5"/>')
    out.append(f'<circle cx="{ex_(0)}" cy="{ey_(0)}" r="{round(r_in * MM * 0.8)}" fill="#ffffff" stroke="{TEXT}" '
               'stroke-width="1.5"/>')
    if f["beam"]:
        for s, who in ((1, "IR emitter"), (-1, "receiver")):
            x_out = s * (r_out + 3)
            out.append(poly([(ex_(s * r_in), ey_(f["rb"])), (ex_(x_out), ey_(f["rb"])), (ex_(x_out), ey_(-f["rb"])),
                             (ex_(s * r_in), ey_(-f["rb"]))], "#dcdcdc", TEXT))
            out.append(text(ex_(x_out) + (8 if s > 0 else -8), ey_(-f["rb"]) + 16, who, size=11,
                            anchor="start" if s > 0 else "end", fill=DATA_INK))
        out.append(line(ex_(r_in), ey_(0), ex_(-r_in), ey_(0), DATA_INK, 2, head=True))
        out.append(text(ex_(0), ey_(0) - 6, "beam at the neck", size=11, anchor="middle", fill=DATA_INK))
    bw, bh = LIS3DH_MM
    by0 = r_out + 1
    out.append(poly([(ex_(-bw / 2), ey_(by0)), (ex_(bw / 2), ey_(by0)), (ex_(bw / 2), ey_(by0 + bh)),
                     (ex_(-bw / 2), ey_(by0 + bh))], "#e6f0e6", BOARD_INK, 2))
    out.append(text(ex_(0), ey_(by0 + bh / 2) + 4, "LIS3DH, z → A", size=11, anchor="middle",
                    fill=BOARD_INK))
    out.append(text(ex_(base) - 6, ey_(0) + 4, "rails", size=11, anchor="end"))
    out.append(text(ex_(0), ey_(ly) + 18, "LED slot", size=11, anchor="middle"))
    notes = ["End A from above: +X right, the spine up the page.",
             "Dashed: the ring's outline, the same as the hoop at B:",
             "flat at the rails, round elsewhere, so the cradle rolls",
             "back onto its rails from any other side.",
             "Glue the emitter in the +X boss and the receiver in the",
             "-X one, their lenses flush with the bore. Stick a LIS3DH",
             "(foam tape) on the ring over the spine, parts up: z along",
             "the glass, towards A."]
    out += [text(600, 510 + 16 * k, row, size=11, fill=MUTED) for k, row in enumerate(notes)]
    return out


if __name__ == "__main__":
    main()
