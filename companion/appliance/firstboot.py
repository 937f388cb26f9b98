"""At every boot, before the network starts: the owner's files on the card's boot partition, applied.

The Wi-Fi file becomes NetworkManager's connection and is left on the card with its password blanked
(under another name, so it is read once); the file itself is overwritten where it lay before it is
removed, since FAT only marks a deleted file's clusters free and the password would stay on the card.
A refused file (one that is not UTF-8 text too: nothing is guessed or mangled) stays as it is, and the
reason is written beside it, where the owner who made it will look. The name file names the table; an
`ssh` file switches ssh on.
"""

import logging
import os
import socket
import subprocess
from pathlib import Path

from companion.appliance import bootfiles, cardnotes
from companion.appliance.network import HOTSPOT, write_secret
from companion.errors import BadInput

log = logging.getLogger(__name__)
WIFI_ERROR = "companion-wifi-error.txt"  # beside a refused Wi-Fi file: why it was refused
NAME_ERROR = "companion-name-error.txt"  # beside a refused name file


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
    wifi_file = boot / bootfiles.WIFI_FILE
    if wifi_file.exists():
        try:
            text = read_text(wifi_file)
            wifi = bootfiles.read_wifi(text)
        except BadInput as reason:
            done.append(refused(boot, bootfiles.WIFI_FILE, WIFI_ERROR, reason, notes))
        else:
            write_secret(etc / "NetworkManager/system-connections" / f"{bootfiles.WIFI_CONNECTION}.nmconnection",
                         bootfiles.keyfile(wifi))
            (etc / "modprobe.d").mkdir(parents=True, exist_ok=True)
            (etc / "modprobe.d/companion-wifi-country.conf").write_text(bootfiles.regulatory(wifi))
            (boot / bootfiles.WIFI_USED).write_text(bootfiles.blanked(text))
            wipe(wifi_file)
            (boot / WIFI_ERROR).unlink(missing_ok=True)
            cardnotes.drop(notes, bootfiles.WIFI_FILE)
            run(("iw", "reg", "set", wifi.country), check=False, capture_output=True)
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
            if (etc / "hostname").read_text().strip() != name:
                (etc / "hostname").write_text(f"{name}\n")
                (etc / "hosts").write_text(bootfiles.hosts(name))
                set_hostname(name)
                done.append(f"named {name}.local")
    hotspot = etc / "NetworkManager/system-connections" / f"{HOTSPOT}.nmconnection"
    if not hotspot.exists() or f"ssid={name}-setup\n" not in hotspot.read_text():
        write_secret(hotspot, hotspot_keyfile(name))
        done.append(f"access point {name}-setup prepared")
    asked = [boot / f for f in bootfiles.SSH_FILES if (boot / f).exists()]
    if asked:
        # Keys made on this table, never the image's: two tables never share a host key.
        run(("ssh-keygen", "-A"), check=True, capture_output=True)
        run(("systemctl", "enable", "ssh.service"), check=True, capture_output=True)
        run(("systemctl", "start", "--no-block", "ssh.service"), check=False, capture_output=True)
        for path in asked:
            path.unlink()
        done.append("ssh switched on")
    for line in done:
        log.info("%s", line)
    return done


def current_name(etc: Path) -> str:
    try:
        return (etc / "hostname").read_text().strip() or bootfiles.DEFAULT_NAME
    except FileNotFoundError:
        return bootfiles.DEFAULT_NAME


