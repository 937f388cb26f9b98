"""The hub protocol's frames as the Pi reads them (the firmware's PROTOCOL.md).

This is the Pi's own reader, written apart from the firmware's so each side
checks the other: both are tested against the firmware's vectors file. A
line that breaks any rule reads as None, so nothing on the wire can raise.

>>> read_message(b"3 pose ms=1893 ch=0 pose=b_up*8A74\\n")
Message(seq=3, kind='pose', ms=1893, fields={'ch': 0, 'pose': 'b_up'})
>>> read_message(b"3 pose ms=1893 ch=0 pose=a_up*8A74\\n") is None
True
"""

import re
from dataclasses import dataclass, field

PROTOCOL = 1  # the protocol version this program speaks
MAX_LINE = 160  # bytes, newline included
SEQ_MOD = 65536
MS_WRAP = 1 << 29
MAX_TIMERS = 16  # more channels than any hub board has pins for
POSES = ("a_up", "b_up", "side")
BEAM_STATES = ("flowing", "stopped", "none")

_FRAME = re.compile(rb"(\d{1,5}) ([a-z_0-9]+)((?: [a-z_0-9]+=[\x21-\x29\x2b-\x3c\x3e-\x7e]+)*)\*([0-9A-F]{4})\r?\n?")


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF).

    >>> f"{crc16(b'123456789'):04X}"
    '29B1'
    """
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
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


def _count(text: str, high: int) -> int | None:
    return int(text) if text.isdigit() and len(text) <= 10 and int(text) < high else None


def read_message(line: bytes, timers: int = MAX_TIMERS) -> Message | None:
    """The hub's frame in `line` with its fields checked, or None if anything is wrong with it.

    Channels must be below `timers`, the count the hub's hello announced.
    """
    raw = read_frame(line)
    if raw is None:
        return None
    seq, kind, f = raw
    ms = _count(f.get("ms", ""), MS_WRAP)
    if ms is None:
        return None
    typed: dict = {}
    if kind == "hello":
        typed = {"fw": f.get("fw"), "proto": _count(f.get("proto", ""), SEQ_MOD),
                 "timers": _count(f.get("timers", ""), MAX_TIMERS + 1),
                 "resend": _count(f.get("resend", "0"), SEQ_MOD // 2)}  # absent: a hub that keeps no frames
        if None in typed.values() or typed["timers"] == 0:
            return None
    elif kind == "snap":
        poses, beams = f.get("pose", "").split(","), f.get("beam", "").split(",")
        if len(poses) != timers or len(beams) != timers:
            return None
        if not set(poses) <= set(POSES) or not set(beams) <= set(BEAM_STATES):
            return None
        typed = {"poses": poses, "beams": beams}
    elif kind in ("pose", "beam", "fault"):
        key, allowed = {"pose": ("pose", POSES), "beam": ("state", BEAM_STATES[:2]),
                        "fault": ("why", ("sensor", "ok"))}[kind]
        ch = _count(f.get("ch", ""), timers)
        if ch is None or f.get(key) not in allowed:
            return None
        typed = {"ch": ch, key: f[key]}
    elif kind != "beat":
        return None
    return Message(seq, kind, ms, typed)
