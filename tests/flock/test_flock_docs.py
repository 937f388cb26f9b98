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
