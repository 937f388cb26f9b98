"""A form its script sends (it names an API, not an action) is hidden until the script listens.

Before then a tap would send it to the page as a plain GET, settings and all, and a change would go unheard
(a glass whose source was changed at once kept the tilt cradle's two pins). site.css hides `form[data-enhance]` until
its script marks it ready; the browser tests see each such form shown.
"""

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "companion" / "web"
FORM = re.compile(r"<form\b[^>]*>")


def test_every_form_a_script_sends_waits_for_its_script():
    scripted = [(path.relative_to(WEB), tag) for path in sorted(WEB.rglob("*.html"))
                for tag in FORM.findall(path.read_text(encoding="utf-8")) if "data-api=" in tag]
    assert len(scripted) >= 6  # the scorepad's, the festivals', the setup page's, the backup page's...
    assert [(str(path), tag) for path, tag in scripted if "data-enhance" not in tag] == []
