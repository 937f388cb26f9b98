"""The table's upkeep from a phone: its data (config, calibration, database) downloaded as one backup, and a
backup restored (checked whole first; the daemon restarts on it, or takes it at its next start).

Only the owner (the table PIN) may do either. The page is /maintenance/; it is kept out of the navigation
(the setup page links to it).
"""

from pathlib import Path

from flask import Blueprint

from companion.web.areas import Area

bp = Blueprint("maintenance", __name__, template_folder="templates", static_folder="static",
               static_url_path="/maintenance/static")

from companion.web.backup import api, pages  # noqa: E402,F401  (their routes join bp)

area = Area("maintenance", bp, None, 90, catalogs=Path(__file__).parent / "i18n")
