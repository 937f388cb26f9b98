"""The virtual Pi of tests/vm, built (cached) and booted once for every test of this folder, with the card's
boot partition (empty, as the card's build makes it) as its disk."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import free_port, need_as_root
from tests.vm import card
from tests.vm.machine import VirtualPi

HERE = Path(__file__).resolve().parent
TOOLS = ("qemu-system-x86_64", "mmdebstrap", "depmod", "cpio", "make", "mkfs.vfat")
BUILD_S = 3000  # a cold build: Debian's root and the kernel's sources fetched, three modules compiled


@pytest.fixture(scope="session")
def pi(tmp_path_factory):
    """The virtual Pi, booted, with its agent answering: shared by the tests in file order."""
    need_as_root("building the virtual Pi", TOOLS,
                 "qemu-system-x86 linux-headers-amd64 linux-source-6.1 mmdebstrap kmod cpio dosfstools")
    cache = os.environ.get("COMPANION_VM_CACHE")
    started = time.monotonic()
    built = subprocess.run([str(HERE / "build.sh"), *(["--cache", cache] if cache else [])],
                           capture_output=True, text=True, timeout=BUILD_S)
    assert built.returncode == 0, f"build.sh failed:\n{built.stderr[-4000:]}"
    folder = Path(built.stdout.strip().splitlines()[-1])
    print(f"virtual Pi built in {time.monotonic() - started:.0f} s", file=sys.stderr)
    here = tmp_path_factory.mktemp("vm")
    machine = VirtualPi(folder, here, free_port(), free_port(), card=card.make(here / "card.vfat"))
    print(f"virtual Pi booted ({machine.accelerator}) in {machine.boot_s:.0f} s", file=sys.stderr)
    yield machine
    machine.close()
