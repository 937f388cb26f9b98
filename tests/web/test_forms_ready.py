"""A control only its script can work waits for that script before it can be used.

Before then a tap is lost or worse: a form sent to the page as a plain GET, settings and all, a change unheard (a glass
whose source was changed at once kept the tilt cradle's two pins), a button that does nothing (the table's screen
showed no pairing code). Each page's script first fetches its words, so the gap is real on a slow phone. A form its
script sends is hidden until the script marks it ready (site.css, `form[data-enhance]`). Not every page has its
stylesheet when a tap comes, so the buttons do not rely on it: a lone button, or the submit button of a form with no
action of its own, starts disabled, hidden, or inside something hidden, until its script enables it.
"""

import re
from html.parser import HTMLParser
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "companion" / "web"
FORM = re.compile(r"<form\b[^>]*>")
TEMPLATES = sorted(WEB.rglob("*.html"))
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def test_every_form_a_script_sends_waits_for_its_script():
    scripted = [(path.relative_to(WEB), tag) for path in TEMPLATES
                for tag in FORM.findall(path.read_text(encoding="utf-8")) if "data-api=" in tag]
    assert len(scripted) >= 6  # the scorepad's, the festivals', the setup page's, the backup page's...
    assert [(str(path), tag) for path, tag in scripted if "data-enhance" not in tag] == []


class EarlyButtons(HTMLParser):
    """The buttons a person can tap before the page's script runs, which only the script can work."""

    def __init__(self):
        super().__init__()
        self.open = []  # (tag, hides what it holds, a form only a script can send)
        self.early = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "button":
            scripted_form = any(script_only for _, _, script_only in self.open)
            needs_script = attrs.get("type") == "button" or (attrs.get("type", "submit") == "submit" and scripted_form)
            hidden = "disabled" in attrs or "hidden" in attrs or any(hides for _, hides, _ in self.open)
            if needs_script and not hidden:
                self.early.append(attrs.get("id") or attrs.get("class") or "button")
        if tag in VOID:
            return
        hides = "hidden" in attrs or tag == "dialog"  # a dialog is shown only by a script
        script_only = tag == "form" and not {"action", "method"} & attrs.keys()
        self.open.append((tag, hides, script_only))

    def handle_endtag(self, tag):
        for depth in range(len(self.open) - 1, -1, -1):
            if self.open[depth][0] == tag:
                del self.open[depth:]
                return


def early_buttons(text):
    parser = EarlyButtons()
    parser.feed(text)
    return parser.early


def test_the_reader_finds_a_lone_button_and_a_scripted_forms_submit():
    assert early_buttons('<button type="button" id="a">A</button>') == ["a"]
    assert early_buttons('<form id="f"><button id="go">Go</button></form>') == ["go"]
    assert early_buttons('<button type="button" id="a" disabled>A</button>') == []
    assert early_buttons('<div hidden><p><button type="button" id="a">A</button></p></div>') == []
    assert early_buttons('<dialog><button type="button" id="a">A</button></dialog>') == []
    assert early_buttons('<form method="get"><button>Go</button></form>') == []  # the page itself answers it
    assert early_buttons('<form data-enhance data-api="/api/x"><button id="go">Go</button></form>') == ["go"]
    assert early_buttons('<div hidden></div><button type="button" id="a">A</button>') == ["a"]


def test_no_button_only_a_script_can_work_is_live_before_its_script():
    early = {str(path.relative_to(WEB)): found for path in TEMPLATES
             if (found := early_buttons(path.read_text(encoding="utf-8")))}
    assert early == {}
