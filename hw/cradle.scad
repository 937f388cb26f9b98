// A printable cradle for one hourglass of the table: a sleeve the glass slides into, held at both
// ends (a floor lip at B, snap fingers with chamfered hooks at A), a spine with two ball tilt switches
// leaning opposite ways, a lead slot from each switch into a recess where a cable tie holds the wires,
// two rails to lay it down on, a slot for a short piece of LED strip, an optional light beam across the
// neck, and a rocker outline (a hoop printed at B, a ring slid on at A) that rolls it back onto its
// rails from any other side.
//
//   openscad -o cradle.stl hw/cradle.scad
//   openscad -o ring.stl -D 'part="ring"' hw/cradle.scad                 (the rocker ring for end A)
//   openscad -o cradle-red.stl -D 'colour="red"' hw/cradle.scad          (the red glass's, its symbol engraved)
//   openscad -o cradle.stl -D glass_d=28 -D glass_h=95 hw/cradle.scad      (your own glasses)
//   openscad -o hw/cradle.png --imgsize=900,700 --viewall --autocenter --render \
//       --colorscheme=Tomorrow --camera=0,0,0,70,0,130,0 -D 'part="assembly"' hw/cradle.scad
//
// Axes: Z runs along the glass from end B (z = 0, the floor) to end A (the mouth with the hooks).
// The rails to lay it down on face -X. The spine with the switches is on +Y, the LED slot on -Y.
// It prints standing on end B with no supports: every ceiling rises at 45 deg or steeper, except
// the tie bar, a short bridge. hw/ASSEMBLY.md has the build guide; tests/hw/test_hw_cradle.py
// renders the finished part and checks it as a mesh (hw/printcheck.py measures it).
//
// Default size: the Skyrockets glasses measured about 26 mm across their end caps and 92 mm tall.
// That is an assumption, not a published figure: measure yours with calipers (across the widest
// part, usually the caps) and set glass_d and glass_h. Documented range: glass_d 16-40 mm,
// glass_h 65-150 mm.

/* [What to make] */
part = "cradle";     // "cradle" (to print), "ring" (the rocker ring for end A, to print flat) or
                     // "assembly" (with the glass, switches, LED piece and ring, for the picture)
colour = "none";     // the timer it holds: red, orange, yellow, green, blue or purple engraves its symbol
                     // (the pages' ● ▲ ■ ◆ ★ ✚) at both ends of the spine's front face; "none" leaves it plain

/* [The hourglass] */
glass_d = 26;        // widest diameter of the glass (its caps), mm
glass_h = 92;        // overall height of the glass, mm
clearance = 0.6;     // radial gap around the glass; raise it if your printer prints tight
end_play = 0.5;      // gap along the axis between the glass's A cap and the hooks

/* [The tilt switches] */
// A ball switch closes once its lead end drops about 10 deg (0-20 deg by the datasheets) below
// horizontal and opens again up to 15 deg (its differential) after that. Lying on its rails,
// each switch's leads point `lean` above horizontal: 30 leaves 15 deg of margin for a table
// that is not level even with the worst switch (hw/README.md works it through).
lean = 30;           // degrees each switch leans off the glass's axis, towards +X
switch_d = 6.2;      // SW-520D can (6.0 mm across by its datasheet) plus printing slack, mm
switch_l = 12.5;     // can length (12.0 mm) plus slack, mm
switch_gap = 9;      // between the two cans along the axis: room for the tie bar between them, mm
lead_w = 3.2;        // the slot each switch's leads (soldered and heat-shrunk) are pressed into
lead_l = 6;          // its length beyond the can: cut the leads to 5 mm, room for the solder joints

/* [The print] */
wall = 2.0;          // sleeve wall, mm
floor_t = 2.0;       // the floor at end B
lip = 3.0;           // how far the floor reaches in under the glass's B cap
hook = 1.2;          // how far each hook reaches in over the glass's A cap: twice the clearance, so
                     // a glass pushed to one side still has 0.6 mm under the hooks opposite
tip_h = 1.0;         // the hook's flat inner face between its two 45-deg slopes: no knife edge
fingers = 10;        // snap fingers at the A end, split by slits: narrow ones bend with less strain
finger_l = 22;       // finger length: longer bends more easily (see finger strain below)
slit_w = 1.6;        // slit between two fingers
foot_t = 5.5;        // how far the two rails stand out of the sleeve (past the beam's receiver)
window_w = 12;       // the two windows that show the sand
channel_t = 3.0;     // depth of the wire recess on the spine's face
led_w = 10.6;        // LED strip width (10 mm strip + slack)
led_t = 3.4;         // LED strip thickness with its tape
led_wire = 4;        // room at each end of the LED slot for the soldered wires, mm
led_per_m = 60;      // LED density of the strip; a piece is cut at the marks between LEDs
led_count = 4;       // LEDs wanted under the glass; fewer are fitted if the rail is too short
roof_k = 1.2;        // every cut's ceiling rises at least this much per mm across (50 deg): prints bare

/* [The rocker] */
// Lying anywhere but on its rails, the cradle must roll back onto them: on the spine or the LED
// rail the switches' leads lie level (an undefined reading), on its front both close (a fault).
// The hoop at B and the ring at A share one outline, a circle around a point `rock_offset` mm past
// the axis on the side away from the rails, cut flat at the rails and drawn to a point opposite
// them: the glass's weight sits near the axis, below that centre whichever way it lies, so it rolls
// down onto the flat (a roly-poly). A polygon's flats near the top would hold it: hence the point.
rock_offset = 8;     // how far the circle's centre sits past the glass's axis, towards +X, mm
rock_y = 2;          // and towards the spine, whose weight pulls the centre of mass that way, mm
rock_tip = 25;       // the point spans this many degrees either side of +X
rock_rise = 3;       // and stands this far out of the circle, mm
rock_band = 2.5;     // width of the hoop's and the ring's band, mm
rock_t = 2.0;        // thickness of the hoop (at B) and the ring (at A), mm
ring_fit = 0.4;      // radial slack of the ring's hole over the fingers, mm

/* [The symbol] */
symbol_size = 8;     // how tall and wide each engraved symbol is, mm
symbol_depth = 0.8;  // how deep it is cut: three or four layers, well short of the spine's wall
symbol_margin = 1.5; // from the symbol to the face's edges and ends

/* [The neck beam (optional)] */
beam = true;         // an IR emitter (+X) and a phototransistor (-X) facing across the neck
beam_d = 3.2;        // 3 mm LED and phototransistor body plus slack
beam_boss = 3;       // how far each boss stands out of the sleeve

$fn = 72;

// Finger strain. Opening the hooks bends each finger, a curved cantilever of free length L to the
// hook's tip, outward by `hook`: its outer fibre stretches by eps = 3 * hook * c / L^2, where c is
// the farthest the finger's cross-section reaches from its own centroid in the bending direction.
// Printed standing, that stretch pulls across the layers, PLA's weak direction: keep it under
// 1.5 % (PLA yields near 2-3 %; across layers less). hw/printcheck.py measures c on the printed
// mesh; the tests hold every documented size under FINGER_STRAIN_MAX.
TIP_SLOPE = 1;                                      // the hook's slopes are 45 deg: the steepest bare overhang

r_glass = glass_d / 2;
r_in = r_glass + clearance;
r_out = r_in + wall;
glass_z = floor_t;                                  // the B cap rests on the floor
glass_top = glass_z + glass_h;
hook_tip = r_glass - hook;                          // the hooks' inner face
hook_z = glass_top + end_play - clearance;          // the underside leaves the finger here; the cap's rim
                                                    // (at r_glass) meets it end_play above the cap
hook_h = 2 * (r_in - hook_tip) * TIP_SLOPE + tip_h;
sleeve_h = hook_z + hook_h;
finger_z = sleeve_h - finger_l;                     // everything rigid stays below the fingers
rb = beam_d / 2 + wall + 0.6;                       // beam boss radius: the hole's pointed top keeps a wall
drop = 1 / sin(40);                                 // a teardrop's tip this many radii from its centre: 50 deg sides
spine_x = [-(switch_l / 2 * sin(lean) + switch_d / 2 * cos(lean)) - wall - 0.5,   // the spine's
           (switch_l / 2 + lead_l) * sin(lean) + lead_w / 2 * cos(lean) + wall + 0.5];  // X extent
pocket_y = r_out + switch_d / 2;                    // centre line of the switch pockets
groove_y = pocket_y + switch_d / 2 + 1;             // the recess's floor, 1 mm outside the cans
spine_face = groove_y + channel_t;                  // the spine's outer face
spine_depth = spine_face - r_out + wall;
neck_z = glass_z + glass_h / 2;
band = [drop * rb + 1, rb + 1];                     // the windows stop this far below and above the neck
slot_roof = lead_w / 2 * (sin(lean) + roof_k * cos(lean));
switch_mid = (rock_t + finger_z - slot_roof) / 2;            // the pair centred in the room it has
pocket_z = [switch_mid - switch_gap / 2 - switch_l / 2 * cos(lean),     // switch 0 (leads towards B)
            switch_mid + switch_gap / 2 + switch_l / 2 * cos(lean)];    // switch 1 (leads towards A)
lead_reach = (switch_l / 2 + lead_l) * cos(lean) + lead_w / 2 * sin(lean);  // pocket centre to slot end, in Z
recess_x = [spine_x[0] + wall, spine_x[1] - wall];
recess_z = [pocket_z[0] - lead_reach, pocket_z[1] + lead_reach];
tie = [[(switch_l / 2 * sin(lean)) - 2.5, switch_mid - 3.5], [switch_l / 2 * sin(lean) + 0.5, switch_mid + 3.5]];
                                                    // the tie post: [x0, z0], [x1, z1]; the wires pass beside it
tie_bar = [switch_mid + 0.5, switch_mid + 3.5];     // the bar from the post to the recess's wall, at the face
led_pitch = 1000 / led_per_m;
led_z0 = floor_t + 1;
led_roof = (led_t + 1) * roof_k;
led_fit = min(led_count, floor((finger_z - led_z0 - 2 * led_wire - led_roof - 1) / led_pitch));
led_l = led_fit * led_pitch + 0.6;                  // cut at the marks, plus slack
led_z1 = led_z0 + 2 * led_wire + led_l;
rail_w = 3;
rail_y = window_w / 2 + 1;                          // the rails run beside the -X window
x_base = -r_out - foot_t;                           // the plane it lies on

// Everything the rocker outline must enclose, seen along the axis.
corners = [[spine_x[0], spine_face], [spine_x[1], spine_face], [-led_w / 2 - wall, -r_out - led_t],
           [led_w / 2 + wall, -r_out - led_t], [x_base, rail_y + rail_w], [x_base, -rail_y - rail_w],
           [r_out + beam_boss, rb], [r_out + beam_boss, -rb], [-r_out, 0]];
rock_o = [rock_offset, rock_y];
rock_r = max([for (p = corners) norm(p - rock_o)]) + 1.5;
rock_half = sqrt(rock_r * rock_r - (rock_offset - x_base) * (rock_offset - x_base));
rock_a = atan2(rock_half, x_base - rock_offset);    // where the flat meets the circle, from +X
rock_n = 40;

// Each timer's symbol as a shape to cut; the same table as companion/skyrockets/colours.py SYMBOLS (a test
// holds them together).
SYMBOLS = [["red", "circle"], ["orange", "triangle"], ["yellow", "square"], ["green", "diamond"],
           ["blue", "star"], ["purple", "cross"]];
found = search([colour], SYMBOLS)[0];
shape = found == [] ? undef : SYMBOLS[found][1];
face_y0 = spine_x[1] < r_out ? sqrt(r_out * r_out - spine_x[1] * spine_x[1]) : 0;  // the spine's +X face, from
symbol_y = (face_y0 + spine_face) / 2;                                                // where the sleeve leaves it
symbol_z = [symbol_margin + symbol_size / 2 + rock_t, finger_z - symbol_margin - symbol_size / 2];  // ends B and A

assert(colour == "none" || shape != undef, "colour: red, orange, yellow, green, blue, purple or none");
assert(symbol_depth > 0 && symbol_depth < wall, "symbol_depth: more than 0 and less than the wall");
assert(symbol_size + 2 * symbol_margin <= spine_face - face_y0, "symbol_size: wider than the spine's face");
assert(glass_d >= 16 && glass_d <= 40, "glass_d: a glass from 16 to 40 mm across");
assert(glass_h >= 65 && glass_h <= 150, "glass_h: a glass from 65 to 150 mm tall");
assert(lean >= 20 && lean <= 40, "lean: from 20 to 40 degrees (30 suits SW-520D switches)");
assert(beam_boss < foot_t - 1, "foot_t: the rails must stand out past the beam's boss");
assert(led_fit >= 1, "led_count: not even one LED fits beside this glass");
assert(hook > clearance, "hook: must reach further than the clearance, or a glass pushed aside slips out");
assert(recess_z[1] + slot_roof < finger_z && recess_z[0] > rock_t,
       "glass_h: the switches must fit between the floor and the snap fingers");

// What the tests and hw/printcheck.py read back (ECHO: "fact NAME = VALUE").
module fact(name, value) { echo(str("fact ", name, " = ", value)); }
fact("r_glass", r_glass); fact("r_in", r_in); fact("r_out", r_out); fact("floor_top", glass_z);
fact("glass_h", glass_h); fact("hook_tip", hook_tip); fact("fingers", fingers); fact("finger_z", finger_z);
fact("sleeve_h", sleeve_h); fact("end_play", end_play); fact("lean", lean);
fact("pockets", [for (i = [0, 1]) [placed(i, [0, 0, 0]), placed(i, [0, 0, 1]) - placed(i, [0, 0, 0])]]);
fact("lead_ends", [for (i = [0, 1]) placed(i, [0, 0, switch_l / 2 + lead_l - 0.5])]);
fact("recess", [[recess_x[0], groove_y, recess_z[0]], [recess_x[1], spine_face, recess_z[1]]]);
fact("tie_bar", [[tie[1][0], spine_face - 1.5, tie_bar[0]], [recess_x[1], spine_face, tie_bar[1]]]);
fact("windows", [for (side = [1, -1]) for (z = [floor_t + lip, neck_z + band[1]]) [side, z + 1]]);
fact("led_slot", [[-led_w / 2, -r_out - led_t, led_z0], [led_w / 2, -r_out, led_z1]]);
fact("neck_z", neck_z); fact("beam", beam); fact("x_base", x_base); fact("rock", [rock_o, rock_r]);
fact("rock_tip", [rock_tip, rock_rise]);
fact("ring_z", finger_z); fact("spine", [spine_x, spine_face]); fact("lead_cut", lead_l - 1);
fact("led_rail", [led_w / 2 + wall, -r_out - led_t]); fact("rails", [rail_y, rail_w]); fact("rb", rb);
echo(str("led_slot: ", led_fit, " LEDs at ", led_per_m, "/m, ", led_l, " mm"));

if (part == "cradle") cradle();
else if (part == "ring") ring();
else if (part == "assembly") assembly();

module cradle() {
    difference() {
        union() {
            cylinder(r = r_out, h = sleeve_h);
            spine();
            led_rail();
            foot();
            hoop();
            if (beam) beam_bosses();
        }
        bore();
        windows();
        slits();
        for (i = [0, 1]) switch_pocket(i);
        cable_groove();
        led_slot();
        if (beam) beam_holes();
        if (shape != undef) symbol_cut();
    }
    tie_post();
    hooks();
}

// The timer's symbol cut into the spine's front (+X) face, the side the sand is watched from, near each end:
// the one at A reads upright while A is up, the one at B (turned over) once the glass is turned.
module symbol_cut() {
    for (end = [0, 1])
        translate([spine_x[1] - symbol_depth, symbol_y, symbol_z[end]]) rotate([90, 0, 90])
            linear_extrude(symbol_depth + 1) rotate(end == 0 ? 180 : 0) symbol(shape, symbol_size);
}

// One symbol, `size` tall and at most as wide, centred, pointing up (+Y, which symbol_cut turns to +Z).
// The star's points are blunt enough (0.55) for a 0.4 mm nozzle to draw them.
module symbol(which, size) {
    r = size / 2;
    if (which == "circle") circle(r = r);
    else if (which == "triangle") polygon([[0, r], [-r, -r], [r, -r]]);
    else if (which == "square") square(size * 0.85, center = true);
    else if (which == "diamond") rotate(45) square(size / sqrt(2), center = true);
    else if (which == "star") polygon([for (k = [0 : 9]) (k % 2 ? 0.55 * r : r) * [sin(k * 36), cos(k * 36)]]);
    else if (which == "cross") for (turn = [0, 90]) rotate(turn) square([size, size / 3], center = true);
}

// The glass as the cradle sees it: a cylinder as wide as its caps, `shift` mm along its axis.
module glass(shift = 0) {
    translate([0, 0, glass_z + shift]) cylinder(r = r_glass, h = glass_h);
}

// The cradle with its glass, switches, LED piece and ring in place, for the picture in the guide.
module assembly() {
    color("Gainsboro") cradle();
    color("Silver") translate([0, 0, finger_z]) ring();
    color("LightSkyBlue", 0.45) glass();
    for (i = [0, 1]) color("DimGray") switch_placed(i) cylinder(d = switch_d - 0.4, h = switch_l, center = true);
    color("Orange") led_piece();
}

// Inside: the glass's room, the floor's opening (the B cap rests on the lip), and the mouth.
module bore() {
    translate([0, 0, floor_t]) cylinder(r = r_in, h = sleeve_h);
    translate([0, 0, -1]) cylinder(r = r_in - lip, h = floor_t + 2);
}

// Snap fingers at A: slits split the top of the sleeve so the hooks spring aside for the cap.
module slits() {
    for (k = [0 : fingers - 1])
        rotate([0, 0, (k + 0.5) * 360 / fingers])
            translate([0, -slit_w / 2, finger_z]) cube([r_out + 1, slit_w, finger_l + 1]);
}

// The hooks: a ring over the A cap, 45 deg underneath (it prints bare, and the cap's rim sits on
// it end_play above the cap), a flat tip, and 45 deg on top, so the glass pushes the fingers
// aside going in. Cut by the same slits as the fingers.
module hooks() {
    rise = (r_in - hook_tip) * TIP_SLOPE;
    difference() {
        translate([0, 0, hook_z])
            rotate_extrude() polygon([[r_in + 0.01, 0], [hook_tip, rise], [hook_tip, rise + tip_h],
                                      [r_in + 0.01, 2 * rise + tip_h]]);
        slits();
    }
}

// Two rails on -X, one each side of the window: the cradle lies on them.
module foot() {
    for (side = [1, -1])
        translate([x_base, side > 0 ? rail_y : -rail_y - rail_w, 0])
            cube([foot_t + r_out - r_in * 0.5, rail_w, finger_z]);
}

// The rocker outline, seen along the axis: flat at the rails, a circle round rock_o elsewhere,
// with a corner (not a flat) straight opposite the rails, so nothing but the rails can hold it.
module rocker_outline() {
    arc = function(sign) [for (k = [0 : rock_n]) let(a = sign * (rock_a + (rock_tip - rock_a) * k / rock_n))
                          rock_o + rock_r * [cos(a), sin(a)]];
    polygon(concat(arc(1), [rock_o + [rock_r + rock_rise, 0]], [for (p = [for (k = [rock_n : -1 : 0]) arc(-1)[k]]) p]));
}

// Its band and six spokes from the axis; the hoop at B is part of the floor layer.
module rocker_frame() {
    difference() { rocker_outline(); offset(delta = -rock_band) rocker_outline(); }
    for (k = [0 : 5]) rotate(k * 60 + 30) translate([0, -1.5]) square([rock_r + rock_offset, 3]);
}

module hoop() {
    intersection() {
        linear_extrude(rock_t) rocker_frame();
        linear_extrude(rock_t) rocker_outline();
    }
}

// The ring for end A, printed flat and slid over the fingers onto the tops of the spine, the rails
// and the LED rail (a drop of glue holds it). Its hole clears the fingers by ring_fit.
module ring() {
    linear_extrude(rock_t) difference() {
        intersection() {
            union() { rocker_frame(); circle(r = r_out + ring_fit + 3); }
            rocker_outline();
        }
        circle(r = r_out + ring_fit);
    }
}

// The block on +Y that holds both switches, stopping below the fingers.
module spine() {
    translate([spine_x[0], 0, 0]) cube([spine_x[1] - spine_x[0], spine_face, finger_z]);
}

// A point given in switch i's own frame (its axis is z, its leads at +z), placed in the cradle.
function placed(i, p) = let(t = i == 1 ? lean : 180 - lean)
    [p[0] * cos(t) + p[2] * sin(t), pocket_y + p[1], pocket_z[i] - p[0] * sin(t) + p[2] * cos(t)];

// Where switch i sits: leaned by `lean` towards +X, its leads towards B (i = 0) or A (i = 1).
// Laid on the rails (-X down), both sets of leads then point `lean` above horizontal: both open.
module switch_placed(i) {
    tilt = i == 1 ? lean : 180 - lean;  // from +Z, rotated about Y towards +X
    translate([0, pocket_y, pocket_z[i]]) rotate([0, tilt, 0]) children();
}

// A switch's pocket, open to the spine's outer face so the can is pressed in from outside, with a
// roof over whichever end is up: a slanted ceiling instead of one the printer would draw in air.
module switch_pocket(i) {
    switch_placed(i) {
        cylinder(d = switch_d, h = switch_l, center = true);
        translate([-switch_d / 2, 0, -switch_l / 2]) cube([switch_d, spine_depth, switch_l]);
    }
    lead_slot(i);
    roof(i, i == 1 ? switch_l / 2 : -switch_l / 2, switch_d / 2);
    if (i == 1) roof(i, switch_l / 2 + lead_l, lead_w / 2);
}

// The hull of a cut's end face (local z = at, `half` either side of the axis, out to the face)
// and a ridge straight above its centre, high enough that each side rises at roof_k or steeper.
module roof(i, at, half) {
    c = placed(i, [0, 0, at]);
    rise = half * (sin(lean) + roof_k * cos(lean));
    hull() {
        switch_placed(i) translate([-half, -half, at - 0.01]) cube([2 * half, half + spine_depth, 0.02]);
        ridge_y([c[0], c[1] - half, c[2] + rise], half + spine_depth);
    }
}

// The leads' way from the can's lead end into the recess: an open slot, so soldered, heat-shrunk
// leads are laid in from outside rather than threaded through a hole.
module lead_slot(i) {
    switch_placed(i) translate([-lead_w / 2, -lead_w / 2, switch_l / 2 - 0.5])
        cube([lead_w, spine_depth, lead_l + 0.5]);
}

// The recess on the spine's face over both pockets and lead slots, closed at both ends (no wire
// leaves through a face the cradle stands on), its top end roofed. The wires leave it sideways
// at the tie post, in the middle.
module cable_groove() {
    out = spine_face + 1 - groove_y;
    hull() {
        translate([recess_x[0], groove_y, recess_z[0]]) cube([recess_x[1] - recess_x[0], out, recess_z[1] - recess_z[0]]);
        translate([recess_x[0], spine_face + 1, recess_z[1] + out * roof_k]) cube([recess_x[1] - recess_x[0], 0.01, 0.01]);
    }
}

// The tie post in the recess between the pockets and the bar from it to the recess's wall: the
// wires pass under the bar and a cable tie round bar and wires takes any pull off the leads.
// The post's underside slants out from the recess's floor; the bar is the one bridge, its span
// recess_x[1] - tie[1][0].
module tie_post() {
    hull() {
        translate([tie[0][0], groove_y - 1, tie[0][1]]) cube([tie[1][0] - tie[0][0], 1, tie[1][1] - tie[0][1]]);
        translate([tie[0][0], groove_y - 1, tie[0][1] + (channel_t + 1) * roof_k])
            cube([tie[1][0] - tie[0][0], channel_t + 1, tie[1][1] - tie[0][1] - (channel_t + 1) * roof_k]);
    }
    translate([tie[1][0] - 0.01, spine_face - 1.5, tie_bar[0]]) cube([recess_x[1] - tie[1][0] + 0.02, 1.5, tie_bar[1] - tie_bar[0]]);
}

// Windows front (+X) and back (-X) that show the sand in each bulb, pointed at the top (a bare
// ceiling), with a band at the neck for the beam between them; the -X ones run between the rails.
module windows() {
    for (side = [1, -1]) translate([side * r_out - r_out / 2, 0, 0]) {
        window(floor_t + lip, neck_z - band[0]);
        window(neck_z + band[1], finger_z - lip);
    }
}

module window(z0, z1) {
    w = min(window_w, 2 * (z1 - z0 - 2) / roof_k);  // a short window is narrower, so its point still fits
    top = z1 - w / 2 * roof_k;
    hull() {
        translate([0, -w / 2, z0]) cube([r_out, w, top - z0]);
        ridge_x([0, 0, z1], r_out);
    }
}

// The rail on -Y that carries the LED slot.
module led_rail() {
    translate([-(led_w + 2 * wall) / 2, -r_out - led_t, 0]) cube([led_w + 2 * wall, led_t + wall, finger_z]);
}

// The slot for the LED piece, its face outwards, with room for the soldered wires at each end;
// closed at B, roofed at A. The wires leave through its open face, sideways, not through an end.
module led_slot() {
    hull() {
        translate([-led_w / 2, -r_out - led_t - 0.01, led_z0]) cube([led_w, led_t + 0.01, led_z1 - led_z0]);
        translate([-led_w / 2, -r_out - led_t - 1, led_z1 + led_roof]) cube([led_w, 0.01, 0.01]);
    }
}

// The strip piece itself: led_fit LEDs cut at the marks, 10 x 3 mm.
module led_piece() {
    translate([-5, -r_out - led_t + 0.2, led_z0 + led_wire]) cube([10, 3, led_fit * led_pitch]);
}

// The beam: two bosses on the X axis through the neck, in the band between the windows: the
// emitter in the +X one, the phototransistor in the -X one, between the rails. Each boss is a
// teardrop (pointed underneath) and each hole one pointed on top, so both print bare.
module beam_bosses() {
    for (end = [0, 180]) rotate([0, 0, end]) teardrop(r_in, wall + beam_boss, rb, -1);
}

module beam_holes() {
    for (end = [0, 180]) rotate([0, 0, end]) teardrop(r_in - 1, wall + beam_boss + 2, beam_d / 2, 1);
}

// A cylinder along +X from x0, length l, radius r, at the neck, with a point `drop` radii above
// (up = 1) or below (up = -1) it.
module teardrop(x0, l, r, up) {
    hull() {
        translate([x0, 0, neck_z]) rotate([0, 90, 0]) cylinder(r = r, h = l);
        ridge_x([x0, 0, neck_z + up * drop * r], l);
    }
}

// A line to take a hull to, along Y or X from p: a bar of diamond section, so the hull meets it in an
// edge, not in a flat strip that would hang over air.
module ridge_y(p, l) { translate(p) rotate([0, 45, 0]) translate([-0.01, 0, -0.01]) cube([0.02, l, 0.02]); }
module ridge_x(p, l) { translate(p) rotate([45, 0, 0]) translate([0, -0.01, -0.01]) cube([l, 0.02, 0.02]); }

// The light's path from boss to boss (for the tests: nothing of the cradle may stand in it).
module beam_path() {
    translate([0, 0, neck_z]) rotate([0, 90, 0]) cylinder(d = 1, h = 2 * (r_in + wall + beam_boss), center = true);
}
