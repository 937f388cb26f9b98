"""Raspberry Pi Imager's OS customisation on the card, without a card: the files Imager 1.8 and 2.x write for a
custom image (cloud-init's user-data, network-config and meta-data; firstrun.sh for the systemd format) read
as data, applied at first boot all together or not at all, their secrets overwritten before they go; the
`authorized_keys` file; the request that reopens setup."""

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from companion.appliance import cloudyaml, firstboot, imager, login, setupcode
from companion.errors import BadInput

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ann@laptop"
KEY2 = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 ann@desk"
HASH = ("$6$rounds=656000$YQKnW9Q1$e0W2b9J4U1P3Jv4q6N8aXhJ3Qv7Qd1l0yR9y1bT5Cq3O7fL0uZb8m3wH2kS6pA9sD4f"
        "G1hJ7kL2zX5cV8bN0m.")
PSK = "a3" * 32  # what Imager writes for a passphrase: the PBKDF2 key, 64 hex digits
# Imager 2.x (customization_generator.cpp), a custom image: hostname, locale, a user with keys, ssh on.
USER_DATA = f"""#cloud-config
hostname: red-table
manage_etc_hosts: true
packages:
- avahi-daemon
apt:
  conf: |
    Acquire {{
      Check-Date "false";
    }};
timezone: Europe/London
keyboard:
  model: pc105
  layout: "gb"
enable_ssh: true
users:
- name: ann
  groups: users,adm,dialout,audio,netdev,video,plugdev,cdrom,games,input,gpio,spi,i2c,render,sudo
  shell: /bin/bash
  lock_passwd: true
  ssh_authorized_keys:
    - {KEY}
    - {KEY2}
  sudo: ALL=(ALL) NOPASSWD:ALL
"""
NETWORK_CONFIG = f"""network:
  version: 2
  wifis:
    wlan0:
      dhcp4: true
      regulatory-domain: "GB"
      access-points:
        "Our \\"home\\" $(reboot)":
          hidden: true
          password: "{PSK}"
      optional: true
"""
META_DATA = "instance-id: rpi-imager-1733472000000\n"
# Imager 1.8 (OptionsPopup.qml): a user with a password hash, password logins, the network without its wrapper
# and its country on the kernel's command line.
USER_DATA_18 = f"""#cloud-config
users:
- name: bob
  groups: users,adm,dialout,audio,netdev,video,plugdev,cdrom,games,input,gpio,spi,i2c,render,sudo
  shell: /bin/bash
  lock_passwd: false
  passwd: {HASH}

ssh_pwauth: true

"""
NETWORK_CONFIG_18 = f"""version: 2
wifis:
  renderer: networkd
  wlan0:
    dhcp4: true
    optional: true
    access-points:
      "Home":
        password: "{PSK}"
"""
CMDLINE = "console=tty1 root=LABEL=companion-root rw fsck.repair=yes rootwait"
FIRSTRUN = f"""#!/bin/sh

set +e

CURRENT_HOSTNAME=$(cat /etc/hostname | tr -d " \\t\\n\\r")
if [ -f /usr/lib/raspberrypi-sys-mods/imager_custom ]; then
   /usr/lib/raspberrypi-sys-mods/imager_custom set_hostname blue-table
else
   echo blue-table >/etc/hostname
fi
FIRSTUSER=$(getent passwd 1000 | cut -d: -f1)
if [ -f /usr/lib/raspberrypi-sys-mods/imager_custom ]; then
   /usr/lib/raspberrypi-sys-mods/imager_custom enable_ssh -k '{KEY}'
else
   touch MARKER
fi
if [ -f /usr/lib/userconf-pi/userconf ]; then
   /usr/lib/userconf-pi/userconf 'cat' '{HASH}'
fi
if [ -f /usr/lib/raspberrypi-sys-mods/imager_custom ]; then
   /usr/lib/raspberrypi-sys-mods/imager_custom set_wlan  -h 'Cat'"'"'s net' '{PSK}' 'JP'
fi
if [ -f /usr/lib/raspberrypi-sys-mods/imager_custom ]; then
   /usr/lib/raspberrypi-sys-mods/imager_custom set_keymap 'jp'
   /usr/lib/raspberrypi-sys-mods/imager_custom set_timezone 'Asia/Tokyo'
fi
rm -f /boot/firstrun.sh
sed -i 's| systemd.run.*||g' /boot/cmdline.txt
exit 0
"""


class Commands:
    """The commands first boot runs, recorded (and answered as a system that makes accounts would)."""

    def __init__(self):
        self.seen = []

    def __call__(self, command, **kw):
        self.seen.append((tuple(command), kw.get("input")))
        return subprocess.CompletedProcess(command, 0, "", "")

    def names(self):
        return [c[0] for c, _ in self.seen]

    def commands(self):
        return [c for c, _ in self.seen]


def card(tmp_path, **files) -> tuple[Path, Path]:
    boot, root = tmp_path / "boot", tmp_path / "root"
    boot.mkdir()
    (root / "etc").mkdir(parents=True)
    (root / "etc/hostname").write_text("companion\n")
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\n"
                                     "companion:x:999:999::/var/lib/companion:/usr/sbin/nologin\n")
    (boot / "cmdline.txt").write_text(CMDLINE + "\n")
    for zone in ("Etc/UTC", "Europe/London", "Asia/Tokyo"):  # tzdata's zones and xkb-data's layouts, as on the card
        (root / "usr/share/zoneinfo" / zone).parent.mkdir(parents=True, exist_ok=True)
        (root / "usr/share/zoneinfo" / zone).write_bytes(b"TZif2")
    for layout in ("us", "gb", "jp"):
        (root / "usr/share/X11/xkb/symbols").mkdir(parents=True, exist_ok=True)
        (root / "usr/share/X11/xkb/symbols" / layout).write_text("xkb_symbols\n")
    for name, text in files.items():
        (boot / ("firstrun.sh" if name == "firstrun" else name.replace("_", "-"))).write_text(text)
    return boot, root


def test_imagers_cloud_init_files_name_the_table_join_its_wifi_and_make_the_owners_key_login(tmp_path):
    boot, root = card(tmp_path, user_data=USER_DATA, network_config=NETWORK_CONFIG, meta_data=META_DATA)
    run, names = Commands(), []
    done = firstboot.apply(boot, root, run=run, set_hostname=names.append)
    assert (root / "etc/hostname").read_text() == "red-table\n" and names == ["red-table"]
    profile = (root / "etc/NetworkManager/system-connections/companion-wifi.nmconnection").read_text()
    assert 'ssid=Our "home" $(reboot)\nhidden=true\n' in profile and f"psk={PSK}" in profile
    assert (root / "etc/modprobe.d/companion-wifi-country.conf").read_text().endswith("=GB\n")
    useradd = next(c for c, _ in run.seen if c[0] == "useradd")
    assert useradd[-1] == "ann" and "--groups" not in useradd  # no password: sudo comes by the drop-in
    assert "chpasswd" not in run.names()  # Imager gave no password: none is set
    assert (root / "etc/sudoers.d/companion-ann").read_text() == "ann ALL=(ALL) NOPASSWD:ALL\n"
    keys = root / "home/ann/.ssh/authorized_keys"
    assert keys.read_text() == f"{KEY}\n{KEY2}\n" and keys.stat().st_mode & 0o777 == 0o600
    assert ("ssh-keygen", "-A") in run.commands() and ("systemctl", "enable", "ssh.service") in run.commands()
    assert not (root / login.PASSWORDS_DROP_IN).exists()  # keys only
    assert not any((boot / f).exists() for f in ("user-data", "network-config", "meta-data"))
    used = (boot / firstboot.IMAGER_USED).read_text()
    assert "user ann: 2 key(s), no password" in used and "time zone Europe/London" in used and PSK not in used
    assert not (boot / firstboot.IMAGER_ERROR).exists() and not (boot / firstboot.SSH_ERROR).exists()
    assert "ssh switched on" in done
    assert firstboot.apply(boot, root, run=Commands(), set_hostname=names.append) == []  # read once


def test_imager_18s_password_user_gets_its_hash_on_chpasswds_input_and_sshd_takes_passwords(tmp_path):
    boot, root = card(tmp_path, user_data=USER_DATA_18, network_config=NETWORK_CONFIG_18)
    (boot / "cmdline.txt").write_text(CMDLINE + " cfg80211.ieee80211_regdom=JP\n")
    run = Commands()
    firstboot.apply(boot, root, run=run, set_hostname=lambda n: None)
    useradd = next(c for c, _ in run.seen if c[0] == "useradd")
    assert useradd[-3:] == ("--groups", "sudo", "bob") and not any(HASH in word for c, _ in run.seen for word in c)
    assert ("chpasswd", "--root", str(root), "--encrypted") in run.commands()
    assert [i for c, i in run.seen if c[0] == "chpasswd"] == [f"bob:{HASH}\n"]
    assert "PasswordAuthentication yes" in (root / login.PASSWORDS_DROP_IN).read_text()
    assert "ieee80211_regdom=JP" in (root / "etc/modprobe.d/companion-wifi-country.conf").read_text()
    assert HASH not in (boot / firstboot.IMAGER_USED).read_text()


def test_imagers_time_zone_and_keyboard_become_the_tables_own_and_the_consoles_layout(tmp_path):
    boot, root = card(tmp_path, user_data=USER_DATA)
    run = Commands()
    firstboot.apply(boot, root, run=run, set_hostname=lambda n: None)
    localtime = root / "etc/localtime"
    assert localtime.is_symlink() and localtime.resolve() == (root / "usr/share/zoneinfo/Europe/London").resolve()
    assert os.readlink(localtime) == "../usr/share/zoneinfo/Europe/London"  # within the card, wherever it is mounted
    assert (root / "etc/timezone").read_text() == "Europe/London\n"
    keyboard = (root / "etc/default/keyboard").read_text()
    assert 'XKBLAYOUT="gb"\n' in keyboard and 'XKBMODEL="pc105"\n' in keyboard and 'XKBVARIANT=""\n' in keyboard
    assert ("setupcon", "--keyboard-only", "--force", "--save") in run.commands()  # the screen's console, now
    used = (boot / firstboot.IMAGER_USED).read_text()
    assert "time zone Europe/London" in used and "keyboard gb (pc105)" in used and "left as it is" not in used


def test_firstrun_sh_is_read_as_words_and_never_run(tmp_path):
    boot, root = card(tmp_path, firstrun=FIRSTRUN.replace("MARKER", str(tmp_path / "ran")))
    (boot / "cmdline.txt").write_text(CMDLINE + " systemd.run=/boot/firstrun.sh systemd.run_success_action=reboot "
                                                "systemd.unit=kernel-command-line.target\n")
    run = Commands()
    firstboot.apply(boot, root, run=run, set_hostname=lambda n: None)
    assert not (tmp_path / "ran").exists() and "sh" not in run.names()
    assert (root / "etc/hostname").read_text() == "blue-table\n"
    assert [i for c, i in run.seen if c[0] == "chpasswd"] == [f"cat:{HASH}\n"]
    assert (root / "home/cat/.ssh/authorized_keys").read_text() == f"{KEY}\n"
    profile = (root / "etc/NetworkManager/system-connections/companion-wifi.nmconnection").read_text()
    assert "ssid=Cat's net\nhidden=true\n" in profile
    assert not (root / login.PASSWORDS_DROP_IN).exists()  # enable_ssh -k: keys only
    assert (boot / "cmdline.txt").read_text() == CMDLINE + "\n" and not (boot / "firstrun.sh").exists()
    assert (root / "etc/timezone").read_text() == "Asia/Tokyo\n" and 'XKBLAYOUT="jp"' in (root / "etc/default/keyboard").read_text()


@pytest.mark.parametrize("files, field", [
    ({"user_data": USER_DATA + "runcmd:\n  - [ curl, -o, /tmp/x, http://example.invalid ]\n"},
     "user-data.runcmd[0]"),
    ({"user_data": USER_DATA.replace("name: ann", "name: root")}, "user-data.users[0].name"),
    ({"user_data": USER_DATA_18.replace(HASH, "hunter22")}, "user-data.users[0].passwd"),
    ({"user_data": USER_DATA.replace("hostname: red-table", "hostname: $(reboot)")}, "user-data.hostname"),
    ({"user_data": USER_DATA, "network_config": NETWORK_CONFIG.replace('      regulatory-domain: "GB"\n', "")},
     "network-config.network.wifis.wlan0.regulatory-domain"),
    ({"user_data": USER_DATA + "write_files:\n- path: /etc/x\n"}, "user-data.write_files"),
    ({"user_data": USER_DATA.replace("  sudo: ALL=(ALL) NOPASSWD:ALL\n", "  sudo: &s x\n")}, "user-data:24"),
    ({"firstrun": "/usr/lib/raspberrypi-sys-mods/imager_custom set_wlan 'Home' 'short' 'GB'\n"},
     "firstrun.sh:1.wlan.password"),
    ({"user_data": USER_DATA.replace("Europe/London", "Europe/Atlantis")}, "user-data.timezone"),
    ({"user_data": USER_DATA.replace("Europe/London", "../../etc/shadow")}, "user-data.timezone"),
    ({"user_data": USER_DATA.replace('layout: "gb"', 'layout: "klingon"')}, "user-data.keyboard.layout"),
    ({"user_data": USER_DATA.replace('layout: "gb"', 'layout: "../gb"')}, "user-data.keyboard.layout"),
    ({"firstrun": "/usr/lib/raspberrypi-sys-mods/imager_custom set_timezone 'Mars/Olympus'\n"},
     "firstrun.sh:1.timezone"),
])
def test_one_refused_setting_applies_none_and_says_which_on_the_card(tmp_path, files, field):
    boot, root = card(tmp_path, **{"network_config": NETWORK_CONFIG, **files})
    before = {p.name: p.read_bytes() for p in boot.iterdir()}
    run = Commands()
    done = firstboot.apply(boot, root, run=run, set_hostname=lambda n: None)
    assert {p.name: p.read_bytes() for p in boot.iterdir() if p.name != firstboot.IMAGER_ERROR} == before
    reason = (boot / firstboot.IMAGER_ERROR).read_text()
    assert reason.startswith(f"{field}:") and reason.count("\n") == 1
    assert not (root / "etc/NetworkManager/system-connections/companion-wifi.nmconnection").exists()
    assert (root / "etc/hostname").read_text() == "companion\n"
    assert run.names() == [] and any(line.startswith("refused Imager's settings") for line in done)


def test_imagers_files_are_overwritten_where_they_lay_before_they_are_removed(tmp_path):
    boot, root = card(tmp_path, user_data=USER_DATA_18, network_config=NETWORK_CONFIG)
    opened = {name: os.open(boot / name, os.O_RDONLY) for name in ("user-data", "network-config")}
    try:
        firstboot.apply(boot, root, run=Commands(), set_hostname=lambda n: None)
        left = {name: os.pread(fd, 65536, 0) for name, fd in opened.items()}
    finally:
        for fd in opened.values():
            os.close(fd)
    assert HASH.encode() not in left["user-data"] and PSK.encode() not in left["network-config"]
    assert set(left["network-config"]) == {ord("#")}


def test_an_authorized_keys_file_switches_ssh_on_with_roots_key_and_an_ssh_file_alone_says_no_key(tmp_path):
    boot, root = card(tmp_path, ssh="")
    firstboot.apply(boot, root, run=Commands(), set_hostname=lambda n: None)
    assert "no key lets anyone in" in (boot / firstboot.SSH_ERROR).read_text()
    (boot / firstboot.AUTHORIZED_KEYS).write_text(f"# mine\n{KEY}\n\n")
    run = Commands()
    firstboot.apply(boot, root, run=run, set_hostname=lambda n: None)
    assert (root / "root/.ssh/authorized_keys").read_text() == f"{KEY}\n"
    assert ("systemctl", "enable", "ssh.service") in run.commands()
    assert not (boot / firstboot.AUTHORIZED_KEYS).exists() and not (boot / firstboot.SSH_ERROR).exists()
    (boot / firstboot.AUTHORIZED_KEYS).write_text('command="/bin/sh" ' + KEY + "\n")
    firstboot.apply(boot, root, run=Commands(), set_hostname=lambda n: None)
    assert (boot / firstboot.AUTHORIZED_KEYS).exists()
    assert (boot / firstboot.SSH_ERROR).read_text().startswith("authorized_keys[0]: expected a public key")


def test_the_reopen_request_draws_a_new_code_writes_it_to_the_card_and_goes(tmp_path):
    boot, root = card(tmp_path)
    (boot / setupcode.REOPEN_FILE).write_text("please\n")
    kept = root / setupcode.KEPT_CODE

    def reopen(command, **kw):
        asked.append(command)
        if command[0] == "install":  # the table's folder, as its unit makes it
            kept.parent.mkdir(parents=True)
        else:
            kept.write_text("ABCDEFGHJK\n")
        return subprocess.CompletedProcess(command, 0, "setup reopened", "")

    asked = []
    done = firstboot.apply(boot, root, run=reopen, set_hostname=lambda n: None)
    assert asked == [("install", "-d", *setupcode.STATE, "/var/lib/companion"),
                     (setupcode.COMMAND, "setup", "--reopen")]
    assert (boot / setupcode.CODE_FILE).read_text() == "ABCDEFGHJK\n" and not (boot / setupcode.REOPEN_FILE).exists()
    assert not any("ABCDEFGHJK" in line for line in done)
    (boot / setupcode.REOPEN_FILE).write_text("")  # the folder is there now: the table has run
    firstboot.apply(boot, root, set_hostname=lambda n: None,
                    run=lambda c, **kw: subprocess.CompletedProcess(c, 1, "", "companion: no table here\n"))
    assert (boot / setupcode.REOPEN_FILE).exists()
    assert "no table here" in (boot / setupcode.REOPEN_ERROR).read_text()


hostile = st.one_of(
    st.text(max_size=300),
    st.sampled_from(["nan", "NaN", ".inf", "$(reboot)", "`id`", "\ud800", "\x00", "\u202e", "a: [", "'", '"\\q"',
                     "- - -", "a:\n\tb: 1", "? x", "!!python/object:os.system x"]),
    st.builds(lambda s, n: s * n, st.sampled_from(["a: 1\n", "- x\n", " ", "[", "\ud83d"]), st.integers(1, 40000)),
)


# Drawing long texts is timed by the wall clock: on a busy machine it is slow, and that says nothing of the rule.
@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(hostile, st.sampled_from(["yaml", "user-data", "network-config", "meta-data", "firstrun", "keys"]))
def test_hostile_text_is_read_or_refused_by_name_never_anything_else(text, reader):
    read = {"yaml": lambda t: cloudyaml.read(t, "f"),
            "user-data": lambda t: imager.read_user_data("#cloud-config\n" + t),
            "network-config": lambda t: imager.read_network_config(t, "GB"), "meta-data": imager.read_meta_data,
            "firstrun": lambda t: imager.read_firstrun(imager.HELPER + " " + t), "keys": imager.authorized_keys}[reader]
    try:
        read(text)
    except BadInput as refusal:
        assert refusal.field and str(refusal).isprintable()


values = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), min_size=1, max_size=32)


@settings(deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(ssid=values.filter(lambda s: s.strip() == s and len(s.encode()) <= 32 and "\\" not in s),
       hidden=st.booleans(), country=st.sampled_from(sorted(imager.bootfiles.COUNTRIES)))
def test_any_network_imager_writes_is_read_back_as_it_was_given(ssid, hidden, country):
    """As Imager 2.x writes network-config: the name in double quotes with its quotes escaped."""
    quoted = ssid.replace('"', '\\"')
    text = (f'network:\n  version: 2\n  wifis:\n    wlan0:\n      dhcp4: true\n      regulatory-domain: "{country}"\n'
            f'      access-points:\n        "{quoted}":\n' + ("          hidden: true\n" if hidden else "")
            + f'          password: "{PSK}"\n      optional: true\n')
    wifi = imager.read_network_config(text, None)
    assert (wifi.ssid, wifi.password, wifi.country, wifi.hidden) == (ssid, PSK, country, hidden)


@settings(deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(ssid=values.filter(lambda s: s.strip() == s and len(s.encode()) <= 32),
       name=st.from_regex(r"[a-z_][a-z0-9_-]{0,31}", fullmatch=True).filter(lambda n: n not in imager.TAKEN_NAMES))
def test_any_firstrun_line_imager_writes_is_read_back_as_it_was_given(ssid, name):
    """As Imager 2.x quotes a word for the shell: in single quotes, a quote inside written '"'"'."""
    def quote(word):
        return "'" + word.replace("'", "'\"'\"'") + "'"
    text = (f"   {imager.USERCONF} {quote(name)} {quote(HASH)}\n"
            f"   {imager.HELPER} set_wlan {quote(ssid)} {quote(PSK)} 'GB'\n")
    found = imager.read_firstrun(text)
    assert (found.user.name, found.user.password_hash, found.wifi.ssid) == (name, HASH, ssid)


def test_imagers_own_runcmd_lines_are_recognised_not_run_and_give_the_wifi_country():
    """Imager 1.7 put the Wi-Fi country in a runcmd line for crda; 2.x unblocks the radio there."""
    text = (USER_DATA_18 + "runcmd:\n- sed -i 's/^\\s*REGDOMAIN=\\S*/REGDOMAIN=fr/' /etc/default/crda || true\n"
            '- localectl set-x11-keymap "fr" pc105\n- setupcon -k --force || true\n'
            '- [ rfkill, unblock, wifi ]\n'
            '- [ sh, -c, "for f in /var/lib/systemd/rfkill/*:wlan; do echo 0 > \\"$f\\"; done" ]\n\n')
    found = imager.read_user_data(text)
    assert found.country == "FR" and found.user.name == "bob"
    assert imager.read_network_config(NETWORK_CONFIG_18, found.country).country == "FR"


@pytest.mark.parametrize("stderr", [b"useradd: cannot lock /etc/passwd\n", "chpasswd: cannot lock /etc/shadow\n"])
def test_an_account_the_system_refuses_stops_imagers_settings_before_the_rest(tmp_path, stderr):
    boot, root = card(tmp_path, user_data=USER_DATA_18, network_config=NETWORK_CONFIG)

    def refusing(command, **kw):
        raise subprocess.CalledProcessError(1, command, stderr=stderr)

    firstboot.apply(boot, root, run=refusing, set_hostname=lambda n: None)
    assert "cannot lock" in (boot / firstboot.IMAGER_ERROR).read_text()
    assert (boot / "user-data").exists() and (boot / "network-config").exists()
    assert not (root / "etc/NetworkManager/system-connections/companion-wifi.nmconnection").exists()
