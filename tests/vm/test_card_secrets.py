"""The card's secrets after a real first boot, read from the raw boot partition: the Wi-Fi file's password and
Imager's password hash and Wi-Fi key are gone from every cluster of the card, not only from its files.

The card is the virtual Pi's disk, a FAT partition made by the card's own mkfs.vfat line. The owner's files go
onto it through the kernel's vfat, as a computer writes them; first boot is the command the card's unit runs,
on the card mounted as the card's fstab mounts it. Then the host reads every byte of the partition. A file FAT
deletes keeps its clusters as they were: a draft the owner deleted is still there, and the test sees it.
"""

import subprocess

import pytest

from companion.appliance import firstboot, imager
from companion.appliance.bootfiles import WIFI_FILE, WIFI_USED
from conftest import need
from tests.vm import card

# The first test of the folder pays for the machine's build and boot (the session's `pi`): a cold build's time.
pytestmark = [pytest.mark.system, pytest.mark.timeout(3600), pytest.mark.xdist_group("heavy")]

WIFI_PASSWORD = "correct horse battery staple"
PSK = "5e" * 32  # what Imager writes for a passphrase: the PBKDF2 key, 64 hex digits
HASH = "$6$rounds=656000$Cardtest$0k1GSfPq7pVrQ2mXw3Yz9aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567.89abcdefghijklmnopqrst"
SECRETS = {"the Wi-Fi file's password": WIFI_PASSWORD, "Imager's Wi-Fi key": PSK, "Imager's password hash": HASH}
OWNERS_FILES = {
    WIFI_FILE: f"ssid=Our home\npassword={WIFI_PASSWORD}\ncountry=JP\n",
    # Imager 1.8's: a user with a password hash (no ssh asked for), one Wi-Fi network, the instance.
    imager.USER_DATA: f"#cloud-config\nusers:\n- name: bob\n  shell: /bin/bash\n  lock_passwd: false\n"
                      f"  passwd: {HASH}\n",
    imager.NETWORK_CONFIG: f'version: 2\nwifis:\n  wlan0:\n    dhcp4: true\n    regulatory-domain: "GB"\n'
                           f'    access-points:\n      "Home":\n        password: "{PSK}"\n',
    imager.META_DATA: "instance-id: rpi-imager-1733472000000\n",
}
DRAFT = ("draft.txt", "password=a draft the owner deleted\n")
FIRST_BOOT_S = 300  # the program's start under emulation on a loaded host, then a few files


def card_files(pi) -> dict[str, str]:
    """The card's files and their text, as mtools (not the kernel that wrote them) reads the raw partition."""
    tools = {"MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin"}
    names = subprocess.run(["mdir", "-b", "-i", str(pi.card), "::"], capture_output=True, text=True, check=True,
                           env=tools).stdout.split()
    return {name.removeprefix("::/"): subprocess.run(["mtype", "-i", str(pi.card), name], capture_output=True,
                                                     text=True, check=True, env=tools).stdout for name in names}


def test_first_boot_leaves_no_secret_anywhere_on_the_boot_partition(pi):
    need("mdir", "mtype")
    # The owner's computer writes the files, then a draft it deletes, and lets the card go.
    pi.sh(f"mkdir -p {card.BOOT} && {card.MOUNT}")
    for name, text in (*OWNERS_FILES.items(), DRAFT):
        pi.write(f"{card.BOOT}/{name}", text, 0o600)
    pi.sh(f"sync && rm {card.BOOT}/{DRAFT[0]} && umount {card.BOOT}")
    before = pi.card.read_bytes()
    assert [k for k, s in SECRETS.items() if s.encode() not in before] == []  # the raw bytes hold the files' bytes

    pi.sh(card.MOUNT)
    try:
        booted = pi.run(*card.FIRST_BOOT, timeout=FIRST_BOOT_S)
    finally:
        pi.sh(f"umount {card.BOOT}")
    assert booted["rc"] == 0, booted
    after = pi.card.read_bytes()
    assert DRAFT[1].encode() in after  # FAT left the deleted draft's bytes where they lay
    assert {k: after.count(s.encode()) for k, s in SECRETS.items()} == dict.fromkeys(SECRETS, 0)  # times found

    files = card_files(pi)
    assert set(OWNERS_FILES) & set(files) == set()
    assert "ssid=Our home" in files[WIFI_USED] and WIFI_PASSWORD not in files[WIFI_USED]
    assert "user bob" in files[firstboot.IMAGER_USED]
    # The secrets went where the table needs them, on its own root, and nowhere else.
    saved = pi.sh("cat /etc/NetworkManager/system-connections/companion-wifi.nmconnection")
    assert f"psk={WIFI_PASSWORD}" in saved
    assert pi.sh("getent shadow bob").split(":")[1] == HASH
