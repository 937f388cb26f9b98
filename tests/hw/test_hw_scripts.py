"""The drawing scripts put hw/ on the import path: none may shadow a module the product or its drivers import.

hw/board.py once did: after a drawing test, `import board` in the same process found
the perfboard drawing instead of Blinka's board, and the strip tests failed.
"""

import sys

from conftest import ROOT

DRIVER_MODULES = {"board", "busio", "digitalio", "microcontroller", "neopixel", "neopixel_spi", "neopixel_write",
                  "adafruit_pixelbuf", "gpiozero", "serial", "lgpio", "companion", "conftest"}


def test_no_drawing_script_shadows_a_module():
    scripts = {path.stem for path in (ROOT / "hw").glob("*.py")}
    assert not scripts & (DRIVER_MODULES | set(sys.stdlib_module_names))
