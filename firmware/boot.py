"""Runs once at power-up, before a computer sees the drive: a second USB serial port, and the last failure written down.

Only here may the firmware write to the CIRCUITPY drive without taking it
away from the computer; code.py leaves a failure's text in non-volatile
memory and restarts once so that it lands in hub_error.txt (see hubstart.py).
"""

import os
import sys

import board
import microcontroller
import storage
import usb_cdc

from hubstart import CLEARED, ERROR_FILE, MAGIC, NVM_BYTES, PENDING, WRITTEN, read_record, record, report

usb_cdc.enable(console=True, data=True)

failure = read_record(microcontroller.nvm[:NVM_BYTES])
if failure is not None and failure[0] in (PENDING, CLEARED):
    try:
        storage.remount("/", readonly=False)
        if failure[0] == PENDING:
            with open(ERROR_FILE, "w") as f:
                f.write(report(failure[1], sys.implementation.version, board.board_id))
        else:
            os.remove(ERROR_FILE)  # the hub has started since: the old failure is gone
        storage.remount("/", readonly=True)
    except OSError:
        pass  # a full drive, or no file to remove: the console and the LED still tell
    if failure[0] == PENDING:
        marked = record(failure[1], WRITTEN)
        microcontroller.nvm[:len(marked)] = marked
    else:
        microcontroller.nvm[:len(MAGIC)] = bytes(len(MAGIC))  # no record any more
