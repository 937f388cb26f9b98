"""Setting the table up from a phone: the first run and, later, the settings, behind the owner's setup code.

The page writes the config file through the config's own checks (a refusal
names the key, as `companion run` would) and the table applies it at once;
its wiring check and its glass timing read the table through the same code
as `companion check-hw` and `companion calibrate` (companion.table.wiring).
"""

from pathlib import Path

from flask import Blueprint

from companion.web.areas import Area

bp = Blueprint("setup", __name__, template_folder="templates", static_folder="static",
               static_url_path="/setup/static")

from companion.web.setup import api, pages  # noqa: E402,F401  (their routes join bp)

area = Area("setup", bp, "setup.index", 80, catalogs=Path(__file__).parent / "i18n")
