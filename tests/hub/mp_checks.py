"""The firmware's pure modules put through their paces, printing one line per result.

Runs unchanged under CPython and under MicroPython (no f-strings beyond what
both read, no dataclasses, no typing): the test runs it under both and wants
the same lines. Run from a folder holding the firmware's modules and
vectors.json, as a script (pytest collects it too: importing it does nothing).
"""

def main():
    import json


    import hubbeam
    import hubcore
    import hubframe
    import hubpins
    import hubstart
    import hubtilt
    import huborient


    def say(name, value):
        print(name + ": " + repr(value))


    with open("vectors.json") as f:
        VECTORS = json.load(f)

    for n, vector in enumerate(VECTORS["valid"]):
        got = hubframe.decode(vector["line"].encode())
        fields = vector["fields"]
        say("valid %d" % n, got is not None and got[0] == vector["seq"] and got[1] == vector["kind"]
            and sorted(got[2].items()) == sorted(fields.items()))
    for n, vector in enumerate(VECTORS["invalid"]):
        try:
            line = vector["line"].encode()
        except UnicodeError:
            line = None
        say("invalid %d" % n, None if line is None else hubframe.decode(line))
    say("crc", "%04X" % hubframe.crc16(b"123456789"))
    say("seq_after", (hubframe.seq_after(0, 65535), hubframe.seq_after(7, 7), hubframe.seq_after(5, 9)))

    hub = hubcore.HubCore(3, beams=(1,))
    hub.poses[2] = "b_up"
    out = hub.start(40) + hub.set_pose(0, "a_up", 50) + hub.set_beam(1, "flowing", 60) + hub.set_fault(2, True, 70)
    out += hub.receive(hubframe.encode(0, "snap"), 80) + hub.tick(700) + hub.receive(b"garbage\n", 800)
    say("core", out)
    say("resend", hub.resend(3, 900))
    say("resend too old", hub.resend(60000, 900))
    say("status", (hub.status(900), [hubcore.led_on(s, ms) for s in ("waiting", "connected", "fault") for ms in (0, 80, 700)]))

    hub = hubcore.HubCore(1, window=4)
    hub.start(0)
    hub._seq, hub._held = 65534, []  # as if it had run a while: the numbers wrap at 65536
    sent = [hub.beat(ms) for ms in range(6)]  # 65534, 65535, 0, 1, 2, 3: it keeps 0 to 3
    say("resend across the wrap", [hub.resend(first, 10) == sent[at:] for first, at in ((0, 2), (2, 4), (4, 6))]
        + [hub.resend(65535, 10)[0].split(b" ")[1]])

    vector = VECTORS["resend"]
    hub = hubcore.HubCore(vector["timers"], beams=tuple(vector["beams"]))
    hub.start(vector["hello_ms"])
    for kind, ch, state, ms in vector["steps"]:
        (hub.set_pose if kind == "pose" else hub.set_beam)(ch, state, ms)
    say("resend vector", hub.receive(vector["request"].encode(), vector["request_ms"]) ==
        [line.encode() for line in vector["answer"]])

    pair = hubtilt.TiltReader(settle_ms=80)
    steps = []
    for index, closed, ms in ((0, True, 1000), (0, False, 1010), (0, True, 1020), (1, True, 2000), (0, False, 2005)):
        pair.switch(index, closed, ms)
        steps.append([pair.update(ms + k) for k in (0, 50, 79, 80, 200)])
    say("tilt", steps)

    glass = huborient.Orientation()
    say("orient", [glass.read(x, y, z) for x, y, z in ((0, 0, 9.8), (6, 0, 7), (9.8, 0, 0.5), (0, 0, -9.8), (5, 5, -5))])

    neck = hubbeam.NeckBeam(stop_ms=250)
    events = []
    for ms in range(1000, 3000, 5):
        event = neck.sample(ms < 2500 and ms % 15 == 0, ms)
        if event:
            events.append(event)
    say("beam", events)

    say("version", [hubstart.version_problem(v) for v in ((9, 0, 0), (9, 2, 1), (8, 2, 10))])
    stored = hubstart.record("ImportError: no module named 'x'", hubstart.PENDING)
    say("record", (stored, hubstart.read_record(stored), hubstart.read_record(b"HUBERRP\x00\x05ab")))
    say("after", [hubstart.after_failure(stored, "ImportError: no module named 'x'"), hubstart.after_failure(b"", "x")])
    say("failed led", [hubstart.failed_led_on(ms) for ms in range(0, 2400, 60)])
    kept_whole = []
    for text in ("x" * 600, "\u00e9" * 600, "x\u00e9" * 300, "x\u20ac" * 200, "\U0001f389" * 200):
        back = hubstart.read_record(hubstart.record(text, hubstart.PENDING))
        kept_whole.append(back is not None and text.startswith(back[1])
                          and hubstart.after_failure(hubstart.record(text, hubstart.PENDING), text) == ("stay", None))
    say("cut record", kept_whole == [True] * 5)
    say("boot", boot_checks(hubstart))


    class Keys90:
        def __init__(self, pins, value_when_pressed, pull, interval):
            self.pins = pins


    class Keys91(Keys90):
        def __init__(self, pins, value_when_pressed, pull, interval, debounce_threshold=1):
            self.pins, self.threshold = pins, debounce_threshold


    class Keypad:
        def __init__(self, keys):
            self.Keys = keys


    say("keys", [hubstart.open_keys(Keypad(k), ["GP2"])[1] for k in (Keys90, Keys91)])
    say("pins", (hubpins.pins_for("raspberry_pi_pico")[1], hubpins.pins_for("other")[1], hubpins.pin_names(hubpins.PICO)))
    print("done")


def boot_checks(hubstart):
    """boot.py's part on a real file system: write, remove, a file already gone, a folder that is not there."""
    import os

    class Storage:
        def __init__(self):
            self.remounts = []

        def remount(self, path, readonly):
            self.remounts.append(readonly)

    results = []
    nvm = bytearray(512)
    saved = hubstart.ERROR_FILE
    for path, state in (("hub_error_check.txt", hubstart.PENDING), ("hub_error_check.txt", hubstart.CLEARED),
                        ("hub_error_check.txt", hubstart.CLEARED), ("no_folder/hub_error.txt", hubstart.PENDING)):
        hubstart.ERROR_FILE = path
        stored = hubstart.record("OSError: 5", state)
        nvm[:len(stored)] = stored
        drive = Storage()
        after = hubstart.write_down(nvm, drive, os, (9, 2, 1), "raspberry_pi_pico")
        try:
            with open(path) as f:
                present = f.read().startswith("The hourglass hub could not start.")
        except OSError:
            present = False
        results.append((state, after, drive.remounts, present))
    hubstart.ERROR_FILE = saved
    return results


if __name__ == "__main__":
    main()
