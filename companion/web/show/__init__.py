"""The live show page: six hourglasses, the countdown track, the crowd tokens and the controls.

The page is a frame that its script fills from the live stream; the server puts
in what does not move: the controls (with the PIN), the PIN itself (on the
table's own screen only) and a QR code with the address for the other phones.
"""

import ipaddress
import socket
from functools import cache, lru_cache
from pathlib import Path
from urllib.parse import urlsplit

import segno
from flask import Blueprint, render_template, request

from companion.skyrockets import COLOURS
from companion.skyrockets import events as event_rules
from companion.web import get_table
from companion.web.areas import Area
from companion.web.i18n import translate
from companion.web.looks import LOOKS
from companion.web.security import from_the_table, unlocked

# The area keeps the name "table": its pages and links have always been table.index and /.
bp = Blueprint("table", __name__, template_folder="templates", static_folder="static",
               static_url_path="/table/static")

# The custom-event form checks what parse_event checks, with its limits (its text lengths are literals there).
EVENT_LIMITS = {
    "id": 64, "name": 80, "rules": 2000,
    "hand_size": (0, event_rules.MAX_HAND_SIZE), "countdown_start": (1, event_rules.MAX_START_SPACE),
}


@bp.get("/")
def index():
    table = get_table()
    url = table_url(table)
    return render_template(
        "table/index.html", area="table", colours=COLOURS, looks=LOOKS,
        unlocked=unlocked(), pin=table.pin if from_the_table() else None, has_strip=table.config.strip.enabled,
        url=url, qr=qr_svg(url, translate("share.qr_title")), limits=EVENT_LIMITS)


def table_url(table) -> str:
    """The address the other phones can open.

    The one this page was opened on, unless that only works on this machine
    (the table's own screen): then the table's address on its network.
    """
    here = urlsplit(request.host_url)
    try:
        port = here.port or table.config.web.port
    except ValueError:  # a Host header with a nonsense port
        return request.host_url
    if not _is_loopback(here.hostname or "") or _is_loopback(table.config.web.host):
        return request.host_url
    return f"http://{lan_address()}:{port}/"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@cache  # looked up once: a name lookup can be slow on a table without a network
def lan_address() -> str:
    """This machine's address on its network, or its mDNS name (a Pi answers to NAME.local)."""
    name = socket.gethostname()
    try:
        infos = socket.getaddrinfo(name, None, socket.AF_INET)
    except OSError:
        infos = []
    for info in infos:
        if not ipaddress.ip_address(info[4][0]).is_loopback:
            return info[4][0]
    return f"{name}.local"


@lru_cache(maxsize=8)
def qr_svg(url: str, title: str) -> str:
    """The address as a QR code, inline SVG (no script, no style attribute)."""
    return segno.make(url, error="m").svg_inline(
        scale=1, border=2, dark="#000", light="#fff", omitsize=True, svgclass="qr-code", lineclass=None,
        title=title)


area = Area("table", bp, "table.index", 10, catalogs=Path(__file__).parent / "i18n")
