"""The release folder an owner downloads from: Imager's repository file and the checksums, checked against the
files themselves (sizes and digests computed here with sha256sum and xz, not with the module's own reader)."""

import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion import release_folder

ROOT = Path(__file__).resolve().parents[2]
URL = "https://tables.example.org/companion/0.1.0"


@pytest.fixture
def folder(tmp_path):
    """A release folder with a small card in it (its bytes anything: a card is read as bytes)."""
    card = os.urandom(3 << 20) + b"\0" * (5 << 20)
    (tmp_path / "companion-arm64.img.xz").write_bytes(lzma.compress(card, format=lzma.FORMAT_XZ))
    (tmp_path / "companion-0.1.0.release").write_bytes(b"the program and its wheels")
    return tmp_path


def sha256sum(path: Path) -> str:
    return subprocess.run(["sha256sum", str(path)], capture_output=True, text=True, check=True).stdout.split()[0]


def test_the_imager_list_describes_each_card_as_the_files_are(folder):
    assert subprocess.run([sys.executable, str(ROOT / "companion/release_folder.py"), str(folder), URL, "2026-12-06"]).returncode == 0
    listing = json.loads((folder / release_folder.REPOSITORY).read_text())
    [entry] = listing["os_list"]
    card = folder / "companion-arm64.img.xz"
    unpacked = subprocess.run(["xz", "-dc", str(card)], capture_output=True, check=True).stdout
    import hashlib

    assert entry["url"] == f"{URL}/companion-arm64.img.xz" and entry["icon"] == f"{URL}/{release_folder.ICON}"
    assert entry["image_download_size"] == card.stat().st_size and entry["image_download_sha256"] == sha256sum(card)
    assert entry["extract_size"] == len(unpacked) and entry["extract_sha256"] == hashlib.sha256(unpacked).hexdigest()
    assert entry["release_date"] == "2026-12-06" and entry["init_format"] in ("cloudinit", "cloudinit-rpi", "systemd")
    # Imager's schema: each of these is required; its board filter needs the tags listed under imager.devices.
    for field in ("name", "description", "icon", "url", "extract_size", "extract_sha256", "image_download_size",
                  "release_date", "devices"):
        assert entry[field], field
    tags = {tag for board in listing["imager"]["devices"] for tag in board["tags"]}
    assert set(entry["devices"]) <= tags and "pi4-64bit" in entry["devices"]


def test_the_checksums_cover_every_file_and_sha256sum_agrees(folder):
    release_folder.write(folder, URL, "2026-12-06")
    checked = subprocess.run(["sha256sum", "-c", release_folder.SUMS], cwd=folder, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    listed = {line.split("  ", 1)[1] for line in (folder / release_folder.SUMS).read_text().splitlines()}
    assert listed == {p.name for p in folder.iterdir()} - {release_folder.SUMS}


@pytest.mark.parametrize("url, files, why", [
    ("tables.example.org/x", ["companion-arm64.img.xz"], "http(s)://"),
    (URL, ["notes.txt"], "no card"),
])
def test_a_folder_that_cannot_be_listed_says_why(tmp_path, url, files, why):
    for name in files:
        (tmp_path / name).write_bytes(lzma.compress(b"x"))
    done = subprocess.run([sys.executable, str(ROOT / "companion/release_folder.py"), str(tmp_path), url],
                          capture_output=True, text=True)
    assert done.returncode == 2 and why in done.stderr and done.stderr.count("\n") == 1
    assert not (tmp_path / release_folder.REPOSITORY).exists()


def test_the_release_command_asks_for_the_folders_address_first(tmp_path):
    release = ROOT / "systemd/image/release.sh"
    for args, why in (([], "--url"), (["--url", URL, "--arch", "amd64"], "Pi's card")):
        done = subprocess.run(["sh", str(release), "--out", str(tmp_path), *args], capture_output=True, text=True)
        assert done.returncode == 2 and why in done.stderr, done.stderr
    assert not any(tmp_path.iterdir())  # nothing built, nothing half made
