"""The card image's root booted under systemd-nspawn with what Raspberry Pi Imager writes for a custom image
instead of the Wi-Fi file: the table takes Imager's name, Wi-Fi and user, the user's key logs in over ssh and a
password does not (Imager did not ask for passwords), root's password stays locked, and a request file on the
card reopens setup with its new code written back to the card. A second card asks for password logins and
carries an authorized_keys file: the user's password logs in, and root logs in by that key."""

import os
import subprocess

import pytest

from companion.appliance import firstboot, setupcode
from companion.table.firstrun import is_code

from .test_image_boot import Table, until

pytestmark = [pytest.mark.system, pytest.mark.timeout(3600), pytest.mark.xdist_group("heavy")]

MACHINE = "cardlogin"  # its own name (and veth), so that it may boot beside test_image_boot's table
PASSWORDS_MACHINE = "cardpass"
PASSWORD = "correct horse battery"
PSK = "5d" * 32


def user_data(key: str | None, password_hash: str) -> str:
    """As Imager 2.x writes it for a custom image: a name, a user with a key (or none, and password logins) and
    a password, ssh on."""
    keys = f"  ssh_authorized_keys:\n    - {key}\n  sudo: ALL=(ALL) NOPASSWD:ALL\n" if key else ""
    return (f"#cloud-config\nhostname: red-table\nmanage_etc_hosts: true\npackages:\n- avahi-daemon\napt:\n"
            f"  conf: |\n    Acquire {{\n      Check-Date \"false\";\n    }};\ntimezone: Asia/Tokyo\n"
            f"keyboard:\n  model: pc105\n  layout: \"jp\"\nenable_ssh: true\nusers:\n- name: ann\n"
            f"  groups: users,adm,dialout,audio,netdev,video,plugdev,cdrom,games,input,gpio,spi,i2c,render,sudo\n"
            f"  shell: /bin/bash\n  lock_passwd: false\n  passwd: {password_hash}\n{keys}"
            + ("" if key else "ssh_pwauth: true\n"))


NETWORK_CONFIG = (f'network:\n  version: 2\n  wifis:\n    wlan0:\n      dhcp4: true\n      regulatory-domain: "GB"\n'
                  f'      access-points:\n        "Our home":\n          password: "{PSK}"\n      optional: true\n')


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """A person's key pair and password hash, made on the computer Imager runs on."""
    keys = tmp_path_factory.mktemp("keys")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ann@laptop", "-f", str(keys / "id")],
                   check=True)
    password_hash = subprocess.run(["openssl", "passwd", "-6", "-stdin"], input=PASSWORD, capture_output=True,
                                   text=True, check=True).stdout.strip()
    return keys, password_hash


def boot_card(built, tmp_path_factory, machine: str, files: dict, private_key: str):
    boot = tmp_path_factory.mktemp("boot")
    os.chown(boot, 0, 0)
    boot.chmod(0o700)
    (boot / "cmdline.txt").write_text("console=tty1 root=LABEL=companion-root rootwait\n")
    for name, text in files.items():
        (boot / name).write_text(text)
    drop_in = tmp_path_factory.mktemp("drop-in")
    (drop_in / "fake.conf").write_text(
        "[Service]\nEnvironment=COMPANION_NETWORK=fake:/run/companion-fake-network.json\nReadWritePaths=/run\n")
    box = Table(built / "root-amd64", boot, drop_in, tmp_path_factory.mktemp("log") / "console.log", machine)
    try:
        until("companion-firstboot", lambda: box.run("systemctl", "is-active", "companion-firstboot.service",
                                                     check=False).stdout.strip() == "active")
        box.run("sh", "-c", "umask 077; mkdir -p /root/client; cat > /root/client/id", stdin=private_key)
        box.run("sh", "-c", f"printf '#!/bin/sh\\necho \"{PASSWORD}\"\\n' > /root/client/askpass; "
                            "chmod 700 /root/client/askpass")
        until("sshd", lambda: box.run("systemctl", "is-active", "ssh.service", check=False).stdout.strip() == "active")
    except BaseException:
        box.close()
        raise
    return box, boot


@pytest.fixture(scope="module")
def table(built, tmp_path_factory, client):
    keys, password_hash = client
    box, boot = boot_card(built, tmp_path_factory, MACHINE, {
        "user-data": user_data((keys / "id.pub").read_text().strip(), password_hash),
        "network-config": NETWORK_CONFIG, "meta-data": "instance-id: rpi-imager-1733472000000\n",
        setupcode.REOPEN_FILE: ""}, (keys / "id").read_text())
    try:
        yield box, boot, password_hash
    finally:
        box.close()


@pytest.fixture(scope="module")
def passwords_table(built, tmp_path_factory, client):
    keys, password_hash = client
    box, boot = boot_card(built, tmp_path_factory, PASSWORDS_MACHINE, {
        "user-data": user_data(None, password_hash), firstboot.AUTHORIZED_KEYS: (keys / "id.pub").read_text()},
        (keys / "id").read_text())
    try:
        yield box, boot
    finally:
        box.close()


ASKPASS = "SSH_ASKPASS=/root/client/askpass SSH_ASKPASS_REQUIRE=force DISPLAY=none"
BY_PASSWORD = ("-o", "PreferredAuthentications=password,keyboard-interactive", "-o", "PubkeyAuthentication=no",
               "-o", "NumberOfPasswordPrompts=1")


def ssh(box, user: str, *options: str, env: str = "") -> subprocess.CompletedProcess:
    return box.run("sh", "-c", f"{env} setsid -w ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
                               f"-o ConnectTimeout=20 {' '.join(options)} {user}@127.0.0.1 id -un </dev/null",
                   check=False)


def test_imagers_name_wifi_and_user_are_the_tables(table):
    box, boot, password_hash = table
    assert box.run("cat", "/etc/hostname").stdout == "red-table\n"
    saved = box.run("cat", "/etc/NetworkManager/system-connections/companion-wifi.nmconnection").stdout
    assert "ssid=Our home" in saved and f"psk={PSK}" in saved
    assert box.run("getent", "passwd", "ann").stdout.rstrip().endswith(":/home/ann:/bin/bash")
    assert f"ann:{password_hash}:" in box.run("getent", "shadow", "ann").stdout  # the hash Imager gave, as given
    assert box.run("getent", "shadow", "root").stdout.split(":")[1].startswith(("!", "*"))  # root: no password
    assert not any((boot / name).exists() for name in ("user-data", "network-config", "meta-data"))
    used = (boot / firstboot.IMAGER_USED).read_text()
    assert "user ann: 1 key(s), a password from Imager" in used and password_hash not in used and PSK not in used
    assert not (boot / firstboot.IMAGER_ERROR).exists()


def test_imagers_time_zone_and_keyboard_are_the_cards_with_debians_own_data(table):
    box, _, _ = table
    assert box.run("cat", "/etc/timezone").stdout == "Asia/Tokyo\n"
    assert box.run("date", "+%Z").stdout.strip() == "JST"  # tzdata's zone, as the daemon's night reads it
    assert box.run("python3", "-c", "import time; print(time.timezone)").stdout.strip() == str(-9 * 3600)
    assert 'XKBLAYOUT="jp"' in box.run("cat", "/etc/default/keyboard").stdout
    assert box.run("systemctl", "is-enabled", "keyboard-setup.service").stdout.strip() == "enabled"


def test_the_users_key_logs_in_and_a_password_is_not_even_offered(table):
    box, _, _ = table
    effective = box.run("sshd", "-T").stdout.splitlines()
    assert "passwordauthentication no" in effective and "permitrootlogin without-password" in effective
    assert "kbdinteractiveauthentication no" in effective
    by_key = ssh(box, "ann", "-i", "/root/client/id", "-o", "BatchMode=yes")
    assert (by_key.returncode, by_key.stdout.strip()) == (0, "ann"), by_key.stderr
    by_password = ssh(box, "ann", *BY_PASSWORD, env=ASKPASS)
    assert by_password.returncode != 0 and "Permission denied (publickey)" in by_password.stderr
    root_by_key = ssh(box, "root", "-i", "/root/client/id", "-o", "BatchMode=yes")
    assert root_by_key.returncode != 0  # the user's key is the user's: root has no key from Imager


def test_the_request_on_the_card_reopened_setup_and_wrote_the_new_code_back(table):
    box, boot, _ = table
    card = (boot / setupcode.CODE_FILE).read_text().strip()
    assert is_code(card) and box.run("cat", "/var/lib/companion/setup-code").stdout.strip() == card
    assert not (boot / setupcode.REOPEN_FILE).exists() and not (boot / setupcode.REOPEN_ERROR).exists()
    assert "set_up = false" in box.run("cat", "/etc/companion/config.toml").stdout


def test_when_imager_asked_for_passwords_the_users_password_logs_in_and_roots_key_from_the_card(passwords_table):
    box, boot = passwords_table
    assert "passwordauthentication yes" in box.run("sshd", "-T").stdout.splitlines()
    by_password = ssh(box, "ann", *BY_PASSWORD, env=ASKPASS)
    assert (by_password.returncode, by_password.stdout.strip()) == (0, "ann"), by_password.stderr
    box.run("sh", "-c", "printf '#!/bin/sh\\necho wrong-horse\\n' > /root/client/wrong; chmod 700 /root/client/wrong")
    wrong = ssh(box, "ann", *BY_PASSWORD, env=ASKPASS.replace("/root/client/askpass", "/root/client/wrong"))
    assert wrong.returncode != 0 and "Permission denied" in wrong.stderr
    root_by_key = ssh(box, "root", "-i", "/root/client/id", "-o", "BatchMode=yes")
    assert (root_by_key.returncode, root_by_key.stdout.strip()) == (0, "root"), root_by_key.stderr
    root_by_password = ssh(box, "root", *BY_PASSWORD, env=ASKPASS)
    assert root_by_password.returncode != 0  # root has no password, and would not be let in by one
    assert not (boot / firstboot.AUTHORIZED_KEYS).exists() and not (boot / firstboot.SSH_ERROR).exists()
