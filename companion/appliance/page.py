"""The Wi-Fi page the table serves on its own access point: a phone gives the home network and the setup code.

The setup code is the one the table shows while setup is open (on the card, the kiosk, the journal): only
someone who has it can move the table to another network. It is read as the setup page reads it (groups,
any case) and guarded by the same guard (guessing.setup_code_guard: wrong codes slow their own address
alone, so a guest never keeps the owner out). The form carries a token from a cookie of its own page (a
page elsewhere cannot post it); its fields go through the Wi-Fi file's own reader.

The page is served by the watcher, which runs as root because it drives NetworkManager: the daemon, a
user without privileges, cannot save a network. So the door is kept narrow instead: it listens on the
access point's own address, only while the access point is up; a request's headers are read strictly
(a body's length in digits, at most FORM_LIMIT, read in full or not at all); a slow client is let go.
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

from companion import fields
from companion.appliance.bootfiles import COUNTRY_LETTERS, PSK_HEX, SSID_BYTES, WIFI_KEYS, wifi_setting
from companion.errors import BadInput
from companion.guessing import setup_code_guard
from companion.table.firstrun import CODE_LENGTH, grouped, matches, read_code

FORM_LIMIT = 2048  # bytes of a posted form: four short fields
FORM_FIELDS = 5  # the token and the four fields: a form with more is not this page's
CLIENT_TIMEOUT_S = 10.0  # a phone sends a form this small at once; a client that dawdles holds no thread


def catalogue(lang: str) -> dict:
    """The site's messages in `lang` (the refusals' sentences live there, by code)."""
    text = resources.files("companion.web").joinpath(f"static/i18n/{lang}.json").read_text("utf-8")
    return json.loads(text)


class WifiPage:
    """The page's logic without a server: `get()` and `post(form, cookie, lang, client)` give (status, html)."""

    def __init__(self, code_file: Path, save, clock=time.monotonic):
        self.code_file = Path(code_file)
        self.save = save  # called with the checked WifiSetting
        self.token = secrets.token_urlsafe(16)
        self.guard = setup_code_guard(clock)

    def get(self, lang: str = "en") -> tuple[int, str]:
        return 200, self.form(lang)

    def post(self, form: dict, cookie: str, lang: str = "en", client: str = "?") -> tuple[int, str]:
        words = catalogue(lang)
        if not (_same(form.get("token"), self.token) and _same(cookie, self.token)):
            return 403, self.form(lang, words["errors.csrf"])
        now = self.guard.clock()
        if self.guard.wait_s(client, now) > 0:
            return 429, self.form(lang, words["errors.too_many"])
        code = read_code(self.code_file)
        if code is None:
            return 409, self.form(lang, words["errors.wifi.closed"])
        if not matches(form.get("code"), code):
            self.guard.failed(client, now)
            return 403, self.form(lang, words["errors.wifi.code"])
        self.guard.succeeded(client)
        try:
            wifi = wifi_setting({k: form.get(k, "") for k in WIFI_KEYS}, "wifi")
        except BadInput as refused:
            return 400, self.form(lang, refusal(refused, words))
        self.save(wifi)
        return 200, page(lang, html.escape(words["wifi.joining"].format(ssid=wifi.ssid)))

    def form(self, lang: str, problem: str = "") -> str:
        words = catalogue(lang)
        field = '<label>{label}<input name="{name}" {extra}></label>'
        shown_code = len(grouped("X" * CODE_LENGTH))  # as the screen shows it: groups and their dashes
        fields_ = "".join(field.format(label=html.escape(words[f"wifi.{name}"]), name=name, extra=extra)
                          for name, extra in (
            ("ssid", f'required maxlength="{SSID_BYTES}"'), ("password", f'type="password" maxlength="{PSK_HEX}"'),
            ("country", f'required maxlength="{COUNTRY_LETTERS}" size="{COUNTRY_LETTERS}" autocapitalize="characters"'),
            ("code", f'required maxlength="{shown_code + 4}" autocapitalize="characters" autocomplete="off" '
                     'spellcheck="false"')))
        shown = f'<p role="alert">{html.escape(problem)}</p>' if problem else ""
        return page(lang, f'<h1>{html.escape(words["wifi.title"])}</h1>{shown}<form method="post" action="/">'
                          f'<input type="hidden" name="token" value="{self.token}">{fields_}'
                          f'<button>{html.escape(words["wifi.join"])}</button></form>')


def _same(given: object, token: str) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode("utf-8", "replace"), token.encode())


def refusal(refused: BadInput, words: dict) -> str:
    """A refusal in the owner's language, by its code, naming its field."""
    sentence = words.get(getattr(refused, "error_code", ""), words["errors.bad_input"])
    return f"{refused.field}: {sentence.format(**refused.params)}"


def read_form(headers, body_file) -> dict:
    """A posted form read strictly: its length in digits and within FORM_LIMIT (BadInput, else: nothing is read
    past it), UTF-8, at most FORM_FIELDS fields, each once."""
    if "Transfer-Encoding" in headers:
        raise BadInput("Transfer-Encoding", "not taken here: send the form with its Content-Length",
                       code="errors.bad_input")
    length = fields.digits(headers.get("Content-Length"), "Content-Length", 0, FORM_LIMIT)
    body = body_file.read(length)
    if len(body) != length:
        raise BadInput("Content-Length", f"{length} bytes announced, {len(body)} sent", code="errors.bad_input")
    try:
        pairs = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=FORM_FIELDS)
    except (UnicodeDecodeError, ValueError):
        raise BadInput("form", f"not a form of at most {FORM_FIELDS} fields in UTF-8", code="errors.bad_input") \
            from None
    for name, values in pairs.items():
        if len(values) != 1:
            raise BadInput(fields.at("form", name), "given more than once", code="errors.bad_input")
    return {name: values[0] for name, values in pairs.items()}


def page(lang: str, body: str) -> str:
    return (f'<!doctype html><html lang="{lang}"><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            '<style>label,input,button{display:block;font-size:1.2em;margin:.4em 0;width:100%}</style>'
            f"<body>{body}</body></html>")


def serve(wifi_page: WifiPage, port: int, host: str) -> ThreadingHTTPServer:
    """Serve the page on `host`:`port` (in a thread of its own; the caller shuts it down)."""

    class Handler(BaseHTTPRequestHandler):
        timeout = CLIENT_TIMEOUT_S

        def _lang(self) -> str:
            return "ja" if self.headers.get("Accept-Language", "").lower().startswith("ja") else "en"

        def _answer(self, status: int, body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Set-Cookie", f"wifi-token={wifi_page.token}; Path=/; SameSite=Strict; HttpOnly")
            self.send_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; "
                             "form-action 'self'; frame-ancestors 'none'")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):  # noqa: N802 (http.server's name)
            self._answer(*wifi_page.get(self._lang()))

        def do_POST(self):  # noqa: N802
            lang, words = self._lang(), catalogue(self._lang())
            try:
                form = read_form(self.headers, self.rfile)
            except BadInput as refused:
                too_big = refused.field == "Content-Length" and str(self.headers.get("Content-Length")).isdigit()
                self.close_connection = True  # whatever was not read is not read as the next request
                self._answer(413 if too_big else 400, wifi_page.form(lang, words["errors.too_large"] if too_big
                                                                      else f"{refused.field}: {words['errors.bad_input']}"))
                return
            cookies = dict(part.strip().partition("=")[::2] for part in self.headers.get("Cookie", "").split(";"))
            self._answer(*wifi_page.post(form, cookies.get("wifi-token", ""), lang, self.client_address[0]))

        def log_message(self, *args):  # the journal keeps the watcher's own lines, not every request
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    threading.Thread(target=server.serve_forever, name="wifi-page", daemon=True).start()
    return server
