"""GPIO pins: the pin factory, the reference pin map, and switches that report raw edges.

gpiozero is imported inside the functions that need it, so this module
imports on any machine.
"""

import atexit
import contextlib
import errno
import os
import shutil
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import companion.data
from companion.errors import BadInput
from companion.fields import items, mapping, whole
from companion.skyrockets.colours import COLOURS, check_colour

GPIO_NUMBERS = range(2, 28)  # BCM GPIOs on the 40-pin header (0 and 1 belong to the HAT EEPROM)
PIN_LIST = "a list of one or two GPIO numbers"  # what a timer's pins are: one switch or a tilt sensor's two


class HardwareUnavailable(RuntimeError):
    """This machine has no usable GPIO; the message says what is missing and what to do."""


def why_no_gpio(dev: Path = Path("/dev"), proc: Path = Path("/proc")) -> str | None:
    """The real reason the GPIO chip cannot be used here, found by looking, or None when nothing is in the way.

    Each cause has its own cure, so each gets its own sentence: the device
    node missing, this user outside the group that owns it, the service's
    sandbox refusing the device, or the board's model hidden from /proc.

    >>> why_no_gpio(Path("/nonexistent"))
    'no /nonexistent/gpiochip* device: this is not a Raspberry Pi, or its GPIO driver is not loaded'
    """
    chips = sorted(dev.glob("gpiochip*"))
    if not chips:
        return f"no {dev}/gpiochip* device: this is not a Raspberry Pi, or its GPIO driver is not loaded"
    chip = chips[0]
    try:
        os.close(os.open(chip, os.O_RDWR))
    except PermissionError as e:
        if e.errno == errno.EPERM:  # the device cgroup says no: DevicePolicy/DeviceAllow, not file modes
            return f"{chip}: the service's sandbox refuses the device (DeviceAllow=char-gpiochip rw is missing)"
        return _not_in_group(chip)
    except OSError as e:
        return f"{chip}: cannot open it ({e.strerror or e})"
    if not (proc / "device-tree").exists() and not _cpuinfo_names_a_board(proc / "cpuinfo"):
        return (f"{proc}/device-tree and the Revision line of {proc}/cpuinfo cannot be read, so the board "
                "cannot be told (a service with ProcSubset=pid hides them)")
    return None


def _not_in_group(chip: Path) -> str:
    import grp
    import pwd

    info = chip.stat()
    try:
        group = grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        group = str(info.st_gid)
    try:
        user = pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        user = f"uid {os.geteuid()}"
    if info.st_gid == 0:  # plain Debian leaves the chip to root: no group of the table's may be given it
        return (f"{chip}: permission denied: it belongs to root alone, not to the gpio group (the udev rule that "
                "gives it to gpio is missing: systemd/install.sh writes it; then sudo udevadm trigger)")
    if info.st_gid in os.getgroups():
        return f"{chip}: permission denied though {user} is in its group {group} (mode {info.st_mode & 0o777:o})"
    return (f"{chip}: permission denied: the user {user} is not in the group {group} that owns it "
            f"(sudo usermod -aG {group} {user}, then log in again or restart the service)")


def _cpuinfo_names_a_board(cpuinfo: Path) -> bool:
    try:
        return any(line.startswith("Revision") for line in cpuinfo.read_text(errors="replace").splitlines())
    except OSError:
        return False


def _import_lgpio():
    """Import lgpio from a directory this process may write, whatever its current one is.

    At import lgpio makes a notification pipe, ``.lgd-nfy<N>``, in the current
    directory (or $LG_WD) and opens it from Python by that relative name. The
    service's directory or a home the user cannot write would make that fail,
    so the pipe goes into a private folder of its own, removed at exit.
    """
    if sys.modules.get("lgpio") is not None:
        return sys.modules["lgpio"]
    folder = tempfile.mkdtemp(prefix="companion-gpio-")
    atexit.register(shutil.rmtree, folder, True)
    os.environ["LG_WD"] = folder  # the C side makes the pipe here; the Python side opens it from the cwd
    with contextlib.chdir(folder):
        import lgpio
    return lgpio


def open_pin_factory(mock: bool):
    """gpiozero's MockFactory when `mock`, else its lgpio factory (the one that works on every Pi).

    Raises HardwareUnavailable, with a one-line reason, when there are no pins to open.
    """
    if mock:
        from companion.hardware.mock import mock_pin_factory

        return mock_pin_factory()
    reasons = []
    try:
        _import_lgpio()
    except ImportError:
        reasons.append("the lgpio module is not installed (install the 'pi' extra)")
    except OSError as e:  # lgpio could not make its notification pipe
        reasons.append(f"lgpio cannot start ({e.strerror or e}: {e.filename or 'its notification pipe'})")
    reason = why_no_gpio()
    if reason:
        reasons.insert(0, reason)
    if reasons:
        raise HardwareUnavailable(f"no GPIO here: {'; '.join(reasons)}; "
                                  "run with --mock (or mock_pins = true) to use mock pins")
    try:
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    except Exception as e:  # lgpio.error, or gpiozero not knowing the board
        raise HardwareUnavailable(f"cannot open the GPIO chip ({type(e).__name__}: {e}); "
                                  "run with --mock to use mock pins") from e


def load_pinout(path: Path | str | None = None) -> dict:
    """The reference pin map (hw/pinout.toml, shipped as companion/data/pinout.toml), validated.

    Raises BadInput naming the file and key, e.g.
    "hw/pinout.toml: timers.red.pins: GPIO 40 does not exist (valid 2-27)".
    """
    if path is None:
        # A file beside the package's own modules (pip installs it unzipped): importlib.resources would load its
        # zip readers for it at every start.
        label, source = "hw/pinout.toml", Path(companion.data.__file__).with_name("pinout.toml")
    else:
        label, source = str(path), Path(path)
    try:
        pinout = tomllib.loads(source.read_text(encoding="utf-8"))
        check_pinout(pinout)
    except OSError as e:
        raise BadInput(label, f"cannot read it ({e.strerror or e})", code="errors.file.unreadable") from None
    except tomllib.TOMLDecodeError as e:
        raise BadInput(label, f"not valid TOML ({e})", code="errors.file.not_toml") from None
    except BadInput as e:
        raise BadInput(f"{label}: {e.field}", e.problem, code=getattr(e, "error_code", None),
                       params=e.params) from None
    return pinout


def check_pinout(pinout: dict) -> None:
    """Raise BadInput unless every timer colour has one or two pins and no GPIO is wrong or used twice."""
    timers = mapping(pinout.get("timers"), "timers", expected="a [timers.<colour>] table per colour",
                     code="errors.missing")
    for colour in timers:
        check_colour(colour, f"timers.{colour}")
    for colour in COLOURS:
        timer = timers.get(colour)
        pins = timer.get("pins") if isinstance(timer, dict) else None
        items(pins, f"timers.{colour}.pins", 1, 2, expected=PIN_LIST, code="errors.setup.pins")
    used: dict[int, str] = {}
    for field, value in _numbers(pinout):
        whole(value, field, 0, max(GPIO_NUMBERS) * 2)  # a number first; then a GPIO there is
        if value not in GPIO_NUMBERS:
            raise BadInput(field, f"GPIO {value} does not exist (valid 2-27)", code="errors.setup.no_gpio",
                           params={"pin": value})
        if value in used:
            raise BadInput(field, f"GPIO {value} is already used by {used[value]}", code="errors.setup.pin_twice",
                           params={"pin": value})
        used[value] = field


def _numbers(table: dict, prefix: str = ""):
    """Every (dotted key, value) leaf of the pin map, list items under their list's key."""
    for key, value in table.items():
        field = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _numbers(value, f"{field}.")
        elif isinstance(value, list):
            yield from ((field, item) for item in value)
        else:
            yield field, value


@dataclass(frozen=True)
class RawEdge:
    """One raw level change of one switch of a named input, as its pin callback saw it.

    >>> RawEdge(device="red", switch=0, closed=True, t=12.5)
    RawEdge(device='red', switch=0, closed=True, t=12.5)
    """

    device: str
    switch: int
    closed: bool
    t: float


class SwitchInputs:
    """Switches wired from GPIO pins to GND that hand every raw edge to `sink`, and do nothing else.

    The gpiozero callbacks run on gpiozero's threads, so they only stamp the
    edge with `clock()` and pass it on (the runtime's sink puts it on a
    queue); debouncing and meaning belong to the pure logic on the other
    side. `make_input(pin)` builds the gpiozero device for one pin.
    """

    def __init__(self, name: str, pins, sink, clock, make_input):
        self.name = name
        self._inputs = []
        try:
            for switch, pin in enumerate(pins):
                self._inputs.append(make_input(pin))
                self._report(switch, sink, clock)
        except BaseException:
            self.close()
            raise

    def _report(self, switch: int, sink, clock) -> None:
        device = self._inputs[switch]
        device.when_activated = lambda: sink(RawEdge(self.name, switch, True, clock()))
        device.when_deactivated = lambda: sink(RawEdge(self.name, switch, False, clock()))

    def levels(self) -> tuple[bool, ...]:
        """Whether each switch is closed right now (for start-up and recovery)."""
        return tuple(device.is_active for device in self._inputs)

    def close(self) -> None:
        """Release the pins."""
        for device in self._inputs:
            device.close()
