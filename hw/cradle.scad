// A printable cradle for one hourglass of the table: a sleeve the glass slides into, held at both
// ends (a floor lip at B, snap fingers with hooks at A), a spine with two ball tilt switches
// leaning opposite ways, a lead slot from each switch into the cable groove, two rails to lay it
// down on, a slot for a short piece of LED strip, and an optional light beam across the neck.
//
//   openscad -o cradle.stl hw/cradle.scad
//   openscad -o cradle-red.stl -D 'colour="red"' hw/cradle.scad          (the red glass's, its symbol engraved)
//   openscad -o cradle.stl -D glass_d=28 -D glass_h=95 hw/cradle.scad      (your own glasses)
//   openscad -o hw/cradle.png --imgsize=900,700 --viewall --autocenter --render \
//       --colorscheme=Tomorrow --camera=0,0,0,70,0,130,0 -D 'part="assembly"' hw/cradle.scad
//
// Axes: Z runs along the glass from end B (z = 0, the floor) to end A (the mouth with the hooks).
// The rails to lay it down on face -X. The spine with the switches is on +Y, the LED slot on -Y.
// hw/ASSEMBLY.md has the build guide; tests/hw/test_hw_cradle.py checks the geometry below.
//
// Default size: the Skyrockets glasses measured about 26 mm across their end caps and 92 mm tall.
// That is an assumption, not a published figure: measure yours with calipers (across the widest
// part, usually the caps) and set glass_d and glass_h. Documented range: glass_d 16-40 mm,
// glass_h 65-150 mm.

/* [What to make] */
part = "cradle";     // "cradle" (to print) or "assembly" (with the glass and switches, for the picture)
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
switch_d = 6.2;      // SW-520D can diameter plus printing slack, mm
switch_l = 12.5;     // can length, mm
switch_gap = 4;      // between the two cans along the axis, mm
lead_w = 3.2;        // the slot each switch's leads (soldered and heat-shrunk) are pressed into
lead_l = 6;          // its length beyond the can, room for the solder joints

/* [The print] */
wall = 2.0;          // sleeve wall, mm
floor_t = 2.0;       // the floor at end B
lip = 3.0;           // how far the floor reaches in under the glass's B cap
hook = 1.4;          // how far each hook reaches in over the glass's A cap
hook_t = 2.0;        // hook thickness along the axis
fingers = 6;         // snap fingers at the A end, split by slits
finger_l = 14;       // finger length: longer bends more easily
slit_w = 1.6;        // slit between two fingers
foot_t = 5.5;        // how far the two rails stand out of the sleeve (past the beam's receiver)
window_w = 12;       // the two windows that show the sand
channel_w = 4.5;     // cable groove along the spine for three or four 26 AWG wires
channel_t = 3.0;     // its depth
led_w = 10.6;        // LED strip width (10 mm strip + slack)
led_t = 3.4;         // LED strip thickness with its tape
led_per_m = 60;      // LED density of the strip; a piece is cut at the marks between LEDs
led_count = 4;       // LEDs wanted under the glass; fewer are fitted if the rail is too short

/* [The symbol] */
symbol_size = 8;     // how tall and wide each engraved symbol is, mm
symbol_depth = 0.8;  // how deep it is cut: three or four layers, well short of the spine's wall
symbol_margin = 1.5; // from the symbol to the face's edges and ends

/* [The neck beam (optional)] */
beam = true;         // an IR emitter (+X) and a phototransistor (-X) facing across the neck
beam_d = 3.2;        // 3 mm LED and phototransistor body plus slack
beam_boss = 3;       // how far each boss stands out of the sleeve

$fn = 72;

r_glass = glass_d / 2;
r_in = r_glass + clearance;
r_out = r_in + wall;
glass_z = floor_t;                                  // the B cap rests on the floor
glass_top = glass_z + glass_h;
sleeve_h = glass_top + end_play + hook_t;
finger_z = sleeve_h - finger_l;                     // everything rigid stays below the fingers
spine_x = [-(switch_l / 2 * sin(lean) + switch_d / 2 * cos(lean)) - wall,          // the spine's
           (switch_l / 2 + lead_l) * sin(lean) + lead_w / 2 * cos(lean) + wall];    // X extent
pocket_y = r_out + switch_d / 2;                    // centre line of the switch pockets
groove_x = switch_l / 2 * sin(lean);                // the groove runs past both lead ends
groove_y = pocket_y + switch_d / 2 + 1;             // its bottom, outside the cans
spine_face = groove_y + channel_t;                  // the spine's outer face
spine_depth = spine_face - r_out + wall;
neck_z = glass_z + glass_h / 2;
band = beam_d + 2 * wall + 2;                       // the windows stop either side of the neck
switch_mid = (floor_t + finger_z) / 2;
pocket_z = [switch_mid - switch_gap / 2 - switch_l / 2 * cos(lean),     // switch 0 (leads towards B)
            switch_mid + switch_gap / 2 + switch_l / 2 * cos(lean)];    // switch 1 (leads towards A)
lead_reach = (switch_l / 2 + lead_l) * cos(lean);   // from a pocket's centre to its lead slot's end, in Z
led_pitch = 1000 / led_per_m;
led_fit = min(led_count, floor((finger_z - floor_t - 1) / led_pitch));
led_l = led_fit * led_pitch + 0.6;                  // cut at the marks, plus slack
rail_w = 3;
rail_y = window_w / 2 + 1;                          // the rails run beside the -X window

// Each timer's symbol as a shape to cut; the same table as companion/skyrockets/colours.py SYMBOLS (a test
// holds them together).
SYMBOLS = [["red", "circle"], ["orange", "triangle"], ["yellow", "square"], ["green", "diamond"],
           ["blue", "star"], ["purple", "cross"]];
found = search([colour], SYMBOLS)[0];
shape = found == [] ? undef : SYMBOLS[found][1];
face_y0 = spine_x[1] < r_out ? sqrt(r_out * r_out - spine_x[1] * spine_x[1]) : 0;  // the spine's +X face, from
symbol_y = (face_y0 + spine_face) / 2;                                                // where the sleeve leaves it
symbol_z = [symbol_margin + symbol_size / 2, finger_z - symbol_margin - symbol_size / 2];  // ends B and A

assert(colour == "none" || shape != undef, "colour: red, orange, yellow, green, blue, purple or none");
assert(symbol_depth > 0 && symbol_depth < wall, "symbol_depth: more than 0 and less than the wall");
assert(symbol_size + 2 * symbol_margin <= spine_face - face_y0, "symbol_size: wider than the spine's face");
assert(glass_d >= 16 && glass_d <= 40, "glass_d: a glass from 16 to 40 mm across");
assert(glass_h >= 65 && glass_h <= 150, "glass_h: a glass from 65 to 150 mm tall");
assert(lean >= 20 && lean <= 40, "lean: from 20 to 40 degrees (30 suits SW-520D switches)");
assert(beam_boss < foot_t - 1, "foot_t: the rails must stand out past the beam's boss");
assert(led_fit >= 1, "led_count: not even one LED fits beside this glass");
assert(pocket_z[1] + lead_reach < finger_z && pocket_z[0] - lead_reach > 0,
       "glass_h: the switches must fit between the floor and the snap fingers");
echo(str("led_slot: ", led_fit, " LEDs at ", led_per_m, "/m, ", led_l, " mm"));

if (part == "cradle") cradle();
else if (part == "assembly") assembly();

module cradle() {
    difference() {
        union() {
            cylinder(r = r_out, h = sleeve_h);
            spine();
            led_rail();
            foot();
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
module symbol(which, size) {
    r = size / 2;
    if (which == "circle") circle(r = r);
    else if (which == "triangle") polygon([[0, r], [-r, -r], [r, -r]]);
    else if (which == "square") square(size * 0.85, center = true);
    else if (which == "diamond") rotate(45) square(size / sqrt(2), center = true);
    else if (which == "star") polygon([for (k = [0 : 9]) (k % 2 ? 0.42 * r : r) * [sin(k * 36), cos(k * 36)]]);
    else if (which == "cross") for (turn = [0, 90]) rotate(turn) square([size, size / 3], center = true);
}

// The glass as the cradle sees it: a cylinder as wide as its caps, `shift` mm along its axis.
module glass(shift = 0) {
    translate([0, 0, glass_z + shift]) cylinder(r = r_glass, h = glass_h);
}

// The cradle with its glass, switches and LED piece in place, for the picture in the guide.
module assembly() {
    color("Gainsboro") cradle();
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

// The hooks: a ring over the A cap, sloped on top so the glass pushes the fingers aside going in,
// flat underneath so it cannot come out. Cut by the same slits as the fingers.
module hooks() {
    difference() {
        translate([0, 0, glass_top + end_play])
            rotate_extrude() polygon([[r_glass - hook, 0], [r_in + 0.01, 0], [r_in + 0.01, hook_t],
                                      [r_glass - hook + hook_t, hook_t]]);
        slits();
    }
}

// Two rails on -X, one each side of the window: the cradle lies on them and cannot roll.
module foot() {
    for (side = [1, -1])
        translate([-r_out - foot_t, side > 0 ? rail_y : -rail_y - rail_w, 0])
            cube([foot_t + r_out - r_in * 0.5, rail_w, finger_z]);
}

// The block on +Y that holds both switches, stopping below the fingers.
module spine() {
    translate([spine_x[0], 0, 0]) cube([spine_x[1] - spine_x[0], spine_face, finger_z]);
}

// Where switch i sits: leaned by `lean` towards +X, its leads towards B (i = 0) or A (i = 1).
// Laid on the rails (-X down), both sets of leads then point `lean` above horizontal: both open.
module switch_placed(i) {
    tilt = i == 1 ? lean : 180 - lean;  // from +Z, rotated about Y towards +X
    translate([0, pocket_y, pocket_z[i]]) rotate([0, tilt, 0]) children();
}

// A switch's pocket, open to the spine's outer face so the can is pressed in from outside.
module switch_pocket(i) {
    switch_placed(i) {
        cylinder(d = switch_d, h = switch_l, center = true);
        translate([-switch_d / 2, 0, -switch_l / 2]) cube([switch_d, spine_depth, switch_l]);
    }
    lead_slot(i);
}

// The leads' way from the can's lead end to the groove: an open slot, so soldered, heat-shrunk
// leads are laid in from outside rather than threaded through a hole.
module lead_slot(i) {
    switch_placed(i) translate([-lead_w / 2, -lead_w / 2, switch_l / 2 - 0.5])
        cube([lead_w, spine_depth, lead_l + 0.5]);
}

// A groove down the middle of the spine's outer face, past both pockets, out at end B.
module cable_groove() {
    translate([groove_x - channel_w / 2, groove_y, -1])
        cube([channel_w, channel_t + 1, pocket_z[1] + lead_reach + 1]);
}

// Windows front (+X) and back (-X) that show the sand in each bulb, with a band at the neck for
// the beam between them; the -X ones run between the rails and leave them whole.
module windows() {
    for (side = [1, -1]) translate([side * r_out - r_out / 2, -window_w / 2, 0]) {
        translate([0, 0, floor_t + lip]) cube([r_out, window_w, neck_z - band / 2 - floor_t - lip]);
        translate([0, 0, neck_z + band / 2]) cube([r_out, window_w, finger_z - lip - neck_z - band / 2]);
    }
}

// The rail on -Y that carries the LED slot.
module led_rail() {
    translate([-(led_w + 2 * wall) / 2, -r_out - led_t, 0]) cube([led_w + 2 * wall, led_t + wall, finger_z]);
}

// The slot for the LED piece, its face outwards, open at end B for the strip's wires.
module led_slot() {
    translate([-led_w / 2, -r_out - led_t - 0.01, -1]) cube([led_w, led_t, led_l + floor_t + 1]);
}

// The strip piece itself: led_fit LEDs cut at the marks, 10 x 3 mm.
module led_piece() {
    translate([-5, -r_out - led_t + 0.2, floor_t]) cube([10, 3, led_fit * led_pitch]);
}

// The beam: two bosses on the X axis through the neck, in the band between the windows: the
// emitter in the +X one, the phototransistor in the -X one, between the rails.
module beam_bosses() {
    for (end = [0, 180]) rotate([0, 0, end])
        translate([r_in, 0, neck_z]) rotate([0, 90, 0]) cylinder(d = beam_d + 2 * wall, h = wall + beam_boss);
}

module beam_holes() {
    for (end = [0, 180]) rotate([0, 0, end])
        translate([r_in - 1, 0, neck_z]) rotate([0, 90, 0]) cylinder(d = beam_d, h = wall + beam_boss + 2);
}

// The light's path from boss to boss (for the tests: nothing of the cradle may stand in it).
module beam_path() {
    translate([0, 0, neck_z]) rotate([0, 90, 0]) cylinder(d = 1, h = 2 * (r_in + wall + beam_boss), center = true);
}
