"""Starting the hub safely: the CircuitPython version, features that differ between versions, and a failure report.

Pure: `code.py` and `boot.py` hand in the board's modules and values. A
failure at start never becomes a boot loop: its text goes into the board's
non-volatile memory, the board restarts once so that `boot.py` can write it
to `hub_error.txt` on the CIRCUITPY drive (only boot.py may write there
while a computer sees the drive), and from then on the board never restarts
for a failure while one is on record: it stays up, blinks FAILED_PATTERN, and
prints the text on the console and the data port, its drive and REPL
reachable. A failure after the hub has run well (the record then says
"cleared") is stored for boot.py to write at the next start, and waits the
same way: restarting again would only repeat it, and each restart writes the
non-volatile memory, which wears.

>>> version_problem((9, 0, 5))
>>> version_problem((8, 2, 10))
'this firmware needs CircuitPython 9.0 or later; the board runs 8.2.10'
>>> stored = record("ImportError: no module named 'adafruit_lis3dh'", PENDING)
>>> read_record(stored)
('pending', "ImportError: no module named 'adafruit_lis3dh'")
>>> after_failure(stored, "ImportError: no module named 'adafruit_lis3dh'")
('stay', None)
>>> after_failure(b"", "OSError: 5")[0]
'reset'
"""

CIRCUITPYTHON = (9, 0, 0)  # the oldest version the firmware runs on; tested up to 9.2
ERROR_FILE = "/hub_error.txt"
MAGIC = b"HUBERR"
# A record's state: waiting for boot.py to write it, on the drive, or fixed (boot.py removes the file).
PENDING, WRITTEN, CLEARED = "pending", "written", "cleared"
_STATES = {PENDING: b"P", WRITTEN: b"W", CLEARED: b"C"}
NVM_BYTES = 512  # the most of microcontroller.nvm a record takes
_HEADER = 9  # MAGIC, the state's mark, the text's length in two bytes
FAILED_PATTERN = (120, 200, 3, 1500)  # three 120 ms flashes 200 ms apart, then 1.5 s dark
DEBOUNCE_THRESHOLD = 3  # keypad scans a switch must read the same (CircuitPython 9.1 and later)


def version_problem(version):
    """None if CircuitPython `version` (sys.implementation.version) runs this firmware, else why not."""
    if tuple(version[:3]) >= CIRCUITPYTHON:
        return None
    return "this firmware needs CircuitPython %d.%d or later; the board runs %s" % (
        CIRCUITPYTHON[0], CIRCUITPYTHON[1], ".".join(str(part) for part in version[:3]))


def open_keys(keypad, pins):
    """A keypad.Keys for switches to GND, with a debounce threshold where this CircuitPython has one.

    `debounce_threshold` came in CircuitPython 9.1.0; on 9.0 the keyword is a
    TypeError, so it is tried first and left out if refused (the TiltReader's
    settle time debounces the switches anyway). Returns (keys, threshold used).
    """
    options = {"value_when_pressed": False, "pull": True, "interval": 0.005}
    try:
        return keypad.Keys(pins, debounce_threshold=DEBOUNCE_THRESHOLD, **options), DEBOUNCE_THRESHOLD
    except TypeError:
        return keypad.Keys(pins, **options), 1


def kept(text):
    """The part of `text` a record keeps: as many whole characters as fit (a cut character would not read back).

    >>> len(kept("é" * 600).encode()) == NVM_BYTES - _HEADER - 1
    True
    """
    data = text.encode()
    if len(data) <= NVM_BYTES - _HEADER:
        return text
    end = NVM_BYTES - _HEADER
    while end > 0 and data[end] & 0xC0 == 0x80:  # a UTF-8 continuation byte: the character began before
        end -= 1
    return data[:end].decode()


def record(text, state):
    """The bytes kept in non-volatile memory for a failure: MAGIC, its state, its length, its text."""
    data = kept(text).encode()
    return MAGIC + _STATES[state] + bytes((len(data) >> 8, len(data) & 0xFF)) + data


def read_record(data):
    """(state, text) of a stored failure, or None if `data` holds none."""
    data = bytes(data)
    states = [state for state, mark in _STATES.items() if mark == data[6:7]]
    if data[:6] != MAGIC or not states or len(data) < _HEADER:
        return None
    size = (data[7] << 8) | data[8]
    if len(data) < _HEADER + size:
        return None
    try:
        text = data[_HEADER:_HEADER + size].decode()
    except UnicodeError:
        return None
    return states[0], text


def after_failure(stored, text):
    """What the board does after failing with `text`: ("reset" or "stay", the record to store first or None).

    It restarts only when no failure is on record, so that boot.py writes this
    one down; with one on record it stays, whatever the text: a failure that
    comes back (at once, or after the hub ran well for a while) would only
    restart it again and again, and a board that keeps restarting keeps taking
    its drive away from the computer and wearing its non-volatile memory. A
    text not yet on record is stored for the next start, once.
    """
    known = read_record(stored)
    if known is None:
        return "reset", record(text, PENDING)
    if known[0] != CLEARED and known[1] == kept(text):
        return "stay", None
    return "stay", record(text, PENDING)


def write_down(nvm, storage, os, version, board_id):
    """boot.py's part: write a pending failure to ERROR_FILE, or remove the file of a fixed one.

    The drive is handed back to the computer whatever happens. A file that
    could not be written (a full drive) is tried again at the next start; a
    file already gone counts as removed. Returns the record's state after.
    """
    failure = read_record(nvm[:NVM_BYTES])
    if failure is None or failure[0] == WRITTEN:
        return None if failure is None else WRITTEN
    state, text = failure
    done = False
    storage.remount("/", readonly=False)
    try:
        if state == PENDING:
            with open(ERROR_FILE, "w") as f:
                f.write(report(text, version, board_id))
        else:
            os.remove(ERROR_FILE)  # the hub has run well since: the old failure is gone
        done = True
    except OSError:  # its errno differs between ports: ask the drive instead
        done = state == CLEARED and not _exists(os, ERROR_FILE)
    finally:
        storage.remount("/", readonly=True)
    if not done:
        return state
    if state == PENDING:
        marked = record(text, WRITTEN)
        nvm[:len(marked)] = marked
        return WRITTEN
    nvm[:len(MAGIC)] = bytes(len(MAGIC))  # no record any more
    return None


def _exists(os, path):
    try:
        os.stat(path)
    except OSError:
        return False
    return True


def report(text, version, board_id):
    """The text of hub_error.txt: what failed, on what, and what to do."""
    return ("The hourglass hub could not start.\n\n%s\n\nBoard: %s; CircuitPython %s.\n"
            "The board is waiting: its drive and its serial console work. Fix the cause (a missing\n"
            "library in lib/, a wrong pin map in hubpins.py, the CircuitPython version), save, and it\n"
            "restarts by itself. See the project's docs/hub.md.\n") % (
        text, board_id, ".".join(str(part) for part in version[:3]))


def failed_led_on(ms):
    """Whether the status LED is lit at `ms` while the board shows a failed start.

    >>> [failed_led_on(ms) for ms in (0, 119, 120, 320, 640, 760, 2000)]
    [True, True, False, True, True, False, False]
    """
    on, gap, flashes, dark = FAILED_PATTERN
    at = ms % (flashes * (on + gap) + dark)
    return at < flashes * (on + gap) and at % (on + gap) < on
