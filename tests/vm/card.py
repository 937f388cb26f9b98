"""The card's boot partition for the virtual Pi, read from the card's own recipe rather than restated here.

`make(path)` runs the mkfs.vfat line of systemd/image/build.sh (the card's label, FAT serial and size);
`MOUNT` is how the card's fstab mounts it (where, and with which options); `FIRST_BOOT` is the command the
card's companion-firstboot unit runs at every boot.
"""

import os
import re
import shlex
import subprocess
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]
RECIPE = (SOURCE / "systemd/image/build.sh").read_text()
UNIT = (SOURCE / "systemd/image/files/etc/systemd/system/companion-firstboot.service").read_text()


def setting(name: str) -> str:
    return re.search(rf"^{name}=(\S+)", RECIPE, re.M)[1]


LABEL = setting("BOOT_LABEL")
_fstab = re.search(r"^LABEL=\$BOOT_LABEL (\S+) vfat (\S+) ", RECIPE, re.M)
MOUNT = f"mount -t vfat -o {_fstab[2]} LABEL={LABEL} {_fstab[1]}"
BOOT = _fstab[1]
FIRST_BOOT = shlex.split(re.search(r"^ExecStart=(.+)$", UNIT, re.M)[1])


def make(path: Path) -> Path:
    """An empty boot partition in `path`, made as the card's build makes it (sparse: its size costs no disk)."""
    command = next(line.strip() for line in RECIPE.splitlines() if line.strip().startswith("mkfs.vfat "))
    names = {name: setting(name) for name in ("BOOT_LABEL", "BOOT_SERIAL", "BOOT_MIB")}
    subprocess.run(["sh", "-c", command], env={**names, "boot": str(path), "PATH": os.environ["PATH"]},
                   check=True, capture_output=True, timeout=120)
    return path
