"""The names inside an initramfs, read as the kernel reads it: cpio archives in the "newc" format one after the
other (an uncompressed early one may come first), the last one compressed (gzip, xz, or zstd with its program)."""

import gzip
import lzma
import subprocess
from pathlib import Path

MAGIC = b"070701"
HEADER = 110  # the magic and thirteen fields of eight hex digits


def _archive(data: bytes, at: int) -> tuple[list[str], int]:
    """The names of the cpio archive at `at`, and where it ends."""
    names = []
    while True:
        if data[at:at + 6] != MAGIC:
            raise ValueError(f"no cpio header at byte {at}")
        size, name_size = int(data[at + 54:at + 62], 16), int(data[at + 94:at + 102], 16)
        name = data[at + HEADER:at + HEADER + name_size - 1].decode()
        at += HEADER + name_size
        at += -at % 4
        at += size + (-size % 4)
        if name == "TRAILER!!!":
            return names, at
        names.append(name)


def _decompressed(data: bytes) -> bytes:
    if data.startswith(b"\x1f\x8b"):
        return gzip.decompress(data)
    if data.startswith(b"\xfd7zXZ"):
        return lzma.decompress(data)
    if data.startswith(b"\x28\xb5\x2f\xfd"):
        return subprocess.run(["zstd", "-dcq"], input=data, capture_output=True, check=True).stdout
    raise ValueError(f"unknown compression {data[:4].hex()}")


def names(path: Path) -> list[str]:
    data, at, found = Path(path).read_bytes(), 0, []
    while at < len(data):
        while at < len(data) and data[at] == 0:
            at += 1
        if at >= len(data):
            break
        if data[at:at + 6] == MAGIC:
            more, at = _archive(data, at)
            found += more
        else:
            data, at = _decompressed(data[at:]), 0
    return found
