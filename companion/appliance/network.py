"""The network as the watcher sees and changes it: NetworkManager on a table, a file-backed fake beside it.

The fake ships with the package (as the pins' mock does) so the tests, and a table booted in a container,
drive the same watcher the card runs.

>>> import tempfile, pathlib
>>> fake = FakeNetwork(pathlib.Path(tempfile.mkdtemp()) / "network.json")
>>> fake.seen()
Seen(online=False, ap_on=False, known=False, asked=False)
>>> fake.start_ap(); fake.seen().ap_on
True
"""

import json
import os
import subprocess
from pathlib import Path
from typing import Protocol

from companion.appliance.bootfiles import WIFI_CONNECTION, WifiSetting, keyfile
from companion.appliance.hotspot import Seen

HOTSPOT = "companion-hotspot"  # NetworkManager's name for the table's own access point
HOTSPOT_ADDRESS = "10.42.0.1"  # NetworkManager's shared-mode address: the table on its own access point
WIFI_DEVICE = "wlan0"  # the Pi's radio (net.ifnames=0 keeps the kernel's name)
PAGE_PORT = 8081  # the Wi-Fi page; on the access point, port 80 is sent to it
CONNECTIONS = Path("/etc/NetworkManager/system-connections")


class ApUnavailable(Exception):
    """The access point cannot open (a table without a Wi-Fi radio, or NetworkManager refused it): why, in a line."""


class Network(Protocol):
    page_address: str  # where the Wi-Fi page listens while the access point is up

    def seen(self) -> Seen: ...
    def start_ap(self) -> None: ...  # raises ApUnavailable
    def stop_ap(self) -> None: ...
    def save(self, wifi: WifiSetting) -> None: ...


def fields(line: str) -> list[str]:
    r"""The fields of one line of `nmcli -t` (a ':' inside a field comes escaped as '\:').

    >>> fields(r"wifi:connected:My\:Home")
    ['wifi', 'connected', 'My:Home']
    """
    out, field, escape = [], "", False
    for ch in line:
        if escape:
            field, escape = field + ch, False
        elif ch == "\\":
            escape = True
        elif ch == ":":
            out, field = out + [field], ""
        else:
            field += ch
    return out + [field]


def seen_from(devices: str, connections: str) -> Seen:
    """What `nmcli -t -f TYPE,STATE,CONNECTION device` and `nmcli -t -f NAME,TYPE connection show` say.

    >>> seen_from("wifi:connected:companion-hotspot\\nloopback:unmanaged:\\n", "companion-hotspot:802-11-wireless\\n")
    Seen(online=False, ap_on=True, known=False, asked=False)
    """
    online = ap_on = False
    for row in filter(None, devices.splitlines()):
        kind, state, connection = (fields(row) + ["", "", ""])[:3]
        if state == "connected" and kind in ("wifi", "ethernet"):
            if connection == HOTSPOT:
                ap_on = True
            else:
                online = True
    known = any(kind == "802-11-wireless" and name != HOTSPOT
                for name, kind in ((fields(row) + [""])[:2] for row in filter(None, connections.splitlines())))
    return Seen(online=online, ap_on=ap_on, known=known)


# On the access point, a phone's request to any address on port 80 reaches the Wi-Fi page.
REDIRECT = f"""table ip companion-hotspot {{
    chain prerouting {{
        type nat hook prerouting priority dstnat;
        iifname "{WIFI_DEVICE}" tcp dport 80 redirect to :{PAGE_PORT}
    }}
}}
"""


class NetworkManager:
    """The table's network through nmcli (and nft for the access point's page)."""

    page_address = HOTSPOT_ADDRESS

    def __init__(self, run=subprocess.run, connections: Path = CONNECTIONS):
        self.run = run
        self.connections = connections

    def _out(self, *command: str) -> str:
        return self.run(command, check=True, capture_output=True, text=True).stdout

    def seen(self) -> Seen:
        return seen_from(self._out("nmcli", "-t", "-f", "TYPE,STATE,CONNECTION", "device"),
                         self._out("nmcli", "-t", "-f", "NAME,TYPE", "connection", "show"))

    def start_ap(self) -> None:
        done = self.run(("nmcli", "connection", "up", HOTSPOT), capture_output=True, text=True)
        if done.returncode != 0:
            said = (done.stderr or done.stdout or "").strip().splitlines()
            raise ApUnavailable(said[-1] if said else f"nmcli exited with {done.returncode}")
        self.run(("nft", "-f", "-"), input=REDIRECT, text=True, check=True, capture_output=True)

    def stop_ap(self) -> None:
        self.run(("nft", "delete", "table", "ip", HOTSPOT), check=False, capture_output=True)
        self.run(("nmcli", "connection", "down", HOTSPOT), check=False, capture_output=True)

    def save(self, wifi: WifiSetting) -> None:
        write_secret(self.connections / f"{WIFI_CONNECTION}.nmconnection", keyfile(wifi))
        self.run(("nmcli", "connection", "reload"), check=True, capture_output=True)


class FakeNetwork:
    """A network kept in a JSON file: a test (or a person) says whether the table is online; the watcher's
    access point and saved networks are written back to it."""

    page_address = "127.0.0.1"  # a container's or a test's own: nothing outside reaches it

    def __init__(self, path: Path):
        self.path = Path(path)

    def _state(self) -> dict:
        try:
            return json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}

    def _write(self, **changes) -> None:
        state = {**self._state(), **changes}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        scratch = self.path.with_suffix(".new")
        scratch.write_text(json.dumps(state))
        scratch.replace(self.path)

    def seen(self) -> Seen:
        state = self._state()
        return Seen(online=state.get("online") is True, ap_on=state.get("ap_on") is True,
                    known=bool(state.get("saved")))

    def start_ap(self) -> None:
        self._write(ap_on=True)

    def stop_ap(self) -> None:
        self._write(ap_on=False)

    def save(self, wifi: WifiSetting) -> None:
        self._write(saved=[*self._state().get("saved", []), wifi.ssid])


def network_from(spec: str | None) -> Network:
    """The network a watcher uses: NetworkManager, or `fake:PATH` (COMPANION_NETWORK) for a test."""
    if spec and spec.startswith("fake:"):
        return FakeNetwork(Path(spec[len("fake:"):]))
    return NetworkManager()


def write_secret(path: Path, text: str) -> None:
    """Write a file only root reads (a password inside), whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(path.name + ".new")
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    scratch.replace(path)
