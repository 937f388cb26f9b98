"""The site's top bar on a phone: one row of links that scrolls sideways, the page's own link and the language in sight.

At 390 px its links took three rows (157 px, a fifth of the screen) on every
page. Now they keep one row: the current page's link is brought into sight as
the page opens, a fade says on which side more links lie, a link reached by the
keyboard scrolls clear of that fade, without motion when the phone asks for
less, and the language link never scrolls away. On a wide screen, where every
link fits, nothing of this shows. Every page is walked at phone size, in both
languages, by test_walk_phones.py (layout.TOP_BAR).
"""

import pytest

from .layout import OUTSIDE, TOP_BAR

WIDE = {"width": 1280, "height": 800}

# What the row shows: its scroll, whether links lie beyond either end, its fade, and the focused link's place.
ROW = """() => {
  const row = document.querySelector("header.top nav");
  const box = row.getBoundingClientRect();
  const fade = parseFloat(getComputedStyle(row).scrollPaddingLeft);
  const focused = document.activeElement.closest("header.top nav a");
  const place = focused?.getBoundingClientRect();
  const more = row.scrollLeft + row.clientWidth < row.scrollWidth - 1;
  return {
    left: row.scrollLeft, more: row.dataset.more ?? null, mask: getComputedStyle(row).maskImage,
    overflows: row.scrollWidth > row.clientWidth,
    // Wholly in the row and clear of a fade: a fade lies only at an end with links beyond it.
    clear: !!place && place.left >= box.left + (row.scrollLeft > 1 ? fade : 0) - 0.5
      && place.right <= box.right - (more ? fade : 0) + 0.5,
  };
}"""
# The row's scroll, then again two frames later: the same if nothing animates it.
STILL = """async () => {
  const row = document.querySelector("header.top nav");
  const before = row.scrollLeft;
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return [before, row.scrollLeft];
}"""


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_link_reached_by_the_keyboard_scrolls_into_sight(demo, phone, expect, lang, motion):
    """From the last page's link (Setup, the row scrolled to its end) the keyboard goes through every link from the
    first: each one comes wholly into sight; with reduced motion at once, clear of the fade, nothing gliding."""
    page = phone(demo.url, lang=lang, reduced_motion=motion)
    page.goto(demo.url + "setup/")
    assert page.evaluate(ROW)["left"] > 0, "the row did not open at the Setup link"
    lang_link = page.locator("header.top .lang").bounding_box()
    links = page.locator("header.top nav a")
    page.keyboard.press("Tab")  # the skip link
    for index, name in enumerate(links.all_inner_texts()):
        page.keyboard.press("Tab")
        expect(links.nth(index)).to_be_focused()
        if motion == "reduce":
            row = page.evaluate(ROW)
            assert row["clear"], f"{lang}: the focused link {name!r} is not wholly in sight: {row}"
            before, after = page.evaluate(STILL)
            assert before == after, f"{name}: the row glided from {before} to {after} with reduced motion"
        else:  # gliding there: looked at until it has arrived
            expect(links.nth(index)).to_be_in_viewport(ratio=1)
        assert page.locator("header.top .lang").bounding_box() == lang_link
    assert page.evaluate("window.scrollX") == 0


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_row_fades_on_the_side_where_more_links_lie(demo, phone, expect, lang):
    """The Table page opens with its link first and more beyond the right end; the Past shows page with links on
    both sides; scrolled to its end, the fade is on the left only. The language link stays put throughout."""
    page = phone(demo.url, lang=lang)
    row = page.evaluate(ROW)
    assert (row["left"], row["more"]) == (0, "after") and row["mask"] != "none", row
    page.goto(demo.url + "shows")
    assert page.evaluate(ROW)["more"] == "both"
    lang_link = page.locator("header.top .lang").bounding_box()
    page.evaluate("document.querySelector('header.top nav').scrollLeft = 1e6")
    expect(page.locator("header.top nav")).to_have_attribute("data-more", "before")
    assert page.locator("header.top .lang").bounding_box() == lang_link
    assert page.evaluate(OUTSIDE) == []


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_on_a_wide_screen_every_link_shows_with_no_fade(demo, phone, lang):
    """Where every link fits, the row neither scrolls nor fades: the bar looks as it did before it could scroll."""
    page = phone(demo.url, viewport=WIDE, lang=lang)
    page.goto(demo.url + "setup/")
    row = page.evaluate(ROW)
    assert (row["overflows"], row["left"], row["more"], row["mask"]) == (False, 0, None, "none"), row
    assert page.evaluate(TOP_BAR) == []

