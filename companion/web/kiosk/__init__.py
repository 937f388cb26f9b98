"""The table's own screen: the live show large enough to read across the table, the QR code and the PIN.

A page for a display on the Pi itself (HDMI or the Touch Display), opened by
Chromium in kiosk mode. It only reads: the live show from `/api/show/events`,
like every page. It is left out of the phones' navigation.
"""

from pathlib import Path

from flask import Blueprint

from companion.web.areas import Area

bp = Blueprint("kiosk", __name__, template_folder="templates", static_folder="static",
               static_url_path="/kiosk/static")

from companion.web.kiosk import pages  # noqa: E402,F401  (its routes join bp; the page only reads /api/show)

# The screen shows the show's words (its glasses, countdown, roles), the festival's progress and, between
# shows, the group's progress (its own page, /kiosk/progress).
area = Area("kiosk", bp, None, 90, catalogs=Path(__file__).parent / "i18n", shares=("table", "scorepad", "progress"))
