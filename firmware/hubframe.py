"""Frames of the hub protocol (PROTOCOL.md): one ASCII line with a sequence number and a CRC.

Pure and small so it runs unchanged on the board (CircuitPython) and on the
host (CPython): no dataclasses, no typing, no I/O.

>>> line = encode(3, "pose", (("ms", 1893), ("ch", 0), ("pose", "b_up")))
>>> line
b'3 pose ms=1893 ch=0 pose=b_up*8A74\\n'
>>> decode(line)
(3, 'pose', {'ms': '1893', 'ch': '0', 'pose': 'b_up'})
>>> decode(line.replace(b"b_up", b"a_up")) is None   # the CRC no longer matches
True
"""

PROTOCOL_VERSION = 1
MAX_LINE = 160  # bytes, including the newline
SEQ_MOD = 65536  # sequence numbers count 0..65535, then start again
MS_WRAP = 1 << 29  # the hub's millisecond clock wraps here (supervisor.ticks_ms)
POSES = ("a_up", "b_up", "side")
BEAM_STATES = ("flowing", "stopped", "none")
_DIGITS = "0123456789"
_WORD = "abcdefghijklmnopqrstuvwxyz_" + _DIGITS
_HEX = _DIGITS + "ABCDEF"


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of `data` (bytes): polynomial 0x1021, initial 0xFFFF.

    >>> "%04X" % crc16(b"123456789")
    '29B1'
    """
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def encode(seq, kind, fields=()):
    """The frame for `kind` with its (key, value) fields, as bytes ending in a newline."""
    parts = [str(seq % SEQ_MOD), kind]
    for key, value in fields:
        parts.append(key + "=" + str(value))
    payload = " ".join(parts).encode()
    return payload + b"*" + ("%04X" % crc16(payload)).encode() + b"\n"


def _is_word(text):
    if not text:
        return False
    for char in text:
        if char not in _WORD:
            return False
    return True


def decode(line):
    """(seq, kind, fields) of one received line (bytes), or None if the frame is bad.

    Field values stay text: what a kind needs, and their ranges, are checked
    by whoever reads that kind.
    """
    if len(line) > MAX_LINE:
        return None
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    for byte in line:
        if byte < 0x20 or byte > 0x7E:
            return None
    text = line.decode()
    star = text.rfind("*")
    if star < 0 or len(text) - star != 5:
        return None
    payload, crc = text[:star], text[star + 1:]
    for char in crc:
        if char not in _HEX:
            return None
    if int(crc, 16) != crc16(payload.encode()):
        return None
    parts = payload.split(" ")
    if len(parts) < 2 or len(parts[0]) > 5 or not _is_word(parts[0]) or not _is_word(parts[1]):
        return None
    for char in parts[0]:
        if char not in _DIGITS:
            return None
    seq = int(parts[0])
    if seq >= SEQ_MOD:
        return None
    fields = {}
    for part in parts[2:]:
        key, eq, value = part.partition("=")
        if not eq or not _is_word(key) or not value or "=" in value or key in fields:
            return None
        for char in value:
            if char == "*":
                return None
        fields[key] = value
    return seq, parts[1], fields


def seq_after(seq, last):
    """How far `seq` is ahead of `last`: 1 is the next frame, 0 or less a duplicate or late one.

    >>> seq_after(0, 65535), seq_after(7, 7), seq_after(5, 9)
    (1, 0, -4)
    """
    ahead = (seq - last) % SEQ_MOD
    return ahead if ahead < SEQ_MOD // 2 else ahead - SEQ_MOD


def ms_since(ms, earlier):
    """Milliseconds from `earlier` to `ms` on the hub's wrapping clock."""
    return (ms - earlier) % MS_WRAP
