"""One Japanese word per term: the glossary's ruled-out words and phrases, and its punctuation, appear nowhere;
every catalogue writes a number against its counter (3人, {n}枚).

The glossary is companion/data/glossary.toml. Its tables in docs/glossary.md
and docs/glossary.ja.md are drawn from it; after changing it, run
`python tests/docs/test_glossary.py` to redraw them.
"""

import json
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = tomllib.loads((ROOT / "companion" / "data" / "glossary.toml").read_text())
DOCS = {"en": ROOT / "docs" / "glossary.md", "ja": ROOT / "docs" / "glossary.ja.md"}
TABLE = re.compile(r"(<!-- glossary:(\w+) -->\n)(.*?)(<!-- /glossary -->)", re.S)
HEADERS = {
    "en": ("English", "Japanese", "From", "Not used"),
    "ja": ("英語", "日本語", "出典", "使わない語"),
}

JAPANESE = "\u3001-\u303f\u3040-\u30ff\u4e00-\u9fff"
# ASCII punctuation in or touching Japanese text, and full-width forms that have a Japanese twin.
PUNCTUATION = re.compile(
    rf"(?<=[{JAPANESE}])[()]|[()](?=[{JAPANESE}])"          # ( ) against Japanese: （ ）
    rf"|\([^()]*[{JAPANESE}][^()]*(?:\)|$)|^[^()]*[{JAPANESE}][^()]*\)"  # ( ) around it, over lines too
    rf"|(?<=[{JAPANESE}」）*]):|:(?=[{JAPANESE}{{])"               # : after or before it: ：
    rf"|(?<=[{JAPANESE}]),|(?<=[{JAPANESE}])\.(?=\s|$)"     # , . after it: 、 。
    rf"|(?<=[{JAPANESE}])[!?]"                             # ! ? after it: ！ ？
    r"|[，．“”]"
)
# A number, or a slot that holds one, a space, then a Japanese counter: 3 人 is written 3人.
COUNTERS = "人|点|枚|秒|分|回|個|羽|列|行|番目|つ|件|台|スペース|巡|ステージ|キューブ|時間|日|VP"
COUNTER_SPACE = re.compile(rf"(?:\d|\{{\w+\}})[ \u00a0\u3000]+(?:{COUNTERS})")
LINK_TARGET = re.compile(r"\]\([^)\s]*\)")


def scoped_games() -> dict:
    return {game: meta for game, meta in GLOSSARY["games"].items() if "paths" in meta}


def pieces() -> list:
    """Every Japanese term, each part of a listed term on its own."""
    return [piece for term in GLOSSARY["term"] for piece in term["ja"].split("、")]


def ruled_out(text: str, games: set) -> list:
    """The ruled-out words and phrases in a text whose place belongs to `games`, with what to use instead."""
    found = [f"{phrase['avoid']!r} (say {phrase['use']!r})"
             for phrase in GLOSSARY["phrase"] for _ in re.finditer(re.escape(phrase["avoid"]), text)]
    scoped = scoped_games()
    seen = set()  # a word two terms rule out (マス) is told once, by the term of the text's own game
    for term in sorted(GLOSSARY["term"], key=lambda term: term["game"] not in games):
        if term["game"] in scoped and term["game"] not in games:
            continue
        for word in term.get("avoid", ()):
            longer = [p for p in pieces() if word in p and p != word]
            for at in (m.start() for m in re.finditer(re.escape(word), text)):
                if (at, word) not in seen and not any(
                        text.find(p, at - p.index(word)) == at - p.index(word) for p in longer):
                    seen.add((at, word))
                    found.append(f"{word!r} (use {term['ja']!r} for {term['en']!r})")
    return found


def path_games(path: Path) -> set:
    parts = path.relative_to(ROOT).parts
    return {game for game, meta in scoped_games().items()
            if any(part.startswith(prefix) for part in parts for prefix in meta["paths"])}


def heading_games(heading: str) -> set:
    return {game for game, meta in scoped_games().items() if meta["ja"] in heading}


def markdown_lines(text: str):
    """(line number, text, games named by its headings) of a document's prose:
    code blocks, inline code and the drawn glossary tables left out."""
    text = TABLE.sub(lambda m: m[1] + "\n" * m[3].count("\n") + m[4], text)
    headings, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if heading := re.match(r"(#+) (.*)", line):
            level = len(heading[1])
            headings = [h for h in headings if h[0] < level] + [(level, heading[2])]
        games = set().union(*(heading_games(h) for _, h in headings))
        yield number, re.sub(r"`[^`]*`", "", line), games


def japanese_documents() -> list:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.ja.md"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return sorted(ROOT / name for name in listed if (ROOT / name).is_file())


def catalogues() -> list:
    return sorted((ROOT / "companion").rglob("i18n/ja.json"))


def page_sources() -> list:
    companion = ROOT / "companion"
    return sorted([*companion.rglob("templates/**/*.html"), *companion.rglob("*.js")])


def texts(path: Path, text: str | None = None):
    """(where, text, games) for each piece of a page source, catalogue or document
    (its planted `text` instead of the file's, in the controls)."""
    text = path.read_text() if text is None else text
    games = path_games(path)
    name = path.relative_to(ROOT)
    if path.suffix == ".json":
        for key, value in json.loads(text).items():
            yield f"{name}: {key}", value, games
    elif path.suffix == ".md":
        for number, line, named in markdown_lines(text):
            yield f"{name}:{number}", line, games | named
    else:
        yield str(name), text, games


def problems(paths, check) -> list:
    return [f"{where}: {found}" for path in paths for where, text, games in texts(path)
            for found in check(text, games)]


def punctuation(text: str, games: set) -> list:
    return [f"{m[0]!r} (in Japanese text use 、。「」：（）)"
            for m in PUNCTUATION.finditer(LINK_TARGET.sub("]", text))]


def counter_spacing(text: str, games: set) -> list:
    return [f"{m[0]!r} (no space between a number and its counter)" for m in COUNTER_SPACE.finditer(text)]


def every_catalogue() -> list:
    """Every catalogue of every area, in each language."""
    return sorted((ROOT / "companion").rglob("i18n/*.json"))


def test_every_catalogue_writes_numbers_against_their_counters():
    assert problems([p for p in every_catalogue() if p.stem == "ja"], counter_spacing) == []


@pytest.mark.parametrize("text, refused", [
    ("{total} 枚中 {n} 枚が星の面", True), ("3 人", True), ("12\u3000点", True), ("{n} VP", True),
    ("{total}枚中{n}枚が星の面", False), ("GPIO 10 (SPI)", False), ("残り {time}", False), ("星{n}つ", False),
])
def test_a_space_before_a_counter_is_found(text, refused):
    assert bool(counter_spacing(text, set())) is refused


def test_every_catalogue_is_read():
    read = {p.relative_to(ROOT).as_posix() for p in every_catalogue()}
    areas = {p.parent.name for p in (ROOT / "companion").rglob("i18n")}
    assert {"static", "show", "kiosk", "setup", "flock", "geese", "scorepad", "shows", "hall"} <= areas
    for folder in {p.rsplit("/", 1)[0] for p in read}:
        assert {f"{folder}/en.json", f"{folder}/ja.json"} <= read
    assert {p for p in read if p.endswith("ja.json")} == {p.relative_to(ROOT).as_posix() for p in catalogues()}


def test_no_page_or_japanese_document_uses_a_ruled_out_word():
    assert problems([*catalogues(), *page_sources(), *japanese_documents()], ruled_out) == []


def test_japanese_text_uses_japanese_punctuation():
    assert problems([*catalogues(), *japanese_documents()], punctuation) == []


def test_every_part_of_the_project_is_read():
    read = {p.relative_to(ROOT).as_posix() for p in [*catalogues(), *page_sources(), *japanese_documents()]}
    for expected in ("companion/web/static/i18n/ja.json", "companion/mqtt/hall/i18n/ja.json",
                     "companion/web/geese/i18n/ja.json", "docs/rules.ja.md", "hw/README.ja.md",
                     "firmware/PROTOCOL.ja.md", "README.ja.md", "companion/web/static/js/i18n.js",
                     "companion/web/templates/base.html"):
        assert expected in read


@pytest.mark.parametrize("name, text, planted", [
    ("companion/web/static/i18n/ja.json", '{"pin.label": "テーブルの暗証番号"}', "'暗証番号'"),
    ("companion/web/templates/x.html", "<p>LED ストリップ</p>", "'ストリップ'"),
    ("companion/web/static/js/x.js", 'const label = "観客トークン";', "'観客'"),
    ("docs/web.ja.md", "# 帰る雁\n\n## カード\n\nツル・カモメ・ワシ", "'ツル'"),
    ("docs/geese.ja.md", "雁と渡りの得点", "'渡り'"),
    ("docs/rules.ja.md", "## 帰る雁\n\n**虹:** すべて違う", "'虹'"),
    ("docs/flock.ja.md", "盤面の鳥", "'盤面'"),
    ("companion/web/flock/i18n/ja.json", '{"a": "0行目が先頭の空きマス"}', "'0行目'"),
    ("companion/web/geese/i18n/ja.json", '{"a": "あなたの手番です"}', "'手番'"),
    ("companion/web/geese/i18n/ja.json", '{"a": "使える値は5〜7"}', "'使える値'"),
    ("companion/web/static/i18n/ja.json", '{"a": "テーブルはいまそれを行えません。"}', "'テーブルはいまそれを行えません'"),
    ("companion/web/static/i18n/ja.json", '{"a": "砂が落ちています"}', "'砂が落ちています'"),
])
def test_a_planted_word_is_found(name, text, planted):
    path = ROOT / name
    found = [f for where, piece, games in texts(path, text) for f in ruled_out(piece, games)]
    assert any(f.startswith(planted) for f in found), found


@pytest.mark.parametrize("name, text", [
    ("docs/rules.ja.md", "## 雲の上を飛んで\n\nツルとハイイロガン"),   # crane is ツル in Über den Wolken
    ("docs/geese.ja.md", "ユリカモメ・オオワシ・マナヅル、鳥渡りと渡り鳥カード"),
    ("docs/web.ja.md", "## 帰る雁\n\n`ツル` はコードの中\n\n## 雲の上を飛んで\n\nツル"),
    ("docs/glossary.ja.md", "<!-- glossary:geese -->\n| 虹 |\n<!-- /glossary -->\n"),
])
def test_a_right_word_is_not_refused(name, text):
    path = ROOT / name
    assert [f for where, piece, games in texts(path, text) for f in ruled_out(piece, games)] == []


@pytest.mark.parametrize("text, refused", [
    ("決定(猶予):", True), ("星3つ(1枚も失わなければ)", True), ("ボード:", True),
    ("終わりです.", True), ("赤,青", True), ("“引用”", True),
    ("決定（猶予）：", False), ("[English](rules.md)", False), ("GPIO 10 (SPI)", False),
    ("`a(b)`", False), ("10:30", False), ("[英語](rules.md)を読む", False), ("*準備*: 手札", True),
    ("手札の枚数(4/5/6", True), ("4人用)", True), ("{player}:鳥タイル", True),
    ("ひっくり返して!", True), ("ひっくり返して！", False), ("Is it on?", False),
])
def test_japanese_punctuation_is_checked(text, refused):
    found = [f for where, piece, games in texts(ROOT / "docs" / "web.ja.md", text)
             for f in punctuation(piece, games)]
    assert bool(found) is refused, found


def draw(game: str, lang: str) -> str:
    rows = ["| " + " | ".join(HEADERS[lang]) + " |", "|---|---|---|---|"]
    for term in (t for t in GLOSSARY["term"] if t["game"] == game):
        if "rule" in term:
            source = f"ルール「{term['rule']}」" if lang == "ja" else f"rule text, 「{term['rule']}」"
        else:
            source = f"独自：{term['why_ja']}" if lang == "ja" else f"our choice: {term['why']}"
        avoid = "、".join(term.get("avoid", ())) or "—"
        rows.append(f"| {term['en']} | {term['ja']} | {source} | {avoid} |")
    return "\n".join(rows) + "\n"


def draw_phrases(lang: str) -> str:
    head = "| Not said | Said instead |" if lang == "en" else "| 使わない言い方 | 代わりの言い方 |"
    rows = [head, "|---|---|", *(f"| {p['avoid']} | {p['use']} |" for p in GLOSSARY["phrase"])]
    return "\n".join(rows) + "\n"


def redrawn(text: str, lang: str) -> str:
    return TABLE.sub(lambda m: m[1] + (draw_phrases(lang) if m[2] == "phrases" else draw(m[2], lang)) + m[4], text)


@pytest.mark.parametrize("lang", DOCS)
def test_the_glossary_documents_show_every_term_as_the_data_has_it(lang):
    text = DOCS[lang].read_text()
    assert sorted(m[2] for m in TABLE.finditer(text)) == sorted([*GLOSSARY["games"], "phrases"])
    assert text == redrawn(text, lang), "run: python tests/docs/test_glossary.py"


if __name__ == "__main__":
    for lang, path in DOCS.items():
        path.write_text(redrawn(path.read_text(), lang))
