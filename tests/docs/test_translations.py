"""Every English document has a Japanese twin that says the same: the same sections, code, tables and options.

The prose is translated; what a reader copies or looks up is not, so it must match exactly:
the heading outline, every code block (its comments and notes aside, which are translated),
the number of rows of every table, of list items in every section, and every command-line option named.
"""

import re
import subprocess

import pytest

from conftest import ROOT

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# Translated inside code: comments, a note in brackets at a line's end, the Wi-Fi country of the example.
TRANSLATED = (re.compile(r"\s*(#|//).*|\s+[(（].*[)）]$"), re.compile(r"do_wifi_country [A-Z]{2}"))


def english_documents() -> list:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return sorted(name for name in listed if not name.endswith(".ja.md") and (ROOT / name).is_file()
                  and not name.startswith("companion/"))


def twin(name: str) -> str:
    return name[:-len(".md")] + ".ja.md"


def outline(text: str) -> dict:
    prose = FENCE.sub("", text)
    code = []
    for language, block in FENCE.findall(text):
        lines = [TRANSLATED[1].sub("do_wifi_country CC", TRANSLATED[0].sub("", line)) for line in block.splitlines()]
        code.append((language, [line for line in lines if line.strip()]))
    rows, tables = 0, []
    for line in prose.splitlines() + [""]:
        if line.startswith("|"):
            rows += 1
        elif rows:
            tables, rows = tables + [rows], 0
    return {
        "headings": [len(h) for h in re.findall(r"^(#+) ", prose, re.M)],
        "code": code,
        "table rows": tables,
        "list items": [len(re.findall(r"^(?:- |\* |\d+\. )", section, re.M))
                       for section in re.split(r"^#+ ", prose, flags=re.M)],
        "options": sorted(set(OPTION.findall(text))),
    }


def test_every_english_document_has_a_japanese_twin():
    assert [name for name in english_documents() if not (ROOT / twin(name)).is_file()] == []


@pytest.mark.parametrize("name", english_documents())
@pytest.mark.parametrize("part", ["headings", "code", "table rows", "list items", "options"])
def test_the_japanese_twin_has_the_same(name, part):
    english, japanese = (outline((ROOT / path).read_text(encoding="utf-8")) for path in (name, twin(name)))
    assert japanese[part] == english[part], f"{twin(name)} differs from {name} in its {part}"


@pytest.mark.parametrize("japanese", [
    "# A\n\n## B\n",                                   # a section missing
    "# A\n\n## B\n\n## C\n\n```sh\nrun --x\n```\n",    # a command changed
    "# A\n\n## B\n\n## C\n\n```sh\nrun --fast  # 速く\n```\n",  # the table missing
    "# A\n\n## B\n\n- 一つ\n\n## C\n\n```sh\nrun --fast\n```\n\n| a |\n|---|\n| `--fast` |\n",  # an entry moved
])
def test_a_twin_that_drifted_is_found(japanese):
    english = "# A\n\n## B\n\n## C\n\n```sh\nrun --fast  # quickly\n```\n\n| a |\n|---|\n| `--fast` |\n"
    assert outline(japanese) != outline(english)
    assert outline(english.replace("quickly", "速く")) == outline(english)
