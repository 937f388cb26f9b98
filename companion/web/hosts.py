"""The Host check: the table answers only to its own names and addresses (no DNS rebinding).

A web page elsewhere can point a name of its own at the table's address; the
browser then sends that name in `Host`. Answering only to the table's own
names and addresses (its LAN and loopback addresses, `localhost`, its host
name and mDNS name `NAME.local`, and the names listed under
`[web] allowed_hosts`) keeps such pages out. A request for another name is
refused with 421 Misdirected Request, naming the config key; `"*"` in the
list switches the check off (behind a proxy that checks names itself).

The header is read as HTTP's authority: a name, an IPv4 address or a
bracketed IPv6 address, then at most one numeric port. Anything else
(`localhost:1@evil.example`, `host:abc`, a bare `::1`) is no authority and is
refused with 400. A request whose target is in absolute form
(`GET http://name/path`) names its host there, and HTTP says that name wins
over the header: it is checked the same way, and a target that is neither a
path nor an http(s) URL is refused with 400.

>>> check = HostCheck(["table.example.lan"], addresses=["192.168.1.20"], hostname="pi")
>>> [check.allows(h) for h in ("pi.local:8000", "192.168.1.20", "[::1]:80", "table.example.lan", "evil.example")]
[True, True, True, True, False]
"""

import ipaddress
import logging
import re
import socket
import threading
import time

from flask import current_app, request
from urllib.parse import urlsplit

from werkzeug.exceptions import BadRequest, HTTPException

from companion.web.address import mdns_name

log = logging.getLogger(__name__)

CONFIG_KEY = "web.allowed_hosts"
ADDRESSES_FRESH_S = 10.0  # an unknown address makes the table look its addresses up again, at most this often
ANY_HOST = "*"
NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?")  # DNS labels or an IPv4 address; no userinfo, no path
PORT = re.compile(r"[0-9]{1,5}")
MAX_PORT = 65535
WEB_SCHEMES = ("http", "https")


class MisdirectedRequest(HTTPException):
    code = 421
    description = "this table does not answer to that name"


def own_addresses(adapters=None) -> set[str]:
    """Every address of this machine, IPv4 and IPv6 (loopback and link-local included), from ifaddr."""
    found = {"127.0.0.1", "::1"}
    if adapters is None:
        import ifaddr

        try:
            adapters = ifaddr.get_adapters()
        except OSError:
            return found
    for adapter in adapters:
        for ip in adapter.ips:
            address = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            found.add(str(ipaddress.ip_address(address.split("%")[0])))
    return found


def split_host(host: str) -> str | None:
    """The name or address of a Host header, without its port or brackets, lower case; None if it is no authority.

    >>> [split_host(h) for h in ("Pi.local.:80", "[::1]:8000", "localhost:1@evil.example", "::1", "pi:99999")]
    ['pi.local', '::1', None, None, None]
    """
    host = host.strip().lower()
    if host.startswith("["):
        inside, bracket, rest = host[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
        if not bracket or (rest and not _is_port(port)):
            return None
        try:
            return str(ipaddress.IPv6Address(inside))
        except ValueError:
            return None
    name, colon, port = host.partition(":")
    if (colon and not _is_port(port)) or not NAME.fullmatch(name):
        return None
    return name.rstrip(".")


def _is_port(text: str | None) -> bool:
    return text is not None and PORT.fullmatch(text) is not None and int(text) <= MAX_PORT


class HostCheck:
    """The names and addresses the table answers to; `allows(host)` for each request's Host."""

    def __init__(self, names=(), *, addresses=None, hostname: str | None = None, clock=time.monotonic):
        hostname = (hostname or socket.gethostname()).lower()
        self.any = ANY_HOST in names
        self.names = {"localhost", hostname, hostname.split(".")[0], mdns_name(hostname).lower(),
                      *(split_host(n) for n in names if n != ANY_HOST)} - {None}
        self._fixed = addresses is not None
        self._addresses = set(addresses or ()) | {"127.0.0.1", "::1"}
        self._looked_up = float("-inf")
        self._clock = clock
        self._lock = threading.Lock()

    def allows(self, host: str) -> bool:
        if self.any:
            return True
        name = split_host(host)
        if name is None:
            return False
        if name in self.names:
            return True
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return False
        if address.is_loopback or str(address) in self._addresses:
            return True
        return self._refresh() and str(address) in self._addresses

    def _refresh(self) -> bool:
        """Look the machine's addresses up again (a router may have given it a new one); False if too soon."""
        if self._fixed:
            return False
        with self._lock:
            now = self._clock()
            if now - self._looked_up < ADDRESSES_FRESH_S:
                return False
            self._looked_up = now
        self._addresses = own_addresses() | self._addresses
        return True


def init_app(app, names=()) -> None:
    """Refuse requests for a Host that is not the table's own (before anything else looks at them)."""
    configured = app.config.get("ALLOWED_HOSTS")
    lan = app.config.get("LAN_ADDRESSES")
    mdns = app.config.get("MDNS_NAME")  # the mDNS name the table advertises, when it is given one
    app.extensions["host_check"] = HostCheck([*names, *(configured or ()), *([mdns] if mdns else [])], addresses=lan,
                                             hostname=app.config.get("HOSTNAME"))
    app.before_request(check_host)


def check_host():
    _check(request.headers.get("Host", ""))
    target = request.environ.get("REQUEST_URI") or request.environ.get("RAW_URI") or "/"
    if not target.startswith("/") and target != "*":  # absolute form: its authority is the request's host
        try:
            parts = urlsplit(target)
        except ValueError:
            parts = None
        if parts is None or parts.scheme not in WEB_SCHEMES or not parts.netloc:
            _refuse(BadRequest("the request's target is neither a path nor an http URL"), target)
        _check(parts.netloc)
    return None


def _check(host: str) -> None:
    """Raise 400 for a host that is no authority, 421 for one that is not the table's."""
    if current_app.extensions["host_check"].any:
        return
    name = split_host(host)
    if name is None:
        _refuse(BadRequest(f"{host[:80]!r} is not a host name, an address or either with a port"), host)
    if not current_app.extensions["host_check"].allows(host):
        _refuse(MisdirectedRequest(f"this table does not answer to the name {name[:80]!r}: open it by its address "
                                   f"or the name on its screen, or add the name to {CONFIG_KEY}"), host)


def _refuse(error: HTTPException, host: str) -> None:
    log.info("refused a request for the host %r from %s", host[:80], request.remote_addr)
    error.error_code = "errors.wrong_host" if isinstance(error, MisdirectedRequest) else "errors.bad_host"
    raise error
