"""A refusal the one field reader makes ("nest.points[0]: expected a whole number, got None") reaches a
Japanese page in Japanese: its code's sentence, led by the field's path, never the table's English."""

import pytest

REFUSAL = {"error": "nest.points[0]: expected a whole number, got None", "field": "nest.points[0]",
           "code": "errors.whole"}
SAID = """async (data) => (await import("/static/js/refusal.js")).fieldErrorText(data)"""


@pytest.mark.parametrize("lang, idle, said", [
    ("en", "No show is running.", "nest.points[0]: Expected a whole number."),
    ("ja", "ショーは始まっていません。", "nest.points[0]：整数で入力してください。"),
])
def test_a_field_refusal_is_said_in_the_page_s_language(serve, phone, tmp_path, expect, lang, idle, said):
    from companion.clock import FakeClock
    from companion.table import demo_table

    served = serve(demo_table(tmp_path / "demo.sqlite3", clock=FakeClock()))
    page = phone(served.url, lang=lang)
    expect(page.locator("#show-status")).to_have_text(idle)  # the page's catalogue is loaded
    assert page.evaluate(SAID, REFUSAL) == said
    assert page.evaluate(SAID, {**REFUSAL, "field": ""}) == said.split(":" if lang == "en" else "：", 1)[1].strip()
