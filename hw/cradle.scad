// A printable cradle for one hourglass of the table: a sleeve the glass slides into, a spine with
// two ball tilt switches leaning opposite ways, a cable channel out of the B end, a flat side to lay
// it down on, and a slot for a short piece of LED strip.
//
//   openscad -o cradle.stl hw/cradle.scad
//   openscad -o cradle.stl -D glass_d=28 -D glass_h=95 hw/cradle.scad      (your own glasses)
//   xvfb-run -a openscad -o hw/cradle.png --imgsize=900,700 --viewall --autocenter --render \
//       --colorscheme=Tomorrow --camera=0,0,0,60,0,130,0 hw/cradle.scad     (the picture in the guide)
//
// Axes: Z runs along the glass from end B (z = 0, the floor) to end A (the open mouth).
// The flat side faces -X: the cradle is laid down on it. The spine with the switches is on +Y,
// the LED slot on -Y. hw/ASSEMBLY.md has the build guide.
//
// Default size: the Skyrockets glasses measured about 26 mm across their end caps and 92 mm tall.
// That is an assumption, not a published figure: measure yours with calipers (across the widest
// part, usually the caps) and set glass_d and glass_h. clearance lets the glass slide in.

/* [The hourglass] */
glass_d = 26;        // widest diameter of the glass, mm
glass_h = 92;        // overall height of the glass, mm
clearance = 0.6;     // gap around the glass; raise it if your printer prints tight

/* [The tilt switches] */
lean = 15;           // degrees each switch leans off the glass's axis (see hw/README.md)
switch_d = 6.2;      // SW-520D can diameter plus printing slack, mm
switch_l = 12.5;     // can length, mm
switch_gap = 8;      // between the two cans along the axis, mm

/* [The print] */
wall = 2.0;          // sleeve wall, mm
floor_t = 2.0;       // the floor at end B
lip = 3.0;           // how far the floor reaches in under the glass's cap
sleeve_frac = 0.85;  // how much of the glass the sleeve covers (the A end stays free to grip)
foot_t = 1.5;        // how far the flat side stands out of the sleeve
window_w = 12;       // the two windows that show the sand
channel_d = 4.5;     // cable channel for four 26 AWG wires (switches and GND)
led_w = 10.6;        // LED strip width (10 mm strip + slack)
led_t = 3.4;         // LED strip thickness with its tape
led_l = 60;          // slot length: a strip piece of 8 LEDs at 144 LEDs/m, or 4 at 60 LEDs/m
$fn = 72;

r_in = glass_d / 2 + clearance;
r_out = r_in + wall;
sleeve_h = floor_t + glass_h * sleeve_frac;
spine_w = switch_d + 2 * wall;                // across, in X
spine_depth = switch_d + 2 * wall + 2;        // out from the sleeve, in Y
spine_y = r_out + spine_depth / 2 - wall;     // centre line of the switch pockets
pocket_z = [floor_t + sleeve_h * 0.5 - switch_gap / 2 - switch_l / 2,   // switch 0 (leads towards B)
            floor_t + sleeve_h * 0.5 + switch_gap / 2 + switch_l / 2];  // switch 1 (leads towards A)

assert(glass_d > 10 && glass_d < 80, "glass_d: a glass from 10 to 80 mm across");
assert(glass_h > 40 && glass_h < 250, "glass_h: a glass from 40 to 250 mm tall");
assert(lean >= 5 && lean <= 30, "lean: from 5 to 30 degrees (15 is right for SW-520D)");
assert(led_l <= sleeve_h - 2 * floor_t, "led_l: the LED slot must fit the sleeve");

cradle();

module cradle() {
    difference() {
        union() {
            cylinder(r = r_out, h = sleeve_h);
            spine();
            led_rail();
            foot();
        }
        // the glass, and the floor's opening (the B cap rests on the lip)
        translate([0, 0, floor_t]) cylinder(r = r_in, h = sleeve_h);
        translate([0, 0, -1]) cylinder(r = r_in - lip, h = floor_t + 2);
        windows();
        switch_pocket(pocket_z[0], leads_towards_a = false);
        switch_pocket(pocket_z[1], leads_towards_a = true);
        cable_channel();
        led_slot();
    }
}

// The flat side on -X: a slab the cradle lies on, so it cannot roll.
module foot() {
    translate([-r_out - foot_t, -r_out * 0.6, 0]) cube([foot_t + wall, r_out * 1.2, sleeve_h]);
}

// The block on +Y that holds both switches.
module spine() {
    translate([-spine_w / 2, 0, 0]) cube([spine_w, r_out + spine_depth - wall, sleeve_h]);
}

// A ball switch's can, its leads pointing along the axis towards A or B, leaned by `lean` towards +X:
// laid on the flat side (-X down), both sets of leads then point a little up and both switches read open.
module switch_pocket(z, leads_towards_a) {
    tilt = leads_towards_a ? lean : 180 - lean;  // from +Z, rotated about Y towards +X
    translate([0, spine_y, z]) rotate([0, tilt, 0]) {
        cylinder(d = switch_d, h = switch_l, center = true);
        // the leads' way out, into the cable channel
        translate([0, 0, switch_l / 2]) cylinder(d = 3, h = switch_gap);
    }
    // the can goes in from the outside face
    translate([0, spine_y, z]) rotate([0, tilt, 0])
        translate([-switch_d / 2, 0, -switch_l / 2]) cube([switch_d, spine_depth, switch_l]);
}

// A groove down the middle of the spine's outer face, past both pockets, out at end B.
module cable_channel() {
    translate([0, r_out + spine_depth - wall, -1])
        cylinder(d = channel_d, h = pocket_z[1] + switch_l);
}

// Two windows, front and back, that show the sand in both bulbs.
module windows() {
    for (side = [1, -1])
        translate([side * r_out, 0, floor_t + lip + sleeve_h / 2 - lip])
            cube([r_out, window_w, sleeve_h - 4 * lip - 2 * floor_t], center = true);
}

// The rail on -Y that carries the LED slot.
module led_rail() {
    translate([-(led_w + 2 * wall) / 2, -r_out - led_t, 0])
        cube([led_w + 2 * wall, led_t + wall, sleeve_h]);
}

// The slot for the LED piece, its face outwards, open at end B for the strip's wires.
module led_slot() {
    translate([-led_w / 2, -r_out - led_t - 0.01, -1]) cube([led_w, led_t, led_l + floor_t + 1]);
}
