"""The hub protocol's frames as the Pi reads them (the firmware's PROTOCOL.md).

This is the Pi's own reader, written apart from the firmware's so each side
checks the other: both are tested against the firmware's vectors file. The
frame (length, characters, sequence number, CRC) is checked here; the values
of its fields by the project's one field reader, companion/fields.py. A
line that breaks any rule reads as None, so nothing on the wire can raise.

>>> read_message(b"3 pose ms=1893 ch=0 pose=b_up*8A74\\n")
Message(seq=3, kind='pose', ms=1893, fields={'ch': 0, 'pose': 'b_up'})
>>> read_message(b"3 pose ms=1893 ch=0 pose=a_up*8A74\\n") is None
True
"""

import re
from dataclasses import dataclass, field

from companion import fields as read
from companion.errors import BadInput

PROTOCOL = 1  # the protocol version this program speaks
MAX_LINE = 160  # bytes, newline included
SEQ_MOD = 65536
MS_WRAP = 1 << 29
MAX_TIMERS = 16  # more channels than any hub board has pins for
POSES = ("a_up", "b_up", "side")
BEAM_STATES = ("flowing", "stopped", "none")

_FRAME = re.compile(rb"(\d{1,5}) ([a-z_0-9]+)((?: [a-z_0-9]+=[\x21-\x29\x2b-\x3c\x3e-\x7e]+)*)\*([0-9A-F]{4})\r?\n?")


def _crc_of_byte(byte: int) -> int:
    crc = byte << 8
    for _ in range(8):
        crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


_CRC_TABLE = tuple(_crc_of_byte(byte) for byte in range(256))  # a byte at a time: every line is checked


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF).

    >>> f"{crc16(b'123456789'):04X}"
    '29B1'
    """
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[(crc >> 8) ^ byte]
    return crc


def frame(seq: int, kind: str, **fields) -> bytes:
    """One frame from the Pi, e.g. ``frame(0, "hello", proto=1)``."""
    payload = " ".join([str(seq % SEQ_MOD), kind, *(f"{k}={v}" for k, v in fields.items())]).encode()
    return payload + f"*{crc16(payload):04X}\n".encode()


def read_frame(line: bytes) -> tuple[int, str, dict[str, str]] | None:
    """(seq, kind, raw fields) of a well-framed line with a good CRC, else None."""
    if len(line) > MAX_LINE:
        return None
    match = _FRAME.fullmatch(line)
    if match is None:
        return None
    seq_text, kind, rest, crc = match.groups()
    payload = line[:match.start(4) - 1]
    if int(crc, 16) != crc16(payload) or int(seq_text) >= SEQ_MOD:
        return None
    fields: dict[str, str] = {}
    for part in rest.split():
        key, _, value = part.decode().partition("=")
        if key in fields:
            return None
        fields[key] = value
    return int(seq_text), kind.decode(), fields


@dataclass(frozen=True)
class Message:
    """A frame from the hub, its fields checked and typed for its kind (`ms` is the hub's clock)."""

    seq: int
    kind: str
    ms: int | None
    fields: dict = field(default_factory=dict)


def read_message(line: bytes, timers: int = MAX_TIMERS) -> Message | None:
    """The hub's frame in `line` with its fields checked, or None if anything is wrong with it.

    Channels must be below `timers`, the count the hub's hello announced.
    """
    raw = read_frame(line)
    if raw is None:
        return None
    seq, kind, f = raw
    try:
        return Message(seq, kind, read.digits(f.get("ms"), "ms", 0, MS_WRAP - 1), _typed(kind, f, timers))
    except BadInput:
        return None


def _typed(kind: str, f: dict[str, str], timers: int) -> dict:
    """The fields `kind` needs, read and checked; BadInput for a missing or wrong one, or an unknown kind."""
    if kind == "hello":
        return {"fw": read.line(f.get("fw"), "fw", MAX_LINE), "proto": read.digits(f.get("proto"), "proto", 0, SEQ_MOD - 1),
                "timers": read.digits(f.get("timers"), "timers", 1, MAX_TIMERS),
                "resend": read.digits(f.get("resend", "0"), "resend", 0, SEQ_MOD // 2 - 1)}  # absent: keeps none
    if kind == "snap":
        poses = read.items(f.get("pose", "").split(","), "pose", timers, timers)
        beams = read.items(f.get("beam", "").split(","), "beam", timers, timers)
        return {"poses": [read.choice(p, read.at("pose", ch), POSES) for ch, p in enumerate(poses)],
                "beams": [read.choice(b, read.at("beam", ch), BEAM_STATES) for ch, b in enumerate(beams)]}
    if kind in _CHANNEL_KINDS:
        key, allowed = _CHANNEL_KINDS[kind]
        return {"ch": read.digits(f.get("ch"), "ch", 0, timers - 1), key: read.choice(f.get(key), key, allowed)}
    if kind == "beat":
        return {}
    raise BadInput("kind", f"not a hub frame: {kind}", code="errors.choice")


_CHANNEL_KINDS = {"pose": ("pose", POSES), "beam": ("state", BEAM_STATES[:2]), "fault": ("why", ("sensor", "ok"))}
