"""The hub's board I/O: sensors in, protocol frames out over USB serial (CircuitPython on an RP2040).

Everything that decides anything lives in the pure modules beside this file
(hubcore, hubframe, hubtilt, huborient, hubbeam); this file only reads pins
and the accelerometers, moves bytes, feeds the watchdog and lights the LED.
Set SENSORS and the pin lists below to match the board's wiring (see the
project's docs/hub.md).
"""

import board
import digitalio
import microcontroller
import supervisor
import usb_cdc
from watchdog import WatchDogMode

from hubbeam import NeckBeam
from hubcore import HubCore, led_on
from hubframe import MAX_LINE, ms_since
from huborient import Orientation
from hubpins import BEAM_GP, I2C_GP, I2C_MUX_ADDRESS, LIS3DH_ADDRESS, TILT_GP
from hubtilt import TiltReader

SENSORS = "tilt"  # "tilt": two ball switches per glass; "lis3dh": one accelerometer per glass
BEAMS = True  # False when no neck beams are fitted
SETTLE_MS = 80
WATCHDOG_S = 4  # a board that hangs this long restarts
READ_EVERY_MS = 20  # accelerometer readings per glass: 50 a second


def gp(number):
    return getattr(board, "GP%d" % number)


def open_port():
    return usb_cdc.data or usb_cdc.console


def open_tilts():
    import keypad

    pins = [gp(number) for pair in TILT_GP for number in pair]
    # keypad debounces each switch in the background and stamps each edge with ticks_ms.
    keys = keypad.Keys(pins, value_when_pressed=False, pull=True, interval=0.005, debounce_threshold=3)
    return keys, [TiltReader(SETTLE_MS) for _ in TILT_GP]


def open_accelerometers():
    import adafruit_lis3dh
    import adafruit_tca9548a
    import busio

    mux = adafruit_tca9548a.TCA9548A(busio.I2C(gp(I2C_GP[0]), gp(I2C_GP[1])), address=I2C_MUX_ADDRESS)
    sensors = []
    for channel in range(len(TILT_GP)):
        try:
            sensors.append(adafruit_lis3dh.LIS3DH_I2C(mux[channel], address=LIS3DH_ADDRESS))
        except (OSError, ValueError):
            sensors.append(None)
    return sensors, [Orientation() for _ in sensors]


def open_beams():
    beams = {}
    for channel, number in enumerate(BEAM_GP if BEAMS else ()):
        if number is not None:
            sensor = digitalio.DigitalInOut(gp(number))
            sensor.pull = digitalio.Pull.UP  # the receiver pulls low while the beam is broken
            beams[channel] = (sensor, NeckBeam())
    return beams


def main():
    led = digitalio.DigitalInOut(board.LED)
    led.switch_to_output(value=True)  # lit solid while starting
    dog = microcontroller.watchdog
    dog.timeout, dog.mode = WATCHDOG_S, WatchDogMode.RESET
    port = open_port()
    port.timeout = 0
    beams = open_beams()
    hub = HubCore(len(TILT_GP), beams=tuple(beams))
    if SENSORS == "tilt":
        keys, readers = open_tilts()
    else:
        sensors, readers = open_accelerometers()
    received = b""
    last_read = 0
    out = hub.start(supervisor.ticks_ms())
    while True:
        dog.feed()
        ms = supervisor.ticks_ms()
        if SENSORS == "tilt":
            event = keys.events.get()
            while event:
                readers[event.key_number // 2].switch(event.key_number % 2, event.pressed, event.timestamp)
                event = keys.events.get()
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
            change = neck.sample(not sensor.value, ms)
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


# An unexpected error restarts the board (the watchdog would, a little later).
try:
    main()
except Exception:
    microcontroller.reset()
