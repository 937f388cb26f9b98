"""The hub's firmware on the host: its pure modules, shipped with the package, and the one way to load them.

The board runs `firmware/` (CircuitPython). Its pure modules — the frame
codec, the core, the tilt and orientation readers, the beam, the pin map —
run under CPython as they are, for the fake hub (`companion hub fake`) and
the tests. The firmware is shipped in the package as `companion/data/firmware/`
(a link to `firmware/` in a checkout, a copy in an installed package), so
the fake hub needs no source checkout. Its modules import each other by
their bare names, as on the board, so their folder joins `sys.path`.

>>> firmware_module("hubframe").PROTOCOL_VERSION >= 1
True
"""

import sys
from importlib import import_module
from importlib.util import module_from_spec, spec_from_file_location
from importlib.resources import as_file, files
from pathlib import Path

BOARD_ONLY = ("code", "boot")  # they open the board's pins: CPython cannot run them


def firmware_folder() -> Path:
    """Where the shipped firmware modules are (a real folder: the package is installed as files)."""
    with as_file(files("companion.data").joinpath("firmware")) as folder:
        return Path(folder)


def firmware_module(name: str):
    """A pure module of the firmware (hubcore, hubframe, ...), imported as the board imports it."""
    if name in BOARD_ONLY:
        raise ValueError(f"{name}.py runs on the board only")
    folder = firmware_folder()
    if not (folder / f"{name}.py").is_file():
        raise FileNotFoundError(f"the firmware module {name} is missing from {folder}: reinstall the package")
    if str(folder) not in sys.path:
        sys.path.append(str(folder))
    return import_module(name)


def firmware_file(path: Path | str):
    """A firmware module read from a file of its own (an edited copy), without touching the shipped ones."""
    path = Path(path)
    spec = spec_from_file_location(f"firmware_{path.stem}", path)
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
