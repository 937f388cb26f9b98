"""The refusals a player meets, on the Japanese pages: each is the sentence of ja.json for the table's code,
filled with its values, never the English `error` the table sends along for scripts."""

import json
import urllib.request

from companion.flock.game import Game
from companion.web.i18n import catalog, fill

from .test_geese_tracker import SETUP, api


def japanese(code: str, **params) -> str:
    """The sentence the Japanese catalogue holds for `code` (not English standing in), filled with `params`."""
    assert catalog("ja")[code] != catalog("en")[code], code
    return fill(catalog("ja")[code], params)


def unlocked_in_japanese(page, expect, url: str, path: str) -> None:
    """`path` opened in Japanese with the PIN, after a wrong one is refused in Japanese."""
    page.goto(f"{url}lang/ja?next=/pin?next={path}")
    page.fill("#pin", "0000")
    page.click(".pin-form button[type=submit]")
    expect(page.locator("#pin-error")).to_have_text(japanese("pin.wrong"))
    page.fill("#pin", "1234")
    page.click(".pin-form button[type=submit]")
    page.wait_for_url(f"**{path}")


def test_a_wrong_pin_and_the_score_pads_names_are_refused_in_japanese(browser, expect):
    page = browser.page
    unlocked_in_japanese(page, expect, browser.url, "/scorepad")
    expect(page.locator("#players-form")).to_have_attribute("data-ready", "")
    page.fill("#players", "Ann\u202eBo")  # a right-to-left override: the name rule refuses it
    page.click("#players-form button[type=submit]")
    expect(page.locator("#players-error")).to_have_text(japanese("errors.name.characters"))
    expect(page.locator("#festival-form")).to_have_attribute("data-ready", "")
    page.fill("#festival-name", "夏祭り")
    page.fill("#festival-events", "training, training")
    page.click("#festival-form button[type=submit]")
    expect(page.locator("#festival-events-error")).to_have_text(japanese("errors.festival.twice"))


def test_a_flock_move_the_table_refuses_is_told_in_japanese(browser, expect):
    url, page = browser.url, browser.page
    game_id = api(url, "/api/flock/games", {"players": ["crane", "kite"], "seed": 11})["id"]
    with urllib.request.urlopen(f"{url}api/flock/games/{game_id}", timeout=10) as response:
        players = json.loads(response.read())["players"]
    flight = next(m for m in Game(players, 11).legal_moves() if m["do"] == "fly_side")
    unlocked_in_japanese(page, expect, url, f"/flock/games/{game_id}")
    answers = []

    def too_far(route):  # the page offers only legal moves: the phone's move is sent two columns further
        body = json.loads(route.request.post_data)
        row, col = body["action"]["to"]
        body["action"]["to"] = [row, col + 2 if col + 2 < 5 else col - 2]
        answer = route.fetch(post_data=json.dumps(body))
        answers.append(answer.json())
        route.fulfill(response=answer)

    page.route(f"**/api/flock/games/{game_id}/actions", too_far)
    page.locator(f"#game-board .cell[data-row='{flight['from'][0]}'][data-col='{flight['from'][1]}']").click()
    page.locator(f"#game-board .cell[data-row='{flight['to'][0]}'][data-col='{flight['to'][1]}']").click()
    page.click("#choices button[data-move='fly_side']")
    expect(page.locator("#move-error")).not_to_be_empty()
    refusal = answers[0]
    assert refusal["code"] in ("flock.refused.reach", "flock.refused.empty"), refusal
    params = {**refusal["params"], "row": japanese(f"flock.row.{refusal['params']['row']}")}  # rows said in words
    expect(page.locator("#move-error")).to_have_text(japanese(refusal["code"], **params))


def test_a_geese_turn_the_rules_refuse_is_told_in_japanese(browser, expect):
    url, page = browser.url, browser.page
    game = api(url, "/api/geese/games", {"players": ["ann", "ben", "cho", "dan"]})
    for card in SETUP:
        api(url, f"/api/geese/games/{game['id']}/setup", {"card": card})
    unlocked_in_japanese(page, expect, url, f"/geese/games/{game['id']}")
    page.click('#picker button[data-card="6-crane"]')  # the eighth card of the wintering ground
    expect(page.locator("#next-turn")).to_contain_text("ann")
    page.click('#picker button[data-card="3-crane"]')  # one card migrates as 1, which a 3 cannot be
    page.click("#migrate")
    expect(page.locator("#turn-error")).to_have_text(japanese("geese.refused.not_usable", n=3, span="3–4", value=1))


def test_a_refusals_colour_species_and_suit_are_the_catalogues_words(browser):
    page = browser.page
    page.goto(browser.url + "lang/ja?next=/")
    params = {"colour": "red", "species": "crane", "suit": "gull", "n": 3, "name": "red"}
    named = {}
    # each page knows its own area's words: the species on Über den Wolken's pages, the suits on 帰る雁's
    for path in ("", "flock", "geese"):
        page.goto(browser.url + path)
        named[path] = page.evaluate("""async (params) => {
            const i18n = await import("/static/js/i18n.js");
            await i18n.loadMessages();
            return i18n.named(params);
        }""", params)
    assert named[""] == {**params, "colour": "赤"}
    assert named["flock"] == {**params, "colour": "赤", "species": "ツル"}
    assert named["geese"] == {**params, "colour": "赤", "suit": "ユリカモメ"}
