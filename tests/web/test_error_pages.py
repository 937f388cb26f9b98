"""An error page speaks the page's language: its sentence comes from the catalogue by the error's code,
never werkzeug's English (or our refusals' English, which is for scripts and logs)."""

import json
import re
from pathlib import Path

import pytest


CATALOGUE = Path(__file__).resolve().parents[2] / "companion" / "web" / "static" / "i18n"
WORDS = {lang: json.loads((CATALOGUE / f"{lang}.json").read_text(encoding="utf-8")) for lang in ("en", "ja")}
DETAIL = re.compile(r'<section class="panel error-page">\s*<h1>(.*?)</h1>\s*<p>(.*?)</p>', re.S)



def page(client, lang, method, path, **kwargs):
    client.set_cookie("lang", lang)
    answer = client.open(path, method=method, **kwargs)
    headline, detail = DETAIL.search(answer.get_data(as_text=True)).groups()
    return answer.status_code, headline, detail


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("method, path, status, code", [
    ("GET", "/no-such-page", 404, "errors.not_found"),
    ("GET", "/pin/forget", 405, "errors.method"),
    ("POST", "/pin", 403, "errors.csrf"),  # a form sent with no (or a stale) security token
])
def test_an_error_page_says_its_code_s_sentence_in_the_page_s_language(client, lang, method, path, status, code):
    got, headline, detail = page(client, lang, method, path, data={"pin": "1234"})
    assert (got, headline, detail) == (status, WORDS[lang][f"error.{status}"], WORDS[lang][code])


def test_no_english_sentence_reaches_a_japanese_error_page(client):
    for method, path in (("GET", "/nothing/here"), ("GET", "/pin/forget"), ("POST", "/pin")):
        _, _, detail = page(client, "ja", method, path)
        assert not re.search(r"[A-Za-z]{3,}", detail), detail


def test_a_page_s_own_english_words_never_reach_a_japanese_page(client):
    """A page that refuses for a reason of its own (a 帰る雁 game that is not there) says it with its code's
    sentence, in the page's language."""
    _, _, detail = page(client, "ja", "GET", "/geese/check?game=99")
    assert detail == WORDS["ja"]["errors.game.gone"]  # the game's own sentence, in Japanese
    _, _, detail = page(client, "en", "GET", "/geese/check?game=99")
    assert detail == WORDS["en"]["errors.game.gone"]
