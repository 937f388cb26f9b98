"""The card image read from its file alone: the partition table, the boot partition's files (cmdline.txt,
config.txt, the SPI overlay), the root's enabled units, and nothing that would make two tables the same one."""

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]  # the checkout

BOOT_LABEL, ROOT_LABEL = "COMPANION", "companion-root"

pytestmark = [pytest.mark.system, pytest.mark.timeout(3600), pytest.mark.xdist_group("heavy")]


@pytest.fixture(scope="module")
def image(built):
    path = built / "companion-amd64.img"
    table = json.loads(subprocess.run(["sfdisk", "--json", str(path)], capture_output=True, text=True,
                                      check=True).stdout)["partitiontable"]
    return path, table


def boot_file(image, name: str) -> str:
    path, table = image
    offset = table["partitions"][0]["start"] * 512
    return subprocess.run(["mtype", "-i", f"{path}@@{offset}", f"::{name}"], capture_output=True, text=True,
                          check=True, env={"MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin"}).stdout


def boot_file_list(image) -> str:
    path, table = image
    offset = table["partitions"][0]["start"] * 512
    return subprocess.run(["mdir", "-/", "-b", "-i", f"{path}@@{offset}", "::"], capture_output=True, text=True,
                          check=True, env={"MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin"}).stdout


def debugfs(image, request: str) -> str:
    path, table = image
    offset = table["partitions"][1]["start"] * 512
    return subprocess.run(["debugfs", "-R", request, f"{path}?offset={offset}"], capture_output=True, text=True,
                          check=True).stdout


def test_the_card_has_a_fat_boot_partition_then_the_root(image):
    _, table = image
    boot, root = table["partitions"]
    assert table["label"] == "dos" and table["id"] == "0x636f6d70"  # a fixed disk id: two builds agree
    assert (boot["type"], boot.get("bootable"), boot["start"]) == ("c", True, 8192)
    assert root["type"] == "83" and root["start"] == boot["start"] + boot["size"]


def test_the_boot_partition_boots_the_root_by_its_label_with_the_spi_overlay(image):
    cmdline = boot_file(image, "cmdline.txt")
    assert cmdline.count("\n") == 1 and f"root=LABEL={ROOT_LABEL}" in cmdline and "rootwait" in cmdline
    assert "dtoverlay=companion-spi" in boot_file(image, "config.txt").splitlines()
    assert "companion-spi.dtbo" in boot_file_list(image)
    assert "fstab" in debugfs(image, "ls -l /etc")
    fstab = debugfs(image, "cat /etc/fstab")
    assert f"LABEL={ROOT_LABEL} / ext4" in fstab and f"LABEL={BOOT_LABEL} /boot/firmware vfat" in fstab
    # Root's alone: the daemon's user can neither read the Wi-Fi file nor write the firmware, kernel or cmdline.
    assert "uid=0,gid=0,fmask=0177,dmask=0077" in fstab


def test_the_tables_services_are_enabled_and_ssh_is_not(image):
    wanted = debugfs(image, "ls /etc/systemd/system/multi-user.target.wants")
    for unit in ("companion.service", "companion-firstboot.service", "companion-network.service",
                 "companion-setup-code.path", "companion-update.path", "NetworkManager.service",
                 "avahi-daemon.service"):
        assert unit in wanted
    # Masked: the page waits for no network (enabling NetworkManager enables its wait-online, presets or not).
    assert 'Fast link dest: "/dev/null"' in debugfs(image, "stat /etc/systemd/system/NetworkManager-wait-online.service")
    assert "ssh.service" not in wanted and "systemd-networkd" not in wanted
    assert "companion-grow-root.service" in debugfs(image, "ls /etc/systemd/system/sysinit.target.wants")
    config = debugfs(image, "cat /etc/companion/config.toml")
    assert "port = 80" in config
    # The daemon keeps its setup code in its own folder; root puts it on the card (companion-setup-code).
    assert not [line for line in config.splitlines() if line.startswith("setup_code_file")]
    assert "image.conf" not in debugfs(image, "ls /etc/systemd/system/companion.service.d")


def test_no_identity_is_baked_in(image):
    assert "Size: 0" in debugfs(image, "stat /etc/machine-id")  # made at first boot (the presets: at build time)
    assert "ssh_host_" not in debugfs(image, "ls /etc/ssh")
    assert "companion-wifi" not in debugfs(image, "ls /etc/NetworkManager/system-connections")
    assert debugfs(image, "cat /etc/hostname") == "companion\n"


def digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as file:
        while block := file.read(1 << 20):
            sha.update(block)
    return sha.hexdigest()


def test_the_same_inputs_give_the_same_image_byte_for_byte(built, build_image, tmp_path):
    """A second build from the same checkout, lock and wheels: every date, id and file the same, so the same bytes
    (a build's own moments, in ctimes, a temporary folder's name or an empty folder's date, used to differ)."""
    build_image(tmp_path)
    assert digest(tmp_path / "companion-amd64.img") == digest(built / "companion-amd64.img")


def test_the_boot_partition_has_the_serial_the_build_gives_it(image):
    """mkfs.vfat's --invariant used to replace it with its own, 1234-ABCD."""
    import re

    path, table = image
    offset = table["partitions"][0]["start"] * 512
    info = subprocess.run(["minfo", "-i", f"{path}@@{offset}", "::"], capture_output=True, text=True, check=True,
                          env={"MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin"}).stdout
    serial = re.search(r"^BOOT_SERIAL=(\w+)", (ROOT / "systemd/image/build.sh").read_text(), re.M)[1]
    assert f"serial number: {serial.upper()}" in info


def test_one_mdns_responder_no_apt_timers_and_no_group_declared_twice(built, image):
    config = debugfs(image, "cat /etc/companion/config.toml")
    assert "mdns = false" in config  # Avahi announces the table: the daemon's own responder stays off
    assert "companion.service" in debugfs(image, "ls /etc/avahi/services")
    for timer in ("apt-daily.timer", "apt-daily-upgrade.timer"):
        assert 'Fast link dest: "/dev/null"' in debugfs(image, f"stat /etc/systemd/system/{timer}"), timer
    # systemd-sysusers as every boot runs it, on the card's root: the daemon's groups declared once.
    done = subprocess.run(["systemd-sysusers", "--root", str(built / "root-amd64"), "--dry-run"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and "Conflict" not in done.stderr + done.stdout, done.stderr
