"""The stage-scoring example in the user docs is valid input and scores as the docs say."""

import json
import re

import pytest

from conftest import ROOT
from companion.flock import score


@pytest.mark.parametrize("page", ["flock.md", "flock.ja.md"])
def test_the_documented_input_scores(page):
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    example = json.loads(re.findall(r"```json\n(.*?)```", text, re.S)[0])
    result = score(example)
    assert result["landed"]["kite"] == {"M": 1, "F": 0, "count": 1, "pairs": 0}  # as the documented answer shows
    assert result["scores"]["kite"] == {"nest": 3, "movement": 0, "stage": 3, "total": 3}
    assert result["birds_on_board"]["kite"] == 1


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_row_has_a_name_and_no_page_numbers_rows(lang):
    """The rules number no rows: every row is named in words (front row...), and no message counts rows."""
    from companion.flock.birds import ROWS

    words = json.loads((ROOT / "companion" / "web" / "flock" / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    names = [words[f"flock.row.{n}"] for n in range(1, ROWS + 1)]
    assert len(set(names)) == ROWS  # the front row, the 2nd row from the front, the back row
    counted = [k for k, v in words.items() if re.search(r"[Rr]ow \d|[Rr]ow \{|\{row\}行目|(?<!前から)\d行目", v)]
    assert counted == [], counted
