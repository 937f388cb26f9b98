"""The hub's board I/O: sensors in, protocol frames out over USB serial (CircuitPython 9.0 or later on an RP2040).

Everything that decides anything lives in the pure modules beside this file
(hubcore, hubframe, hubtilt, huborient, hubbeam, hubstart, hubpins); this file
only reads pins and the accelerometers, moves bytes, feeds the watchdog and
lights the LED. Set SENSORS and BEAMS below, and the pins in hubpins.py, to
match the board's wiring (see the project's docs/hub.md).

A failure while starting (a missing library, a pin the board does not have,
an old CircuitPython) is written to hub_error.txt on the CIRCUITPY drive and
blinked on the LED; the board then waits with its drive and REPL reachable.
The watchdog starts only once the hub runs, so it restarts a hub that hangs,
never one that cannot start. Nothing runs outside main()'s handler but the
board's own modules: even a broken hubstart.py is shown, on the LED and the
data port, instead of stopping the board.
"""

import sys

import board
import digitalio
import microcontroller
import supervisor
import usb_cdc

SENSORS = "tilt"  # "tilt": two ball switches per glass; "lis3dh": one accelerometer per glass
BEAMS = True  # False when no neck beams are fitted
SETTLE_MS = 80
WATCHDOG_S = 4  # a running hub that hangs this long restarts
RAN_WELL_MS = 10000  # a hub that has run this long is fixed: a failure on record is forgotten
READ_EVERY_MS = 20  # accelerometer readings per glass: 50 a second
SAY_EVERY_MS = 10000  # a failed hub repeats why on its serial ports, for whoever opens one
BROKEN_BLINK = (1500, 2000)  # on ms, period ms: hubstart.py itself cannot be read, so not its FAILED_PATTERN


class StartFailed(Exception):
    """The hub cannot start; the message says why, for a person."""


def pin(name):
    try:
        return getattr(board, name)
    except AttributeError:
        raise StartFailed("this board has no pin %s (board %s): set its pins in hubpins.py" % (name, board.board_id))


def open_port():
    return usb_cdc.data or usb_cdc.console


def open_tilts(pins):
    import keypad

    from hubstart import open_keys
    from hubtilt import TiltReader

    # keypad debounces each switch in the background and stamps each edge with ticks_ms.
    keys, _ = open_keys(keypad, [pin("GP%d" % n) for pair in pins["tilt"] for n in pair])
    return keys, [TiltReader(SETTLE_MS) for _ in pins["tilt"]]


def open_accelerometers(pins):
    import adafruit_lis3dh
    import adafruit_tca9548a
    import busio

    from huborient import Orientation
    from hubpins import I2C_MUX_ADDRESS, LIS3DH_ADDRESS

    scl, sda = (pin("GP%d" % n) for n in pins["i2c"])
    mux = adafruit_tca9548a.TCA9548A(busio.I2C(scl, sda), address=I2C_MUX_ADDRESS)
    sensors = []
    for channel in range(len(pins["tilt"])):
        try:
            sensors.append(adafruit_lis3dh.LIS3DH_I2C(mux[channel], address=LIS3DH_ADDRESS))
        except (OSError, ValueError):
            sensors.append(None)  # reported as a sensor fault on that channel
    return sensors, [Orientation() for _ in sensors]


def open_beams(pins):
    from hubbeam import NeckBeam

    beams = {}
    for channel, number in enumerate(pins["beam"] if BEAMS else ()):
        if number is not None:
            sensor = digitalio.DigitalInOut(pin("GP%d" % number))
            sensor.pull = digitalio.Pull.UP  # the receiver's open collector pulls low while the beam is broken
            beams[channel] = (sensor, NeckBeam())
    return beams


def start(led):
    """Open everything; returns what run() needs. Raises on anything that stops the hub from starting."""
    from hubcore import HubCore
    from hubpins import BEAM_BROKEN_LEVEL, pins_for
    from hubstart import version_problem

    problem = version_problem(sys.implementation.version)
    if problem:
        raise StartFailed(problem)
    pins, note = pins_for(board.board_id)
    if note:
        print(note)
    port = open_port()
    port.timeout = 0
    beams = open_beams(pins)
    hub = HubCore(len(pins["tilt"]), beams=tuple(beams))
    if SENSORS == "tilt":
        sensors, readers = open_tilts(pins)
    elif SENSORS == "lis3dh":
        sensors, readers = open_accelerometers(pins)
    else:
        raise StartFailed("SENSORS in code.py must be \"tilt\" or \"lis3dh\", not %r" % (SENSORS,))
    return hub, port, sensors, readers, beams, BEAM_BROKEN_LEVEL


def run(led, hub, port, sensors, readers, beams, broken_level):
    from watchdog import WatchDogMode

    from hubcore import led_on
    from hubframe import MAX_LINE, ms_since

    dog = microcontroller.watchdog
    dog.timeout, dog.mode = WATCHDOG_S, WatchDogMode.RESET  # from here on a hang restarts the board
    received = b""
    last_read = 0
    started = supervisor.ticks_ms()
    out = hub.start(started)
    remembered = True
    while True:
        dog.feed()
        ms = supervisor.ticks_ms()
        if remembered and ms_since(ms, started) >= RAN_WELL_MS:
            remembered = forget_failure()
        if SENSORS == "tilt":
            event = sensors.events.get()
            while event:
                readers[event.key_number // 2].switch(event.key_number % 2, event.pressed, event.timestamp)
                event = sensors.events.get()
            for ch, reader in enumerate(readers):
                pose = reader.update(ms)
                if pose:
                    out += hub.set_pose(ch, pose, ms)
        elif ms_since(ms, last_read) >= READ_EVERY_MS:
            last_read = ms
            for ch, sensor in enumerate(sensors):
                try:
                    reading = sensor.acceleration if sensor else None
                except OSError:
                    reading = None
                out += hub.set_fault(ch, reading is None, ms)
                if reading is not None:
                    out += hub.set_pose(ch, readers[ch].read(*reading), ms)
        for ch, (sensor, neck) in beams.items():
            change = neck.sample(sensor.value == broken_level, ms)
            if change:
                out += hub.set_beam(ch, change[0], change[1])
        waiting = port.in_waiting
        if waiting:
            received += port.read(waiting)
            while b"\n" in received:
                line, received = received.split(b"\n", 1)
                out += hub.receive(line + b"\n", ms)
            if len(received) > MAX_LINE:
                received = b""  # no newline in sight: garbage, dropped
        out += hub.tick(ms)
        for frame in out:
            port.write(frame)
        out = []
        led.value = led_on(hub.status(ms), ms)


def failed(led, error, running):
    """Write the failure down (via boot.py, after at most one restart) and wait, blinking, reachable."""
    text = "%s: %s" % (type(error).__name__, error)
    print(text)
    try:
        from hubstart import NVM_BYTES, after_failure, failed_led_on, report

        action, store = after_failure(bytes(microcontroller.nvm[:NVM_BYTES]), text)
        if store is not None:
            microcontroller.nvm[:len(store)] = store
        if action == "reset":
            microcontroller.reset()  # boot.py writes hub_error.txt, then this runs again
        lines = report(text, sys.implementation.version, board.board_id)
        lit = failed_led_on
    except Exception as worse:  # noqa: BLE001 - hubstart.py itself is broken: say both, blink plainly
        lines = "The hourglass hub could not start.\n\n%s\n%s: %s\n" % (text, type(worse).__name__, worse)
        lit = broken_led_on
    wait(led, lines, lit, running)


def broken_led_on(ms):
    on, period = BROKEN_BLINK
    return ms % period < on


def wait(led, lines, lit, running):
    """Blink `lit`'s pattern and say `lines` now and then on both serial ports, for ever."""
    port = open_port()
    said = None
    while True:
        if running:
            microcontroller.watchdog.feed()  # it was started: keep it quiet while we wait
        ms = supervisor.ticks_ms()
        if led is not None:
            led.value = lit(ms)
        if said is None or (ms - said) % (1 << 29) >= SAY_EVERY_MS:  # ticks_ms wraps at 2**29
            said = ms
            print(lines)
            if port is not None:
                try:
                    port.write(lines.replace("\n", "\r\n").encode())
                except Exception:  # noqa: BLE001 - the LED and the file still tell
                    pass


def forget_failure():
    """The hub has run well: a failure still on record is fixed, so boot.py removes its file at the next start."""
    from hubstart import CLEARED, NVM_BYTES, read_record, record

    failure = read_record(microcontroller.nvm[:NVM_BYTES])
    if failure is not None and failure[0] != CLEARED:  # written only when there is one: nvm wears
        cleared = record(failure[1], CLEARED)
        microcontroller.nvm[:len(cleared)] = cleared
    return False


def main():
    led = None
    running = False
    try:
        led = digitalio.DigitalInOut(board.LED)
        led.switch_to_output(value=True)  # lit solid while starting
        parts = start(led)
        running = True
        run(led, *parts)
    except Exception as error:  # noqa: BLE001 - any failure is shown, never a silent restart loop
        failed(led, error, running)


main()
