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

# Characters that are not text: C0/C1 controls and lone surrogates. (U+2028 and U+2029 are text: a log
# splits lines at \n only, and every file of ours is read the same way.)
NOT_TEXT = frozenset({"Cc", "Cs"})
# A name is written with letters, marks, numbers, punctuation, symbols and the space separators; never with a
# control, format or bidirectional character (NUL, ESC, line breaks, U+202E, zero-width spaces), which could hide
# or reorder what the other players read.
NAME_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No",
                             "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs"})
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


class BadName(BadInput):
    """A name that breaks the name rule (a page shows it by its code, in the page's language)."""

    error_code = "errors.name.characters"


def text(value, field: str, *, expected: str = "text", code: str = "errors.text", params: dict | None = None) -> str:
    """`value` if it is a string that can be written back out as UTF-8 (no lone surrogate).

    `code` (and its `params`) is the refusal a page shows when it is not text: the owner's word for what was
    expected ("a host name", "a broker address"), so a person reads what the field is for.
    """
    if not isinstance(value, str):
        raise BadInput(field, f"expected {expected}, got {shown(value)}", code=code, params=params)
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
    """A name a person typed, by the one name rule of every game, the API, the pages and `companion score`:
    trimmed and in NFC, so the same name typed on two phones is one name.

    >>> name("Cafe\u0301 ", "players[0]", 40)
    'Café'
    >>> name("ann\u202e", "players[1]", 40)
    Traceback (most recent call last):
    companion.fields.BadName: players[1]: a name may not hold U+202E (a control, format or bidirectional character)
    """
    text(value, field, expected=f"a name of 1 to {limit} characters", code="errors.name.length",
         params={"limit": limit})
    for ch in value:
        if unicodedata.category(ch) not in NAME_CATEGORIES:
            raise BadName(field, f"a name may not hold U+{ord(ch):04X} "
                                 "(a control, format or bidirectional character)")
    value = unicodedata.normalize("NFC", value).strip()
    if not value or len(value) > limit:
        raise BadInput(field, f"expected a name of 1 to {limit} characters", code="errors.name.length",
                       params={"limit": limit})
    return value


def choice(value, field: str, options, *, code: str = "errors.choice"):
    """`value` if it is one of `options` (compared as given: "1" is not 1); `code`: the owner's refusal."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value not in options:
        raise BadInput(field, f"expected one of {', '.join(map(str, options)) or 'none'}, got {shown(value)}",
                       code=code)
    return value


def items(value, field: str, low: int, high: int, *, expected: str = "", code: str = "",
          params: dict | None = None) -> list:
    """`value` if it is a list of `low` to `high` entries (each entry is its reader's to check).

    The owner may say in its own words what the list holds (`expected`) and give its one refusal for both
    faults, not a list and not that many (`code` and its `params`), as a person reads them alike.

    >>> items([4, 17, 27], "timers.red.pins", 1, 2, expected="a list of one or two GPIO numbers")
    Traceback (most recent call last):
    companion.errors.BadInput: timers.red.pins: expected a list of one or two GPIO numbers, got [4, 17, 27]
    """
    if not isinstance(value, list):
        raise BadInput(field, f"expected {expected or 'a list'}, got {shown(value)}", code=code or "errors.shape",
                       params=params)
    if not low <= len(value) <= high:
        told = f"{expected}, got {shown(value)}" if expected else f"{low} to {high} entries, got {len(value)}"
        raise BadInput(field, f"expected {told}", code=code or "errors.count",
                       params=params if code else {"low": low, "high": high})
    return value


def mapping(value, field: str, *, expected: str = "an object", code: str = "errors.shape") -> dict:
    """`value` if it is an object: its fields are each their reader's to check, and fields nobody reads are let be
    (a message from a newer program may carry more). The owner may name what it expected in its own words."""
    if not isinstance(value, dict):
        raise BadInput(field, f"expected {expected}, got {shown(value)}", code=code)
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
