"""The kiosk page: a frame its script fills from the live stream, with the address and (on the table) the PIN."""

from flask import render_template

from companion.skyrockets import COLOURS
from companion.skyrockets.show import CROWD_TOKENS
from companion.web import get_table
from companion.web.i18n import translate
from companion.web.looks import LOOKS
from companion.web.security import from_the_table
from companion.web.kiosk import bp
from companion.web.show.pages import qr_svg, table_url

@bp.get("/kiosk/")
def index():
    table = get_table()
    url = table_url(table)
    return render_template(
        "kiosk/index.html", area="kiosk", colours=COLOURS, looks=LOOKS, tokens=CROWD_TOKENS,
        pin=table.pin if from_the_table() else None, url=url, qr=qr_svg(url, translate("kiosk.join")))
