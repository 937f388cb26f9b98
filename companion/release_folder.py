"""A folder of card releases made ready to host: its checksums and Raspberry Pi Imager's repository file.

`systemd/image/release.sh` builds the cards into a folder; this writes, beside them, `SHA256SUMS` (every file, in
sha256sum's format) and `companion-imager.json`, the list Imager reads from a "custom repository": one entry per
card, with its address under the folder's URL, its sizes and digests compressed and not, the boards it runs on,
and the customisation format, so Imager shows its settings form for the card (docs/image.md, "A release").

It uses the standard library alone, so it runs from a checkout before anything is installed:
`python3 companion/release_folder.py FOLDER URL`.

>>> entry_name("companion-arm64.img.xz")
'Hourglass table companion (64-bit)'
"""

import hashlib
import json
import lzma
import os
import re
import shutil
import sys
import time
from pathlib import Path

SUMS = "SHA256SUMS"
REPOSITORY = "companion-imager.json"
ICON = "companion.svg"  # copied into the folder beside the cards: Imager shows it in its list
ICON_SOURCE = Path(__file__).resolve().parent / "web/static/favicon.svg"  # the table's own, as its pages show it
CARD = re.compile(r"^companion-(?P<arch>arm64)\.img\.xz$")  # the cards Imager can write (the amd64 root is the tests')
# Customisation as cloud-init's user-data and network-config on the boot partition, which the card's first boot
# reads. Not "cloudinit-rpi": Imager 1.x takes a format it does not know for "systemd" and would point cmdline.txt
# at a firstrun.sh the card never runs; "cloudinit" is written alike by Imager 1.x and 2.x.
INIT_FORMAT = "cloudinit"
# Imager's board tags (its own list's): the card runs on the Pi 3 and the Pi 4 family in 64-bit mode.
DEVICES = ("pi4-64bit", "pi3-64bit")
BOARDS = (
    {"name": "Raspberry Pi 4", "tags": ["pi4-64bit", "pi4-32bit"], "description": "Raspberry Pi 4 Model B and 400",
     "matching_type": "inclusive"},
    {"name": "Raspberry Pi 3", "tags": ["pi3-64bit", "pi3-32bit"], "description": "Raspberry Pi 3 Model A+, B and B+",
     "matching_type": "inclusive"},
)
DESCRIPTION = "The hourglass table's card: open http://companion.local/ on a phone after the first boot."
BLOCK = 1 << 20


class ReleaseFolderError(Exception):
    """The folder cannot be listed for Imager: the message says why, in a line."""


def entry_name(card: str) -> str:
    bits = {"arm64": "64-bit"}[CARD.match(card)["arch"]]
    return f"Hourglass table companion ({bits})"


def digests(path: Path, *, unpack: bool = False) -> tuple[int, str]:
    """The size and SHA-256 of a file, or of what it unpacks to (an .xz read as a stream, never whole in memory)."""
    sha, size = hashlib.sha256(), 0
    with open(path, "rb") as raw:
        source = lzma.open(raw) if unpack else raw
        while block := source.read(BLOCK):
            sha.update(block)
            size += len(block)
    return size, sha.hexdigest()


def card_entry(card: Path, url: str, released: str) -> dict:
    """Imager's entry for one card: where it is, how big and which digest, compressed and unpacked."""
    download_size, download_sha = digests(card)
    extract_size, extract_sha = digests(card, unpack=True)
    return {
        "name": entry_name(card.name), "description": DESCRIPTION, "icon": f"{url}/{ICON}", "url": f"{url}/{card.name}",
        "release_date": released, "extract_size": extract_size, "extract_sha256": extract_sha,
        "image_download_size": download_size, "image_download_sha256": download_sha,
        "devices": list(DEVICES), "init_format": INIT_FORMAT,
    }


def repository(folder: Path, url: str, released: str) -> dict:
    """Imager's repository file for the cards in `folder`, hosted at `url`."""
    if not re.match(r"^https?://[^\s/]+", url):
        raise ReleaseFolderError(f"{url!r}: the folder's address on its web server, as http(s)://HOST/PATH")
    cards = sorted(p for p in Path(folder).iterdir() if CARD.match(p.name))
    if not cards:
        raise ReleaseFolderError(f"{folder}: no card (companion-arm64.img.xz) to list")
    url = url.rstrip("/")
    return {"imager": {"devices": [dict(board) for board in BOARDS]},
            "os_list": [card_entry(card, url, released) for card in cards]}


def sums(folder: Path) -> str:
    """sha256sum's lines for every file in the folder but the sums themselves (`sha256sum -c SHA256SUMS`)."""
    return "".join(f"{digests(p)[1]}  {p.name}\n" for p in sorted(Path(folder).iterdir())
                   if p.is_file() and p.name != SUMS)


def write(folder: Path, url: str, released: str) -> None:
    """The repository file, then the sums over everything (the repository file among them)."""
    folder = Path(folder)
    listing = json.dumps(repository(folder, url, released), indent=2) + "\n"
    shutil.copyfile(ICON_SOURCE, folder / ICON)
    (folder / REPOSITORY).write_text(listing, encoding="utf-8")
    (folder / SUMS).write_text(sums(folder), encoding="utf-8")


def main(argv: list[str]) -> int:
    """FOLDER URL [DATE]: the date is SOURCE_DATE_EPOCH's day when not given (the same inputs, the same files)."""
    if len(argv) not in (2, 3):
        print("usage: python3 companion/release_folder.py FOLDER URL [YYYY-MM-DD]", file=sys.stderr)
        return 2
    folder, url = Path(argv[0]), argv[1]
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH") or time.time())
    released = argv[2] if len(argv) == 3 else time.strftime("%Y-%m-%d", time.gmtime(epoch))
    try:
        write(folder, url, released)
    except (ReleaseFolderError, OSError, lzma.LZMAError) as e:
        print(f"release_folder.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
