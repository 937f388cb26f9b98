"""At every boot, before the network starts: the owner's files on the card's boot partition, applied.

The Wi-Fi file becomes NetworkManager's connection and is left on the card with its password blanked
(under another name, so it is read once); the file itself is overwritten where it lay before it is
removed, since FAT only marks a deleted file's clusters free and the password would stay on the card.
A refused file (one that is not UTF-8 text too: nothing is guessed or mangled) stays as it is, and the
reason is written beside it, where the owner who made it will look. The name file names the table; an
`ssh` file switches ssh on.

Raspberry Pi Imager's settings (imager.py) are read before them and used the same way: all of them, or, if one
is refused, none (the files stay, with the reason in companion-imager-error.txt); their files, which hold a
password hash and the Wi-Fi key, are overwritten before they are removed, and companion-imager-used.txt says
what was done. Imager's user and keys, or an `authorized_keys` file, are the way in over ssh (login.py); a
request file reopens setup (setupcode.py).
"""

import logging
import os
import socket
import subprocess
from pathlib import Path

from companion.appliance import bootfiles, cardnotes, imager, login, setupcode
from companion.appliance.network import HOTSPOT, write_secret
from companion.errors import BadInput

log = logging.getLogger(__name__)
WIFI_ERROR = "companion-wifi-error.txt"  # beside a refused Wi-Fi file: why it was refused
NAME_ERROR = "companion-name-error.txt"  # beside a refused name file
IMAGER_ERROR = "companion-imager-error.txt"  # why Imager's settings were not used (none of them were)
IMAGER_USED = "companion-imager-used.txt"  # what was done with Imager's settings, without their secrets
SSH_ERROR = "companion-ssh-error.txt"  # ssh is on and no key lets anyone in, or the keys file was refused
AUTHORIZED_KEYS, IMAGER_SETTINGS = bootfiles.AUTHORIZED_KEYS, bootfiles.IMAGER_SETTINGS
SSH_NOTE = bootfiles.SSH_FILES[0]  # ssh asked for with no key that lets anyone in
IMAGER_FILES = (imager.USER_DATA, imager.NETWORK_CONFIG, imager.FIRSTRUN)  # a hash and a Wi-Fi key inside
ZONES = "usr/share/zoneinfo"  # tzdata's, under the root
LAYOUTS = "usr/share/X11/xkb/symbols"  # xkb-data's, which console-setup compiles the console's keymap from


def read_text(path: Path) -> str:
    """A file of the owner's as text: UTF-8 (with or without the byte-order mark Windows writes), or refused."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BadInput(path.name, f"not UTF-8 text (byte {e.start + 1}): save it as UTF-8 and put it back",
                       code="errors.wifi.encoding", params={"byte": e.start + 1}) from None


def refused(boot: Path, name: str, error: str, reason: BadInput, notes: Path) -> str:
    """The reason a file of the card was not used, written beside it and kept for the table's screen
    (cardnotes); the line for the journal."""
    (boot / error).write_text(f"{reason}\n")
    cardnotes.keep(notes, name, reason)
    log.error("%s was not used: %s", name, reason)
    return f"refused {name}: {reason}"


def wipe(path: Path) -> None:
    """Overwrite a file's bytes where they lie, to the disk, then remove it (FAT keeps what it deletes)."""
    fd = os.open(path, os.O_WRONLY)
    try:
        size = os.fstat(fd).st_size
        os.pwrite(fd, b"#" * size, 0)  # the same length: the same clusters, none freed with the secret in them
        os.fsync(fd)
    finally:
        os.close(fd)
    path.unlink()


def hotspot_keyfile(name: str) -> str:
    """NetworkManager's profile of the table's own access point: open (the page asks for the setup code),
    named after the table, started by the watcher alone.

    >>> "ssid=companion-setup" in hotspot_keyfile("companion")
    True
    """
    return (f"[connection]\nid={HOTSPOT}\ntype=wifi\nautoconnect=false\n\n"
            f"[wifi]\nmode=ap\nssid={name}-setup\n\n[ipv4]\nmethod=shared\n\n[ipv6]\nmethod=ignore\n")


def apply(boot: Path, root: Path = Path("/"), run=subprocess.run, set_hostname=socket.sethostname) -> list[str]:
    """Apply the boot partition's files to the system under `root`; what was done, one line each."""
    done = []
    etc, notes = root / "etc", root / cardnotes.STATE
    try:
        settings = read_imager(boot, root)
        if settings is not None:
            done += use_imager(boot, root, settings, run, set_hostname)
            cardnotes.drop(notes, IMAGER_SETTINGS)
    except BadInput as reason:
        settings = None
        done.append(refused(boot, IMAGER_SETTINGS, IMAGER_ERROR, reason, notes))
    wifi_file = boot / bootfiles.WIFI_FILE
    if wifi_file.exists():
        try:
            text = read_text(wifi_file)
            wifi = bootfiles.read_wifi(text)
        except BadInput as reason:
            done.append(refused(boot, bootfiles.WIFI_FILE, WIFI_ERROR, reason, notes))
        else:
            save_wifi(etc, wifi, run)
            (boot / bootfiles.WIFI_USED).write_text(bootfiles.blanked(text))
            wipe(wifi_file)
            (boot / WIFI_ERROR).unlink(missing_ok=True)
            cardnotes.drop(notes, bootfiles.WIFI_FILE)
            done.append(f"Wi-Fi {wifi.ssid!r} ({wifi.country}) saved; the password was removed from the card")
    name = current_name(etc)
    name_file = boot / bootfiles.NAME_FILE
    if name_file.exists():
        try:
            name = bootfiles.read_name(read_text(name_file))
        except BadInput as reason:
            done.append(refused(boot, bootfiles.NAME_FILE, NAME_ERROR, reason, notes))
        else:
            (boot / NAME_ERROR).unlink(missing_ok=True)
            cardnotes.drop(notes, bootfiles.NAME_FILE)
            done += rename(etc, name, set_hostname)
    hotspot = etc / "NetworkManager/system-connections" / f"{HOTSPOT}.nmconnection"
    if not hotspot.exists() or f"ssid={name}-setup\n" not in hotspot.read_text():
        write_secret(hotspot, hotspot_keyfile(name))
        done.append(f"access point {name}-setup prepared")
    done += open_ssh(boot, root, run, settings is not None and settings.ssh, notes)
    done += setupcode.reopen_if_asked(boot, root, run)
    for line in done:
        log.info("%s", line)
    return done


def save_wifi(etc: Path, wifi: bootfiles.WifiSetting, run) -> None:
    write_secret(etc / "NetworkManager/system-connections" / f"{bootfiles.WIFI_CONNECTION}.nmconnection",
                 bootfiles.keyfile(wifi))
    (etc / "modprobe.d").mkdir(parents=True, exist_ok=True)
    (etc / "modprobe.d/companion-wifi-country.conf").write_text(bootfiles.regulatory(wifi))
    run(("iw", "reg", "set", wifi.country), check=False, capture_output=True)


def rename(etc: Path, name: str, set_hostname) -> list[str]:
    if current_name(etc) == name and (etc / "hostname").exists():
        return []
    (etc / "hostname").write_text(f"{name}\n")
    (etc / "hosts").write_text(bootfiles.hosts(name))
    set_hostname(name)
    return [f"named {name}.local"]


def read_imager(boot: Path, root: Path = Path("/")) -> imager.ImagerSettings | None:
    """Imager's files on the card, read and checked together (None: there are none), the time zone and layout
    against those the table has; BadInput for the first refusal, before anything is applied."""
    present = {name: read_text(boot / name) for name in (*IMAGER_FILES, imager.META_DATA) if (boot / name).exists()}
    if not present:
        return None
    settings = imager.ImagerSettings()
    if imager.USER_DATA in present:
        settings = imager.read_user_data(present[imager.USER_DATA])
    if imager.FIRSTRUN in present:
        settings = imager.merged(settings, imager.read_firstrun(present[imager.FIRSTRUN]))
    if imager.META_DATA in present:
        imager.read_meta_data(present[imager.META_DATA])
    if imager.NETWORK_CONFIG in present:
        cmdline = boot / "cmdline.txt"
        country = settings.country or (imager.regulatory_domain(cmdline.read_text()) if cmdline.exists() else None)
        settings = imager.merged(settings, imager.ImagerSettings(
            wifi=imager.read_network_config(present[imager.NETWORK_CONFIG], country)))
    if settings.timezone is not None and not (root / ZONES / settings.timezone).is_file():
        raise BadInput(settings.where["timezone"], f"{settings.timezone}: no such time zone on the table",
                       code="errors.imager.timezone", params={"zone": settings.timezone})
    if settings.keyboard is not None and not (root / LAYOUTS / settings.keyboard.layout).is_file():
        raise BadInput(settings.where["layout"], f"{settings.keyboard.layout}: no such keyboard layout on the table",
                       code="errors.imager.keyboard", params={"layout": settings.keyboard.layout})
    return settings


def use_imager(boot: Path, root: Path, settings: imager.ImagerSettings, run, set_hostname) -> list[str]:
    """Imager's checked settings applied (the account first: if the system refuses it, nothing else is done);
    its files wiped from the card, and a note of what was done left in their place."""
    done = []
    if settings.user is not None:
        try:
            done.append(login.make_user(root, settings.user, run))
        except subprocess.CalledProcessError as e:
            said = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr or ""
            why = said.strip().splitlines()[-1:] or [f"exit status {e.returncode}"]
            raise BadInput("user-data.users[0]", f"the system did not make the account: {why[0]}",
                           code="errors.imager.account") from None
    login.password_rule(root, settings.password_login)
    if settings.timezone is not None:
        done.append(set_zone(root / "etc", settings.timezone))
    if settings.keyboard is not None:
        done.append(set_keyboard(root / "etc", settings.keyboard, run))
    if settings.wifi is not None:
        save_wifi(root / "etc", settings.wifi, run)
        done.append(f"Wi-Fi {settings.wifi.ssid!r} ({settings.wifi.country}) saved from Imager's settings")
    if settings.hostname is not None:
        done += rename(root / "etc", settings.hostname, set_hostname)
    done.append(f"ssh {'with passwords and keys' if settings.password_login else 'with keys only'}"
                if settings.ssh else "ssh not asked for")
    for name in IMAGER_FILES:
        if (boot / name).exists():
            wipe(boot / name)
    (boot / imager.META_DATA).unlink(missing_ok=True)
    cmdline = boot / "cmdline.txt"
    if cmdline.exists() and "systemd.run" in (text := cmdline.read_text()):
        scratch = cmdline.with_name(".cmdline.txt.new")
        scratch.write_text(imager.without_firstrun(text))
        scratch.replace(cmdline)
    (boot / IMAGER_ERROR).unlink(missing_ok=True)
    notes = [*done, *settings.left]
    (boot / IMAGER_USED).write_text("# Raspberry Pi Imager's settings, used by the table (their files removed):\n"
                                    + "".join(f"{note}\n" for note in notes))
    return notes


def set_zone(etc: Path, zone: str) -> str:
    """The table's time zone, as Debian keeps it: /etc/localtime a link into tzdata (relative, so the root reads
    the same wherever it is mounted), its name in /etc/timezone. The daemon starts after this and reads it."""
    scratch = etc / ".localtime.new"
    scratch.unlink(missing_ok=True)
    scratch.symlink_to(Path("..") / ZONES / zone)
    scratch.replace(etc / "localtime")
    (etc / "timezone").write_text(f"{zone}\n")
    return f"time zone {zone}"


def set_keyboard(etc: Path, keyboard: imager.Keyboard, run) -> str:
    """The keyboard's layout where console-setup reads it at every boot, and loaded on the screen's console now
    (that boot's keymap was loaded before this ran)."""
    (etc / "default").mkdir(parents=True, exist_ok=True)
    (etc / "default/keyboard").write_text(
        "# The keyboard of the table's screen, from Raspberry Pi Imager's settings (console-setup reads it).\n"
        f'XKBMODEL="{keyboard.model}"\nXKBLAYOUT="{keyboard.layout}"\nXKBVARIANT="{keyboard.variant}"\n'
        f'XKBOPTIONS="{keyboard.options}"\n\nBACKSPACE="guess"\n')
    run(("setupcon", "--keyboard-only", "--force", "--save"), check=False, capture_output=True)
    return f"keyboard {keyboard}"


def open_ssh(boot: Path, root: Path, run, asked_by_imager: bool, notes: Path) -> list[str]:
    """ssh switched on when the card asks (the `ssh` file, an `authorized_keys` file, Imager's setting), with
    host keys made on this table; a word on the card when no key lets anyone in."""
    done = []
    asked = [boot / f for f in bootfiles.SSH_FILES if (boot / f).exists()]
    keys_file = boot / AUTHORIZED_KEYS
    if keys_file.exists():
        try:
            keys = imager.authorized_keys(read_text(keys_file), AUTHORIZED_KEYS)
        except BadInput as reason:
            return [refused(boot, AUTHORIZED_KEYS, SSH_ERROR, reason, notes)]
        login.add_keys(root / "root/.ssh/authorized_keys", keys)
        keys_file.unlink()
        asked.append(keys_file)
        done.append(f"{len(keys)} key(s) for root's ssh login")
    if not (asked or asked_by_imager):
        return done
    # Keys made on this table, never the image's: two tables never share a host key.
    run(("ssh-keygen", "-A"), check=True, capture_output=True)
    run(("systemctl", "enable", "ssh.service"), check=True, capture_output=True)
    run(("systemctl", "start", "--no-block", "ssh.service"), check=False, capture_output=True)
    for path in asked:
        path.unlink(missing_ok=True)
    done.append("ssh switched on")
    if any(p.stat().st_size for p in (root / "root/.ssh/authorized_keys", *root.glob("home/*/.ssh/authorized_keys"))
           if p.exists()) or (root / login.PASSWORDS_DROP_IN).exists():
        (boot / SSH_ERROR).unlink(missing_ok=True)
        for name in (SSH_NOTE, AUTHORIZED_KEYS):
            cardnotes.drop(notes, name)
    else:
        done.append(refused(boot, SSH_NOTE, SSH_ERROR, BadInput(
            "ssh", f"on, but no key lets anyone in: put your public key in a file {AUTHORIZED_KEYS} on the card",
            code="errors.ssh.no_key"), notes))
    return done


def current_name(etc: Path) -> str:
    try:
        return (etc / "hostname").read_text().strip() or bootfiles.DEFAULT_NAME
    except FileNotFoundError:
        return bootfiles.DEFAULT_NAME


