"""JSON from outside (a request body, a file, a serial or MQTT payload), read strictly.

Python's json module accepts what no other program sends and what later
crashes ours: NaN and Infinity, lone surrogates (which cannot be encoded
back to UTF-8), integers of thousands of digits, nesting deep enough to
exhaust the stack. `parse` refuses each of them with a BadInput naming where.

>>> parse('{"t": 1.5}')
{'t': 1.5}
>>> parse('{"t": NaN}', "body")
Traceback (most recent call last):
...
companion.errors.BadInput: body: not valid JSON (NaN is not a number JSON allows)
"""

import json

from companion.errors import BadInput

MAX_DEPTH = 32  # no document of ours nests deeper than a handful of levels
MAX_INT_DIGITS = 18  # every count, id and time of ours fits in 64 bits


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits is too large")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:20]} is too large a number")
    return value


def parse(text: str | bytes, where: str = "body"):
    """The JSON value in `text`, or BadInput(`where`, why not)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput(where, "not UTF-8 text", code="errors.shape") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=_int, parse_float=_float)
    except RecursionError:
        raise BadInput(where, "not valid JSON (nested too deeply)", code="errors.shape") from None
    except ValueError as e:
        raise BadInput(where, f"not valid JSON ({e})", code="errors.shape") from None
    check_value(value, where)
    return value


def check_value(value, where: str, depth: int = 0) -> None:
    """Refuse lone surrogates and nesting deeper than MAX_DEPTH anywhere in a parsed value."""
    if not _sound(value, depth):
        _name_the_fault(value, where, depth)


def _sound(value, depth: int) -> bool:
    """True when `value` needs no refusal: the quick look every value gets (a hall reads thousands a second),
    with no field paths built and ASCII text (which cannot hold a surrogate) never encoded."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, str):
        return value.isascii() or _encodes(value)
    if isinstance(value, list):
        for item in value:
            if not _sound(item, depth + 1):
                return False
    elif isinstance(value, dict):
        for key, item in value.items():
            if not (key.isascii() or _encodes(key)) or not _sound(item, depth + 1):
                return False
    return True


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _name_the_fault(value, where: str, depth: int = 0) -> None:
    """The slow walk, for a value the quick look found wanting: the refusal names the field."""
    if depth > MAX_DEPTH:
        raise BadInput(where, f"nested more than {MAX_DEPTH} levels deep", code="errors.shape")
    if isinstance(value, str):
        check_text(value, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _name_the_fault(item, f"{where}[{i}]", depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_text(key, where)
            _name_the_fault(item, f"{where}.{key}", depth + 1)


def check_text(text: str, where: str) -> None:
    """Refuse a string that cannot be written back out as UTF-8 (a lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(where, "contains a lone surrogate (not valid Unicode text)", code="errors.control") from None
