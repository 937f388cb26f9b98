"""Runs once at power-up: a second USB serial port for the protocol, beside the REPL console."""

import usb_cdc

usb_cdc.enable(console=True, data=True)
