"""At every boot, before the network starts: the owner's files on the card's boot partition, applied.

The Wi-Fi file becomes NetworkManager's connection and is left on the card with its password blanked
(under another name, so it is read once); a refused file stays, and the reason is written beside it,
where the owner who made it will look. The name file names the table; an `ssh` file switches ssh on.
"""

import logging
import socket
import subprocess
from pathlib import Path

from companion.appliance import bootfiles
from companion.appliance.network import HOTSPOT, write_secret
from companion.errors import BadInput

log = logging.getLogger(__name__)
WIFI_ERROR = "companion-wifi-error.txt"  # beside a refused Wi-Fi file: why it was refused


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
    etc = root / "etc"
    wifi_file = boot / bootfiles.WIFI_FILE
    if wifi_file.exists():
        text = wifi_file.read_text("utf-8", errors="replace")
        try:
            wifi = bootfiles.read_wifi(text)
        except BadInput as refused:
            (boot / WIFI_ERROR).write_text(f"{refused}\n")
            log.error("the Wi-Fi file was not used: %s", refused)
            done.append(f"refused {bootfiles.WIFI_FILE}: {refused}")
        else:
            write_secret(etc / "NetworkManager/system-connections" / f"{bootfiles.WIFI_CONNECTION}.nmconnection",
                         bootfiles.keyfile(wifi))
            (etc / "modprobe.d").mkdir(parents=True, exist_ok=True)
            (etc / "modprobe.d/companion-wifi-country.conf").write_text(bootfiles.regulatory(wifi))
            (boot / bootfiles.WIFI_USED).write_text(bootfiles.blanked(text))
            wifi_file.unlink()
            (boot / WIFI_ERROR).unlink(missing_ok=True)
            run(("iw", "reg", "set", wifi.country), check=False, capture_output=True)
            done.append(f"Wi-Fi {wifi.ssid!r} ({wifi.country}) saved; the password was removed from the card")
    name = current_name(etc)
    name_file = boot / bootfiles.NAME_FILE
    if name_file.exists():
        try:
            name = bootfiles.read_name(name_file.read_text("utf-8", errors="replace"))
        except BadInput as refused:
            log.error("the name file was not used: %s", refused)
            done.append(f"refused {bootfiles.NAME_FILE}: {refused}")
        else:
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


