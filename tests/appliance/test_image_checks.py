"""A card that checks itself, read from the image and the recipe: the root's file system checked at every boot
(fsck in the initramfs, nothing on the kernel's command line that skips it), one mDNS responder, no group declared
twice for systemd-sysusers, no apt timer fetching lists for upgrades nothing installs, and the ids the docs give."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.appliance.initramfs import names

ROOT = Path(__file__).resolve().parents[2]
BUILD = (ROOT / "systemd/image/build.sh").read_text()
ARM64 = Path(os.environ.get("COMPANION_ARM64_IMAGE", ROOT / "build/image/companion-arm64.img"))


def setting(name: str) -> str:
    return re.search(rf"^{name}=(\S+)", BUILD, re.M)[1]


def test_the_documented_boot_serial_is_the_builds():
    serial = setting("BOOT_SERIAL").upper()
    for page in ("docs/image.md", "docs/image.ja.md"):
        assert f"{serial[:4]}-{serial[4:]}" in (ROOT / page).read_text(), page
    # mkfs.vfat's --invariant sets a serial of its own: given after -i, it replaced the card's.
    command = next(line for line in BUILD.splitlines() if line.strip().startswith("mkfs.vfat"))
    assert command.index("--invariant") < command.index("-i ")


def test_the_initramfs_is_told_the_roots_type_before_the_kernel_is_installed():
    conf = (ROOT / "systemd/image/initramfs.conf").read_text()
    assert re.search(r"^FSTYPE=ext4$", conf, re.M)
    assert " / ext4 " in BUILD  # the root that fstab mounts is the type the initramfs checks
    assert "conf.d" in next(line for line in BUILD.splitlines() if "INITRAMFS_CONF" in line and "setup-hook" in line)


def newc(members: dict[str, bytes]) -> bytes:
    """A cpio archive in the kernel's format, written here from its specification (not by the reader's code)."""
    out = b""
    for ino, (name, body) in enumerate([*members.items(), ("TRAILER!!!", b"")], 1):
        raw = name.encode() + b"\0"
        fields = [ino, 0o100755 if body else 0, 0, 0, 1, 0, len(body), 0, 0, 0, 0, len(raw), 0]
        header = b"070701" + b"".join(b"%08X" % f for f in fields) + raw
        out += header + b"\0" * (-len(header) % 4) + body + b"\0" * (-len(body) % 4)
    return out


def test_the_initramfs_reader_lists_an_early_archive_and_a_compressed_one(tmp_path):
    import gzip

    early = newc({"kernel/x86/microcode/a.bin": b"u"})
    main = gzip.compress(newc({"usr/sbin/fsck": b"#!", "usr/sbin/fsck.ext4": b"e2", "init": b"#!/bin/sh"}))
    path = tmp_path / "initrd.img"
    path.write_bytes(early + b"\0" * 512 + main)
    assert {"kernel/x86/microcode/a.bin", "usr/sbin/fsck", "usr/sbin/fsck.ext4", "init"} <= set(names(path))


@pytest.mark.system
@pytest.mark.skipif(not ARM64.exists(), reason=f"no arm64 card at {ARM64} (systemd/image/build.sh --arch arm64)")
def test_the_pi_cards_initramfs_carries_fsck_and_its_command_line_lets_it_check(tmp_path):
    table = subprocess.run(["sfdisk", "--json", str(ARM64)], capture_output=True, text=True, check=True).stdout
    start = int(re.search(r'"start":\s*(\d+)', table)[1]) * 512
    env = {"MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin"}
    listing = subprocess.run(["mdir", "-b", "-i", f"{ARM64}@@{start}", "::"], capture_output=True, text=True,
                             check=True, env=env).stdout
    initrds = sorted(line.split("/")[-1] for line in listing.split() if "initrd.img" in line)
    assert initrds, listing
    subprocess.run(["mcopy", "-i", f"{ARM64}@@{start}", f"::{initrds[-1]}", str(tmp_path / "initrd")], check=True, env=env)
    inside = set(names(tmp_path / "initrd"))
    assert {"usr/sbin/fsck", "usr/sbin/fsck.ext4"} <= inside or {"sbin/fsck", "sbin/fsck.ext4"} <= inside
    cmdline = subprocess.run(["mtype", "-i", f"{ARM64}@@{start}", "::cmdline.txt"], capture_output=True, text=True,
                             check=True, env=env).stdout.split()
    assert "fsck.repair=yes" in cmdline and not {"fsck.mode=skip", "fastboot"} & set(cmdline)


def test_the_guides_install_line_brings_everything_the_build_checks_for():
    """The build's tool check names its Debian packages; the guide's apt-get line must bring each of them, and
    the build's other needs (pip, qemu under binfmt_misc for another processor) are checked and said."""
    wanted = set(re.search(r'^INSTALL="apt-get install ([^"]+)"', BUILD, re.M)[1].split())
    assert {"python3-pip"} <= wanted and "python3 -m pip --version" in BUILD and "binfmt_misc" in BUILD
    for page in ("docs/raspberry-pi.md", "docs/raspberry-pi.ja.md"):
        text = (ROOT / page).read_text()
        line = text[text.index("sudo apt-get install mmdebstrap"):]
        line = line[:line.index("\n", line.index("\n") + 1)]  # the command and its continued line
        assert wanted <= set(line.replace("\\", " ").split()), (page, wanted - set(line.split()))
        assert "binfmt_misc" in text, page
