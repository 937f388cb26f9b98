"""The browser tests wait for a page the way its CSP allows.

Playwright's wait_for_function looks at the page again by evaluating a string in it, which the pages' CSP (no
'unsafe-eval') refuses: such a wait passed only when its first look was already true, so it failed only on a busy
machine. The browser tests wait with `until` (tests/browser/conftest.py) or a retrying `expect` instead.
"""

from conftest import ROOT


def test_no_browser_test_waits_by_evaluating_a_string_in_the_page():
    found = [f"{path.relative_to(ROOT)}:{number}"
             for path in sorted((ROOT / "tests" / "browser").rglob("*.py"))
             for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
             if "wait_for_function(" in line and not line.lstrip().startswith(("#", '"'))]
    assert found == []
