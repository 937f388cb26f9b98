"""The 帰る雁 tracker on two phones at once: one records the turns with the PIN, the other follows live."""

import json
import urllib.request

from .conftest import held_back, unlock
from .test_bird_keys import spoken

SETUP = [{"n": 6, "suit": "gull"}, {"n": 6, "suit": "thrush"}, {"n": 3, "suit": "gull"}, {"n": 1, "suit": "goose"},
         {"n": 2, "suit": "eagle"}, {"n": 4, "suit": "crane"}, {"n": 5, "suit": "crane"}]  # one short of 8


def api(url: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(url + path.lstrip("/"), data=json.dumps(body).encode(), method="POST",
                                     headers={"X-Table-Pin": "1234", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_two_phones_share_the_wintering_ground(browser, launch, expect, shot):
    url = browser.url
    game = api(url, "/api/geese/games", {"players": ["ann", "ben", "cho", "dan"]})
    for card in SETUP:
        api(url, f"/api/geese/games/{game['id']}/setup", {"card": card})
    tracker = f"{url}geese/games/{game['id']}"

    keeper = browser.page  # the phone that records, with the PIN
    keeper.goto(f"{url}pin?next=/geese/games/{game['id']}")
    keeper.fill("#pin", "1234")
    keeper.click(".pin-form button[type=submit]")
    expect(keeper.locator("#picker button").first).to_be_visible()

    viewer_context = launch()
    viewer = viewer_context.pages[0] if viewer_context.pages else viewer_context.new_page()
    viewer_errors = []
    viewer.on("pageerror", lambda error: viewer_errors.append(str(error)))
    viewer.goto(tracker)
    six = viewer.locator('#ground tr[data-number="6"]')
    expect(six.locator(".range")).to_have_text("6–8 (w = 2)")
    expect(viewer.locator("#picker")).to_have_count(0)  # no PIN: following only
    expect(viewer.locator("#next-turn")).to_contain_text("7 of 8")

    # Setup: the eighth card is tapped straight into the ground, and the other phone sees it.
    keeper.click('#picker button[data-card="6-crane"]')
    expect(six.locator(".range")).to_have_text("6–9 (w = 3)")
    expect(viewer.locator("#next-turn")).to_have_text("Next turn: ann")

    # Ann's turn: a 6 arrives; 6 + 4 is past 9, so it earns 1 VP, on every phone.
    keeper.click('#picker button[data-card="6-eagle"]')
    expect(keeper.locator("#chosen button")).to_have_count(1)
    keeper.click("#arrive")
    expect(six.locator(".range")).to_have_text("6–10 (w = 4)")
    expect(viewer.locator('#totals tr[data-player="ann"] .wintering-vp')).to_have_text("1")
    expect(viewer.locator("#vp-log li")).to_have_count(1)
    assert spoken(viewer, "#vp-log li") == "#1 ann: eagle 6 → 1 VP"  # the card in words, its symbol for the eye
    expect(viewer.locator("#next-turn")).to_have_text("Next turn: ben")

    # Ben tries to migrate a 3 alone (as 1): the rules refuse in words a player reads (the field path is the
    # API's, for scripts), and nothing changes anywhere.
    keeper.click('#picker button[data-card="3-crane"]')
    keeper.click("#migrate")
    expect(keeper.locator("#turn-error")).to_have_text("A 3 can be used only as 3–4 now, not as 1.")
    expect(viewer.locator("#actions li")).to_have_count(1)

    # Undo on the keeper's phone takes Ann's turn back on both.
    keeper.click("#clear")
    keeper.click("#undo")
    expect(viewer.locator("#actions li")).to_have_count(1)  # asked first: nothing taken back yet
    keeper.click("#undo-yes")
    expect(six.locator(".range")).to_have_text("6–9 (w = 3)")
    expect(viewer.locator("#vp-log li")).to_have_count(0)
    shot(keeper, "geese-tracker-keeper")
    shot(viewer, "geese-tracker-viewer")
    viewer_context.close()
    assert viewer_errors == []


def test_the_checker_shows_the_best_group_in_japanese(browser, expect, shot):
    page = browser.page
    page.goto(browser.url + "lang/ja?next=/geese/check")
    page.fill('input[data-number="3"]', "2")
    for card in ("3-gull", "3-crane", "5-gull", "5-gull", "5-eagle"):
        page.click(f'#picker button[data-card="{card}"]')
    expect(page.locator("#values")).to_have_text("鳥渡りできる値：5")
    expect(page.locator("#best")).to_contain_text("5として")
    expect(page.locator("#best")).to_contain_text("= 15点")
    expect(page.locator('#groups li[data-value="5"]')).to_have_count(1)
    page.click('#picker button[data-card="1-eagle"]')  # a 1 more: the whole hand goes as 5 and 1
    expect(page.locator("#split-sum")).to_contain_text("15 + 1 = 16点")
    expect(page.locator("#split li")).to_have_count(2)
    shot(page, "geese-checker-ja")


def test_every_geese_page_is_labelled_and_readable(browser, expect, shot):
    from .test_table_page import check_accessible

    url = browser.url
    game = api(url, "/api/geese/games", {"players": ["ann", "ben", "cho"]})
    api(url, f"/api/geese/games/{game['id']}/actions",
        {"action": {"player": "ann", "migrate": {"value": 1, "cards": [{"n": 1, "suit": "goose"}]}}})
    page = browser.page
    page.goto(f"{url}pin?next=/geese")
    page.fill("#pin", "1234")
    page.click(".pin-form button[type=submit]")
    expect(page.locator("#new-game")).to_be_visible()
    check_accessible(page, "geese")
    shot(page, "geese-index")
    for path in (f"geese/games/{game['id']}", "geese/check", f"geese/games/{game['id']}/score"):
        page.goto(url + path)
        expect(page.locator("main h1")).to_be_visible()
        if path.startswith("geese/games") and not path.endswith("score"):
            expect(page.locator("#ground tr")).to_have_count(5)  # three players: no 6 in the deck, so no row for it
        check_accessible(page, path)
        shot(page, "geese-" + path.replace("/", "-"))


def test_a_card_picked_while_a_turn_is_on_its_way_is_not_swept_away(browser, expect):
    """The answer to a turn empties the chosen cards. A pick made while the turn was still on its way was swept
    away with them (a slow phone lost a card of the next turn), so until the answer the turn's buttons are off."""
    url = browser.url
    game = api(url, "/api/geese/games", {"players": ["ann", "ben", "cho", "dan"]})
    for card in [*SETUP, {"n": 6, "suit": "crane"}]:
        api(url, f"/api/geese/games/{game['id']}/setup", {"card": card})
    keeper = browser.page
    unlock(keeper, url, f"/geese/games/{game['id']}")
    expect(keeper.locator("#next-turn")).to_have_text("Next turn: ann")

    with held_back(keeper, f"**/api/geese/games/{game['id']}/actions") as held:  # ann's turn stays on its way
        keeper.click('#picker button[data-card="6-eagle"]')
        keeper.click("#arrive")
        expect(keeper.locator('#picker button[data-card="3-crane"]')).to_be_disabled()
        expect(keeper.locator("#ground button").first).to_be_disabled()  # a card to take back is part of a turn
        expect(keeper.locator("#undo")).to_be_disabled()
        held.some("ann's turn was never sent")
    keeper.click('#picker button[data-card="3-crane"]')  # ben's first card, once ann's turn is in
    expect(keeper.locator("#next-turn")).to_have_text("Next turn: ben")
    expect(keeper.locator("#chosen button")).to_have_count(1)
    expect(keeper.locator("#picker button:focus")).to_have_count(1)  # the focus stayed with the picker
