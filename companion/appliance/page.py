"""The Wi-Fi page the table serves on its own access point: a phone gives the home network and the setup code.

The setup code is the one the table shows while setup is open (on the card, the kiosk, the journal): only
someone who has it can move the table to another network. The form carries a token from a cookie of its
own page (a page elsewhere cannot post it), and wrong codes are counted.
"""

import hmac
import html
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from urllib.parse import parse_qs

from companion.appliance.bootfiles import WIFI_KEYS, wifi_setting
from companion.errors import BadInput

WRONG_CODES = 5  # wrong setup codes in a row before the page makes the next one wait
WRONG_WAIT_S = 60.0
FORM_LIMIT = 2048  # bytes of a posted form: three short fields


def catalogue(lang: str) -> dict:
    """The site's messages in `lang` (the refusals' sentences live there, by code)."""
    text = resources.files("companion.web").joinpath(f"static/i18n/{lang}.json").read_text("utf-8")
    return json.loads(text)


class WifiPage:
    """The page's logic without a server: `get()` and `post(form, cookie)` give (status, html)."""

    def __init__(self, code_file: Path, save, clock=time.monotonic):
        self.code_file = Path(code_file)
        self.save = save  # called with the checked WifiSetting
        self.clock = clock
        self.token = secrets.token_urlsafe(16)
        self.wrong = 0
        self.wait_until = 0.0
        self.lock = threading.Lock()

    def setup_code(self) -> str | None:
        try:
            return self.code_file.read_text().strip() or None
        except OSError:
            return None

    def get(self, lang: str = "en") -> tuple[int, str]:
        return 200, self.form(lang)

    def post(self, form: dict, cookie: str, lang: str = "en") -> tuple[int, str]:
        words = catalogue(lang)
        if not hmac.compare_digest(form.get("token", ""), self.token) or not hmac.compare_digest(cookie, self.token):
            return 403, self.form(lang, words["errors.csrf"])
        with self.lock:
            if self.clock() < self.wait_until:
                return 429, self.form(lang, words["errors.too_many"])
            code = self.setup_code()
            if code is None:
                return 409, self.form(lang, words["errors.wifi.closed"])
            if not hmac.compare_digest(form.get("code", "").strip(), code):
                self.wrong += 1
                if self.wrong >= WRONG_CODES:
                    self.wrong, self.wait_until = 0, self.clock() + WRONG_WAIT_S
                return 403, self.form(lang, words["errors.wifi.code"])
            self.wrong = 0
        try:
            wifi = wifi_setting({k: form.get(k, "") for k in WIFI_KEYS}, "wifi")
        except BadInput as refused:
            sentence = words.get(getattr(refused, "error_code", ""), words["errors.bad_input"])
            return 400, self.form(lang, f"{refused.field}: {sentence.format(**refused.params)}")
        self.save(wifi)
        return 200, page(lang, html.escape(words["wifi.joining"].format(ssid=wifi.ssid)))

    def form(self, lang: str, problem: str = "") -> str:
        words = catalogue(lang)
        field = '<label>{label}<input name="{name}" {extra}></label>'
        fields = "".join(field.format(label=html.escape(words[f"wifi.{name}"]), name=name, extra=extra) for name, extra in (
            ("ssid", 'required maxlength="32"'), ("password", 'type="password"'),
            ("country", 'required maxlength="2" size="2"'), ("code", 'required inputmode="numeric"')))
        shown = f'<p role="alert">{html.escape(problem)}</p>' if problem else ""
        return page(lang, f'<h1>{html.escape(words["wifi.title"])}</h1>{shown}<form method="post" action="/">'
                          f'<input type="hidden" name="token" value="{self.token}">{fields}'
                          f'<button>{html.escape(words["wifi.join"])}</button></form>')


def page(lang: str, body: str) -> str:
    return (f'<!doctype html><html lang="{lang}"><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            '<style>label,input,button{display:block;font-size:1.2em;margin:.4em 0;width:100%}</style>'
            f"<body>{body}</body></html>")


def serve(wifi_page: WifiPage, port: int) -> ThreadingHTTPServer:
    """Serve the page on `port` (in a thread of its own; the caller shuts it down)."""

    class Handler(BaseHTTPRequestHandler):
        def _lang(self) -> str:
            return "ja" if self.headers.get("Accept-Language", "").lower().startswith("ja") else "en"

        def _answer(self, status: int, body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Set-Cookie", f"wifi-token={wifi_page.token}; Path=/; SameSite=Strict; HttpOnly")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):  # noqa: N802 (http.server's name)
            self._answer(*wifi_page.get(self._lang()))

        def do_POST(self):  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            if length > FORM_LIMIT:
                self._answer(413, page("en", "too large"))
                return
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode("utf-8", "replace")).items()}
            cookies = dict(part.strip().partition("=")[::2] for part in self.headers.get("Cookie", "").split(";"))
            self._answer(*wifi_page.post(form, cookies.get("wifi-token", ""), self._lang()))

        def log_message(self, *args):  # the journal keeps the watcher's own lines, not every request
            pass

    server = ThreadingHTTPServer(("", port), Handler)
    threading.Thread(target=server.serve_forever, name="wifi-page", daemon=True).start()
    return server
