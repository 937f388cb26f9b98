"""The hub board's pin map, as GP numbers of a Raspberry Pi Pico: the one place it is written.

`code.py` opens these pins; the project's hw/hub_wiring.py draws the wiring
diagram from them. Channel k is the k-th glass (red, orange, yellow, green,
blue, purple).
"""

TILT_GP = ((2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13))  # switch 0 (A up), switch 1 (B up), to GND
BEAM_GP = (16, 17, 18, 19, 20, 21)  # IR receiver outputs, pulled low while the beam is broken
I2C_GP = (1, 0)  # SCL, SDA to a TCA9548A multiplexer, one LIS3DH on each of its channels 0-5
I2C_MUX_ADDRESS = 0x70
LIS3DH_ADDRESS = 0x18
