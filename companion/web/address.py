"""Where phones can reach the table: its addresses on the network, the links to give them, and mDNS.

The server is bound to one host (`--host`). Bound to loopback, no phone can
reach it; bound to one address, that address is the way in; bound to all
(`0.0.0.0`), every address this machine has on its networks is. The mDNS
name (`NAME.local`) is offered second, because not every phone resolves it.

>>> Listening("0.0.0.0", 8000).links(["192.168.1.20", "10.0.0.5"], "pi.local")
['http://192.168.1.20:8000/', 'http://10.0.0.5:8000/', 'http://pi.local:8000/']
>>> Listening("127.0.0.1", 8000).links(["192.168.1.20"], "pi.local")
[]
"""

import ipaddress
import logging
import socket
import threading
from dataclasses import dataclass

log = logging.getLogger(__name__)

ALL_HOSTS = frozenset({"0.0.0.0", "::", ""})  # a server bound to these answers on every address
SERVICE_TYPE = "_http._tcp.local."  # what a phone's or laptop's browser for local services looks for
SERVICE_NAME = "Hourglass table"  # the name a service browser lists (renamed if a second table uses it)
ALLOW_PHONES_OPTION = "--host 0.0.0.0"  # what lets phones in: listening on every address
ALLOW_PHONES = f"start it with {ALLOW_PHONES_OPTION} (or set host = \"0.0.0.0\" under [web] in the config)"


def is_loopback(host: str) -> bool:
    """True for a host only this machine can reach ("localhost", 127.x, ::1).

    >>> [is_loopback(h) for h in ("localhost", "127.0.0.1", "::1", "192.168.1.20", "pi.local")]
    [True, True, True, False, False]
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_addresses(adapters=None) -> list[str]:
    """This machine's IPv4 addresses on its networks (no loopback, no link-local), from ifaddr.

    `adapters` is what `ifaddr.get_adapters()` answers (tests pass their own). When the
    system will not say (a sandbox without netlink sockets), one line is logged and the list is empty.
    """
    if adapters is None:
        import ifaddr

        try:
            adapters = ifaddr.get_adapters()
        except OSError as e:  # getifaddrs needs a netlink socket, which a sandbox may refuse
            log.warning("cannot list this machine's network addresses (%s): the page and the QR code "
                        "will not show them; phones can still use the table's address", e.strerror or e)
            return []
    found = []
    for adapter in adapters:
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):  # IPv6 comes as a tuple; phones on a table's Wi-Fi use IPv4
                continue
            address = ipaddress.ip_address(ip.ip)
            if not (address.is_loopback or address.is_link_local) and ip.ip not in found:
                found.append(ip.ip)
    return found


def mdns_name(hostname: str | None = None) -> str:
    """The name this machine answers to by mDNS: its host name in `.local`.

    >>> mdns_name("companion.example.org")
    'companion.local'
    """
    return f"{(hostname or socket.gethostname()).split('.')[0]}.local"


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


@dataclass(frozen=True)
class Listening:
    """The host and port the table's web server is bound to."""

    host: str
    port: int

    @property
    def local_only(self) -> bool:
        return is_loopback(self.host)

    def reachable(self, addresses: list[str]) -> list[str]:
        """The addresses phones can use, given this machine's LAN `addresses`."""
        if self.local_only:
            return []
        return list(addresses) if self.host in ALL_HOSTS else [self.host]

    def links(self, addresses: list[str], mdns: str | None) -> list[str]:
        """Links for phones: the addresses first, the mDNS name second (none when bound to loopback)."""
        reachable = self.reachable(addresses)
        names = [mdns] if mdns and reachable else []
        return [_url(host, self.port) for host in reachable + names]

    def here(self) -> str:
        """The link for this machine itself."""
        return _url("127.0.0.1" if self.host in ALL_HOSTS else self.host, self.port)

    def startup_lines(self, addresses: list[str], mdns: str | None, pin: str, stop: str = "Ctrl-C stops.") -> list[str]:
        """What the table says when it starts: the addresses to open, the PIN (the journal keeps it), how to stop it.

        >>> print("\\n".join(Listening("127.0.0.1", 8000).startup_lines([], None, "1234")))
        Open http://127.0.0.1:8000/ on this computer; the table PIN is 1234. Ctrl-C stops.
        Phones cannot reach it: it listens on 127.0.0.1 only; to let them, start it with --host 0.0.0.0 (or set host = "0.0.0.0" under [web] in the config).
        """
        links = self.links(addresses, mdns)
        if self.local_only:
            return [f"Open {self.here()} on this computer; the table PIN is {pin}. {stop}",
                    f"Phones cannot reach it: it listens on {self.host} only; to let them, {ALLOW_PHONES}."]
        if not links:
            return [f"Open {self.here()} on this computer; the table PIN is {pin}. {stop}",
                    "No network address found: join this computer to the table's Wi-Fi, then restart it."]
        lines = [f"Open {links[0]} on a phone on the same network; the table PIN is {pin}. {stop}"]
        if len(links) > 1:
            lines.append("Also: " + "  ".join(links[1:]))
        return lines


class Advertisement:
    """The table announced on mDNS as an `_http._tcp` service, so service browsers find it.

    Optional by nature: where multicast is unavailable it logs why and the
    table goes on without it. Registering probes the network for a second or
    two, so it happens on a thread of its own and never delays the start.
    """

    def __init__(self, listening: Listening, addresses: list[str], hostname: str | None = None):
        self.listening = listening
        self.addresses = listening.reachable(addresses)
        self.server = mdns_name(hostname) + "."
        self._zeroconf = None
        self._info = None
        self._lock = threading.Lock()
        self._closed = False
        self._thread: threading.Thread | None = None

    def start(self) -> "Advertisement":
        if self.addresses:
            self._thread = threading.Thread(target=self._register, name="mdns", daemon=True)
            self._thread.start()
        return self

    def _register(self) -> None:
        try:
            from zeroconf import ServiceInfo, Zeroconf

            info = ServiceInfo(
                SERVICE_TYPE, f"{SERVICE_NAME}.{SERVICE_TYPE}", port=self.listening.port,
                addresses=[socket.inet_aton(a) for a in self.addresses], server=self.server,
                properties={"path": "/"})
            zeroconf = Zeroconf(interfaces=self.addresses)
            with self._lock:
                if self._closed:
                    zeroconf.close()
                    return
                self._zeroconf = zeroconf
            zeroconf.register_service(info, allow_name_change=True)
            self._info = info
            log.info("announced on mDNS as %r (%s)", info.name, self.server)
        except Exception as e:  # no multicast, no network, a busy port 5353: the table serves on regardless
            log.warning("not announced on mDNS (%s); phones can still open the address", e)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            zeroconf, self._zeroconf = self._zeroconf, None
        if self._thread is not None:
            self._thread.join(timeout=5)
        if zeroconf is not None:
            try:
                if self._info is not None:
                    zeroconf.unregister_service(self._info)
            except Exception as e:
                log.warning("mDNS goodbye not sent (%s)", e)
            finally:
                zeroconf.close()
