"""The card image the image tests (test_image_*.py) read: the amd64 build of systemd/image/build.sh (the same
recipe as the Pi's arm64 image, without kernel and firmware), made once per test run, its Debian base cached
under ~/.cache/companion/image as build.sh caches it."""

import fcntl
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import need_as_root

ROOT = Path(__file__).resolve().parents[2]

CACHE = Path(os.environ.get("COMPANION_IMAGE_CACHE", Path.home() / ".cache/companion/image"))
TOOLS = ("mmdebstrap", "sfdisk", "mkfs.ext4", "mkfs.vfat", "mcopy", "mtype", "debugfs", "dtc", "systemd-nspawn",
         "nsenter")


def build(out: Path) -> None:
    """build.sh's amd64 image (no xz) in `out`, one build at a time on this machine (they share the cache)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".build", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        started = time.monotonic()
        done = subprocess.run([str(ROOT / "systemd/image/build.sh"), "--arch", "amd64", "--no-xz", "--out", str(out),
                               "--cache", str(CACHE)], capture_output=True, text=True, timeout=3000)
        assert done.returncode == 0, f"build.sh failed:\n{done.stderr[-4000:]}"
        print(f"amd64 image built in {time.monotonic() - started:.0f} s", file=sys.stderr)


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    """The build's output folder: companion-amd64.img and the root it was assembled from (root-amd64)."""
    need_as_root("building the image", TOOLS,
                 "mmdebstrap fdisk e2fsprogs dosfstools mtools device-tree-compiler systemd-container")
    out = tmp_path_factory.mktemp("image")
    build(out)
    yield out
    shutil.rmtree(out, ignore_errors=True)


@pytest.fixture(scope="session")
def build_image():
    """The call that builds the image again, into a folder of the caller's."""
    return build
