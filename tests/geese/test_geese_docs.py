"""The 帰る雁 guide's examples work as written, in both languages."""

import json
import re

import pytest

from companion.geese import Rules, score
from conftest import ROOT

GUIDES = [ROOT / "docs" / "geese.md", ROOT / "docs" / "geese.ja.md"]


def blocks(path, kind):
    return re.findall(rf"```{kind}\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("path", GUIDES, ids=lambda p: p.name)
def test_the_score_examples_give_the_output_shown(path):
    migrations, record, output = (json.loads(text) for text in blocks(path, "json"))
    assert score(migrations) == output
    replayed = score(record)
    assert replayed["wintering"]["5"] == 2 and replayed["players"]["cho"]["total"] == 3 * 2 + 1


@pytest.mark.parametrize("path", GUIDES, ids=lambda p: p.name)
def test_the_draft_example_loads(path):
    (toml,) = blocks(path, "toml")
    rules = Rules.from_toml(toml)
    assert rules.threshold == 10 and rules.deal[4] == 16 and rules.geese[5] == 1 and not rules.rainbow


def test_both_guides_show_the_same_examples():
    english, japanese = ([b for b in blocks(p, "json")] for p in GUIDES)
    assert english == japanese
