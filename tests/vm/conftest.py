"""The virtual Pi of tests/vm, built (cached) and booted once for every test of this folder."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import free_port
from tests.vm.machine import VirtualPi

HERE = Path(__file__).resolve().parent
TOOLS = ("qemu-system-x86_64", "mmdebstrap", "depmod", "cpio", "make")
BUILD_S = 3000  # a cold build: Debian's root and the kernel's sources fetched, three modules compiled


def missing() -> str | None:
    if os.geteuid() != 0:
        return "building the virtual Pi needs root"
    absent = [t for t in TOOLS if shutil.which(t) is None]
    if absent:
        return (f"not installed: {' '.join(absent)} (Debian packages qemu-system-x86 linux-headers-amd64 "
                "linux-source-6.1 mmdebstrap kmod cpio)")
    return None


@pytest.fixture(scope="session")
def pi(tmp_path_factory):
    """The virtual Pi, booted, with its agent answering: shared by the tests in file order."""
    reason = missing()
    if reason:
        if os.environ.get("COMPANION_REQUIRE_TOOLS") == "1":
            pytest.fail(f"required (COMPANION_REQUIRE_TOOLS=1): {reason}")
        pytest.skip(reason)
    cache = os.environ.get("COMPANION_VM_CACHE")
    started = time.monotonic()
    built = subprocess.run([str(HERE / "build.sh"), *(["--cache", cache] if cache else [])],
                           capture_output=True, text=True, timeout=BUILD_S)
    assert built.returncode == 0, f"build.sh failed:\n{built.stderr[-4000:]}"
    folder = Path(built.stdout.strip().splitlines()[-1])
    print(f"virtual Pi built in {time.monotonic() - started:.0f} s", file=sys.stderr)
    machine = VirtualPi(folder, tmp_path_factory.mktemp("vm"), free_port(), free_port())
    print(f"virtual Pi booted ({machine.accelerator}) in {machine.boot_s:.0f} s", file=sys.stderr)
    yield machine
    machine.close()
