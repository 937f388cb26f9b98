"""Runs once at power-up, before a computer sees the drive: a second USB serial port, and the last failure written down.

Only here may the firmware write to the CIRCUITPY drive without taking it
away from the computer; code.py leaves a failure's text in non-volatile
memory and restarts once so that it lands in hub_error.txt (see hubstart.py).
The data port comes first: whatever fails after it (a half-copied
hubstart.py, a full drive), the Pi can still reach the hub.
"""

import usb_cdc

usb_cdc.enable(console=True, data=True)

try:
    import os
    import sys

    import board
    import microcontroller
    import storage

    from hubstart import write_down

    write_down(microcontroller.nvm, storage, os, sys.implementation.version, board.board_id)
except Exception as error:  # noqa: BLE001 - never stop the board from starting: code.py shows its failure
    print("boot.py: %s: %s" % (type(error).__name__, error))
