"""The hub boards' pin maps: the one place they are written.

A map gives GP numbers; `code.py` opens the pins named "GP<n>" on the board
it runs on, chosen by CircuitPython's `board.board_id`. The Raspberry Pi Pico
is the reference (and the default); the project's hw/hub_wiring.py draws its
wiring diagram from TILT_GP, BEAM_GP and I2C_GP below. Another board gets an
entry in BOARDS only once it has been tried, with its own GP numbers. Channel
k is the k-th glass (red, orange, yellow, green, blue, purple).
"""

TILT_GP = ((2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13))  # switch 0 (A up), switch 1 (B up), to GND
BEAM_GP = (16, 17, 18, 19, 20, 21)  # break-beam receiver outputs: open collector, low while the beam is broken
I2C_GP = (1, 0)  # SCL, SDA to a TCA9548A multiplexer, one LIS3DH on each of its channels 0-5
I2C_MUX_ADDRESS = 0x70
LIS3DH_ADDRESS = 0x18
BEAM_BROKEN_LEVEL = False  # the receiver's output while sand breaks the beam (pulled up, so high when clear)

PICO = {"tilt": TILT_GP, "beam": BEAM_GP, "i2c": I2C_GP}
DEFAULT_BOARD = "raspberry_pi_pico"
BOARDS = {
    "raspberry_pi_pico": PICO,  # Pico and Pico H
    "raspberry_pi_pico_w": PICO,  # the same GP pins; its LED is on the wireless chip, still board.LED
}


def pins_for(board_id):
    """(pin map, note) for the board `board_id`: its own map, or the Pico's with a note saying so.

    >>> pins_for("raspberry_pi_pico")[1]
    >>> pins_for("adafruit_feather_rp2040")[1]
    'no pin map for adafruit_feather_rp2040 in hubpins.py: trying the Pico map'
    """
    if board_id in BOARDS:
        return BOARDS[board_id], None
    return BOARDS[DEFAULT_BOARD], "no pin map for %s in hubpins.py: trying the Pico map" % board_id


def pin_names(pins):
    """Every board pin name a map uses, in order: the tilt pairs, the beams, SCL and SDA.

    >>> pin_names(PICO)[:3], len(pin_names(PICO))
    (['GP2', 'GP3', 'GP4'], 20)
    """
    numbers = [n for pair in pins["tilt"] for n in pair] + list(pins["beam"]) + list(pins["i2c"])
    return ["GP%d" % n for n in numbers]
