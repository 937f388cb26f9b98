"""Values from outside, read one way: every door (the JSON API, a config section, a history file, an MQTT
payload, a command's file) checks a field through these readers, so what one door refuses no other lets in.

Each reader returns the value it was given (a name cleaned to its one form) or raises BadInput naming the
field's path and carrying a catalogue code, so a page shows the refusal in its own language and a script
reads the path. True and false are never numbers; NaN and the infinities are never reals.

>>> whole(3, "stage", 1, 3)
3
>>> whole(True, "stage", 1, 3)
Traceback (most recent call last):
companion.errors.BadInput: stage: expected a whole number, got True
>>> record({"n": 1, "suit": "x", "count": 2}, "card", ("n", "suit"))
Traceback (most recent call last):
companion.errors.BadInput: card.count: unknown field (expected n, suit)
"""

import math
import unicodedata
from datetime import datetime

from companion.errors import BadInput
from companion.jsonin import check_text
from companion.players import check_name

# Characters that are not text: C0/C1 controls and lone surrogates. (U+2028 and U+2029 are text: a log
# splits lines at \n only, and every file of ours is read the same way.)
NOT_TEXT = frozenset({"Cc", "Cs"})
SHOWN = 30  # characters of a refused value quoted back: enough to recognise it, never a page of it


def at(field: str, key) -> str:
    """The path of `key` inside `field`: `at("card", "n")` is "card.n", `at("players", 2)` is "players[2]"."""
    if isinstance(key, int):
        return f"{field}[{key}]"
    return f"{field}.{key}" if field and key != "" else field or str(key)  # the whole of `field`: its own name


def shown(value) -> str:
    """A refused value as it is quoted back: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."


def whole(value, field: str, low: int, high: int) -> int:
    """`value` if it is a whole number from `low` to `high`, else BadInput naming `field`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(field, f"expected a whole number, got {shown(value)}", code="errors.whole")
    if not low <= value <= high:
        raise BadInput(field, f"{value} is out of range ({low}-{high})",
                       code="errors.range", params={"low": low, "high": high})
    return value


def real(value, field: str, low: float, high: float) -> float:
    """`value` as a float if it is a finite number from `low` to `high` (a whole number counts), else BadInput.

    >>> real(10**400, "seconds", 0, 3600)
    Traceback (most recent call last):
    companion.errors.BadInput: seconds: a number of 401 digits is out of range (0-3600)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or (isinstance(value, float) and not math.isfinite(value)):
        raise BadInput(field, f"expected a number, got {shown(value)}", code="errors.number")
    try:
        number = float(value)
    except OverflowError:  # an integer beyond every float: out of any range
        number = math.inf if value > 0 else -math.inf
    if not (math.isfinite(number) and low <= number <= high):
        told = f"{number:g}" if math.isfinite(number) else f"a number of {len(str(abs(value)))} digits"
        raise BadInput(field, f"{told} is out of range ({low:g}-{high:g})",
                       code="errors.range", params={"low": low, "high": high})
    return number


def yes_no(value, field: str) -> bool:
    """`value` if it is true or false (not 1, not "yes"), else BadInput naming `field`."""
    if not isinstance(value, bool):
        raise BadInput(field, f"expected true or false, got {shown(value)}", code="errors.yes_no")
    return value


def text(value, field: str) -> str:
    """`value` if it is a string that can be written back out as UTF-8 (no lone surrogate)."""
    if not isinstance(value, str):
        raise BadInput(field, f"expected text, got {shown(value)}", code="errors.text")
    check_text(value, field)
    return value


def line(value, field: str, limit: int, *, keep: str = "", empty: bool = False) -> str:
    r"""`value` if it is text of at most `limit` characters with no control character (but those in `keep`).

    >>> line("Ann 🎉", "players[0]", 40)
    'Ann 🎉'
    >>> line("Ann\x07", "players[0]", 40)
    Traceback (most recent call last):
    companion.errors.BadInput: players[0]: contains the control character U+0007
    """
    text(value, field)
    for ch in value:
        if ch not in keep and unicodedata.category(ch) in NOT_TEXT:
            raise BadInput(field, f"contains the control character U+{ord(ch):04X}", code="errors.control")
    if not value.strip() and not empty:
        raise BadInput(field, "must not be empty", code="errors.empty")
    if len(value) > limit:
        raise BadInput(field, f"longer than {limit} characters", code="errors.too_long", params={"limit": limit})
    return value


def name(value, field: str, limit: int) -> str:
    """A name a person typed, by the one name rule of every game (companion.players), trimmed and in NFC."""
    return check_name(value, field, limit=limit)


def choice(value, field: str, options):
    """`value` if it is one of `options` (compared as given: "1" is not 1)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value not in options:
        raise BadInput(field, f"expected one of {', '.join(map(str, options))}, got {shown(value)}",
                       code="errors.choice")
    return value


def items(value, field: str, low: int, high: int) -> list:
    """`value` if it is a list of `low` to `high` entries (each entry is its reader's to check)."""
    if not isinstance(value, list):
        raise BadInput(field, f"expected a list, got {shown(value)}", code="errors.shape")
    if not low <= len(value) <= high:
        raise BadInput(field, f"expected {low} to {high} entries, got {len(value)}",
                       code="errors.count", params={"low": low, "high": high})
    return value


def mapping(value, field: str) -> dict:
    """`value` if it is an object: its fields are each their reader's to check, and fields nobody reads are let be
    (a message from a newer program may carry more)."""
    if not isinstance(value, dict):
        raise BadInput(field or "body", f"expected an object, got {shown(value)}", code="errors.shape")
    return value


def record(value, field: str, allowed, required=()) -> dict:
    """`value` if it is an object with no field outside `allowed` and every field in `required`."""
    if not isinstance(value, dict):
        raise BadInput(field or "body", f"expected an object, got {shown(value)}", code="errors.shape")
    unknown = sorted((key for key in value if key not in allowed), key=str)
    if unknown:
        raise BadInput(at(field, unknown[0][:SHOWN]), f"unknown field (expected {', '.join(allowed) or 'none'})",
                       code="errors.unknown_field")
    for key in required:
        if key not in value:
            raise BadInput(at(field, key), "missing", code="errors.missing")
    return value


def instant(value, field: str) -> str:
    """A wall-clock instant as the records write one (UTC, to the second: 2025-05-04T19:30:00Z).

    >>> instant("2025-05-04T19:30:00Z", "started")
    '2025-05-04T19:30:00Z'
    """
    text(value, field)
    try:
        ok = len(value) == 20 and value.endswith("Z") and value.isascii() and \
            datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ") is not None
    except ValueError:
        ok = False
    if not ok:
        raise BadInput(field, f"expected a UTC instant like 2025-05-04T19:30:00Z, got {shown(value)}",
                       code="errors.instant")
    return value


def digits(value, field: str, low: int, high: int) -> int:
    """A whole number written as digits in text (a web form's or a path's), from `low` to `high`."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= len(str(high)):
        value = int(value)
    return whole(value, field, low, high)
