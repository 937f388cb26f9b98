"""The live show page: six hourglasses, the countdown track, the crowd tokens and the controls.

The page is a frame that its script fills from the live stream; the server puts
in what does not move: the controls (with the PIN), the PIN itself (on the
table's own screen only), the limits the forms check, and a QR code with the
address for the other phones.
"""


from functools import lru_cache
from urllib.parse import urlsplit

from flask import current_app, render_template, request

from companion.skyrockets import COLOURS
from companion.skyrockets import events as event_rules
from companion.skyrockets.colours import MAX_DURATION_S, MIN_GLASS_S
from companion.skyrockets.show import CROWD_TOKENS
from companion.web import desk, door, setup
from companion.web.address import ALLOW_PHONES_OPTION, Listening, is_loopback, lan_addresses, mdns_name
from companion.web.owner import is_owner
from companion.web.show import bp
from companion.web.i18n import translate
from companion.web.looks import LOOKS, SOUNDS
from companion.web.security import from_the_table, unlocked

# The custom-event form checks what parse_event checks, with its limits.
EVENT_LIMITS = {
    "id": event_rules.MAX_EVENT_ID, "name": event_rules.MAX_EVENT_NAME, "rules": event_rules.MAX_EVENT_RULES,
    "hand_size": (0, event_rules.MAX_HAND_SIZE), "countdown_start": (1, event_rules.MAX_START_SPACE),
}
CALIBRATION_STEP_S = 0.01  # a stopwatch's hundredths


@bp.get("/")
def index():
    share = phone_links()
    url = table_url(share)
    page_data = {"looks": LOOKS, "sounds": SOUNDS, "crowd_tokens": CROWD_TOKENS}
    return render_template(
        "table/index.html", area="table", colours=COLOURS, looks=LOOKS, page_data=page_data,
        unlocked=unlocked(), pin=door().pin if from_the_table() else None, has_strip=desk().has_strip,
        url=url, also=share["links"][1:], local_only=share["local_only"], allow_phones=ALLOW_PHONES_OPTION,
        qr=qr_svg(url, translate("share.qr_title")), limits=EVENT_LIMITS,
        calibration={"min": MIN_GLASS_S, "max": int(MAX_DURATION_S), "step": CALIBRATION_STEP_S},
        setup_pending=setup().setup_door()["open"], owner=is_owner())


def phone_links() -> dict:
    """The links the other phones can open, best first, and whether none exists (bound to loopback).

    A page opened on a network address was reached by that address, so it
    leads. On the table's own screen (a loopback address) the links are the
    machine's LAN addresses the server listens on, then its mDNS name.
    """
    listening = Listening(*door().listening)
    here = urlsplit(request.host_url)
    try:
        port = here.port or listening.port
    except ValueError:  # a Host header with a nonsense port
        return {"links": [request.host_url], "local_only": listening.local_only}
    if not is_loopback(here.hostname or ""):
        return {"links": [request.host_url], "local_only": False}
    addresses = current_app.config.get("LAN_ADDRESSES")
    mdns = current_app.config.get("MDNS_NAME")
    found = Listening(listening.host, port).links(
        lan_addresses() if addresses is None else addresses, mdns_name() if mdns is None else mdns)
    return {"links": found, "local_only": listening.local_only}


def table_url(share: dict | None = None) -> str:
    """The one address to give the other phones (the QR code's): the best link, else the one this page came by."""
    links = (share or phone_links())["links"]
    return links[0] if links else request.host_url


@lru_cache(maxsize=8)
def qr_svg(url: str, title: str) -> str:
    """The address as a QR code, inline SVG (no script, no style attribute)."""
    import segno  # here, not at the top: the first page drawn waits for it, a table's restart does not

    return segno.make(url, error="m").svg_inline(
        scale=1, border=2, dark="#000", light="#fff", omitsize=True, svgclass="qr-code", lineclass=None,
        title=title)
