"""The kiosk page: a frame its script fills from the live stream, with the address and (on the table) the PIN."""

from urllib.parse import urlsplit

from flask import jsonify, render_template

from companion.skyrockets import COLOURS
from companion.skyrockets.show import CROWD_TOKENS
from companion.web import door, figures, setup
from companion.web.address import is_loopback
from companion.web.i18n import translate
from companion.web.looks import LOOKS
from companion.web.security import PAIRING_S, from_the_table, open_pairing
from companion.web.kiosk import bp
from companion.web.progress import book, charts
from companion.web.progress.pages import map_labels, recap_lines, said
from companion.web.show.pages import phone_links, qr_svg

# With no show running, the screen turns to the group's progress after this long (a finished show's result
# stays up as long), and back to the live show as soon as one starts: nobody has to touch it.
PROGRESS_AFTER_S = 120
PROGRESS_REFRESH_S = 300  # the progress screen reads its figures again this often (a board game finished meanwhile)


def join() -> dict:
    """The address the QR code gives the phones, or None while the table has none they can reach.

    The kiosk is opened on the Pi itself, by 127.0.0.1: that address would
    lead each phone to itself, so it is never offered. At boot the screen may
    come up before the Wi-Fi; its script asks again until an address comes.
    """
    share = phone_links()
    url = next((link for link in share["links"] if not is_loopback(urlsplit(link).hostname or "")), None)
    if url is None:  # why: the server listens on loopback alone, or the machine has no address yet
        why = translate("kiosk.local_only") if share["local_only"] else translate("kiosk.no_address")
        return {"url": None, "label": why, "qr": None}
    return {"url": url, "label": url.split("://", 1)[1].rstrip("/"), "qr": qr_svg(url, translate("kiosk.join"))}


def card_notes() -> list[str]:
    """Why a file the owner put on the card was not used, in the screen's language (the English line first boot
    wrote, for a refusal no catalogue has)."""
    desk = setup()
    said = []
    for note in desk.card_notes() if desk else []:
        reason = translate(note["code"], **note["params"])
        said.append(translate("kiosk.card_refused", file=note["file"],
                              reason=note["error"] if reason == note["code"] else reason))
    return said


@bp.get("/kiosk/")
def index():
    screen = from_the_table()  # the owner's business, as the PIN is: said on the table's own screen only
    return render_template(
        "kiosk/index.html", area="kiosk", colours=COLOURS, looks=LOOKS, tokens=CROWD_TOKENS,
        pin=door().pin if screen else None, join=join(), card_notes=card_notes() if screen else [],
        progress_after_ms=int(PROGRESS_AFTER_S * 1000) if figures() else None)  # none: a table keeping no progress


@bp.get("/kiosk/progress")
def progress():
    """The group's progress for the table's screen: the campaign map beside tonight, large, nothing to press."""
    shown = book()
    campaign, recap = shown.campaign(), shown.tonight()
    drawn = charts.campaign_map(campaign["festivals"], map_labels(campaign["festivals"]))
    return render_template(
        "kiosk/progress.html", area="kiosk", campaign=campaign, campaign_said=said(campaign["sentence"]),
        map=drawn, recap=recap, recap_lines=recap_lines(recap)[1:],
        join=join(), pin=door().pin if from_the_table() else None, refresh_s=PROGRESS_REFRESH_S)


@bp.get("/kiosk/join")
def join_address():
    return jsonify(join())


@bp.post("/api/pair")
def new_pairing():
    """A one-tap pairing code for a new phone, as a link and its QR code (the table's own screen only).

    It lets a phone in without the PIN, so it works while someone is guessing the PIN.
    """
    code = open_pairing()
    joining = join()
    base = joining["url"]
    if base is None:
        return jsonify({"url": None, "qr": None, "label": joining["label"], "valid_s": PAIRING_S})
    url = f"{base.rstrip('/')}/pair/{code}"
    return jsonify({"url": url, "qr": qr_svg(url, translate("kiosk.pair_scan")), "label": translate("kiosk.pair_scan"),
                    "valid_s": PAIRING_S})
