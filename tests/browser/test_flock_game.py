"""A whole game of Über den Wolken for 2 named players, kept move by move on the phones, to its sheet and winner.

The setup is shown on a locked phone and the table PIN entered only then:
the same flock (the same setup number) comes back, and a reload keeps it.
A small planner (the rules core's Game and its legal moves) decides each
move; every move is made by tapping the page, and a second phone follows
live. On the way: a bird that cannot fly is refused where the player looks
(inside the screen), the board answers the next tap, a selection is
cancelled, a move the table refuses (another phone was first) leaves the
board usable, the legal targets light up after the first tap (those only a
movement card reaches marked apart), Undo asks first naming the move, and
no page is wider than the phone in English or Japanese, locked or unlocked.
"""

import json
import re
from urllib.parse import quote

from companion.flock.game import Game

from .accessibility import no_axe_violations
from .conftest import COUNT_POSTS, api, held_back, unlock
from .layout import assert_inside
from .plays import finished_flock_game, page_play, second_table

SEED = 11  # a flock other walks lay out again (?seed=11) to play the same moves
NAMES = ["Ann", "Ben"]
NEST = ("3, 7, 11, 14, 16", "3")
SCREEN = 844  # the phone's height: a refusal must show inside 0..SCREEN
# Taps counted as the phone sees them (trusted clicks), kept across the page loads of one tab.
COUNT_TAPS = """addEventListener("click", (e) => {
  if (e.isTrusted) sessionStorage.taps = String(Number(sessionStorage.taps || 0) + 1);
}, true);"""
# Every word (a run of letters without spaces) laid out on more than one line: a word broken inside.
BROKEN_WORDS = r"""(selector) => {
  const broken = [];
  for (const cell of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""


def cell(page, space):
    return page.locator(f"#game-board .cell[data-row='{space[0]}'][data-col='{space[1]}']")


def cubes_left(page, expect, game: Game) -> None:
    for p in game.players:
        expect(page.locator(f"#players-table tr[data-player='{p}'] .cubes")).to_have_text(
            f"{game.cubes[p]} / {game.full_cubes[p]}")


def fits(page, where: str) -> None:
    """The page scrolls no wider than the phone's screen."""
    page.wait_for_load_state("load")
    wide, screen = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    assert wide <= screen, f"{where}: {wide} px wide on a {screen} px screen"


def seen(page, expect, locator, where: str) -> None:
    """`locator` is shown, and inside the phone's screen (where the player is looking)."""
    expect(locator).to_be_visible()
    box = locator.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= SCREEN, f"{where}: shown at {box}, off the screen"


def in_language(page, url: str, lang: str) -> None:
    """The same page (address and all) again in `lang`."""
    here = page.url[len(url.rstrip("/")):]
    page.goto(f"{url.rstrip('/')}/lang/{lang}?next={quote(here, safe='')}")
    page.wait_for_load_state("load")


def test_a_whole_game_of_two_named_players_to_its_sheet_and_winner(browser, demo, launch, expect, shot, tmp_path):
    url = browser.url
    page = browser.page
    page.context.add_init_script(COUNT_TAPS)

    # Locked: the setup shown, then kept through a reload, another language and the PIN: the same flock.
    page.goto(f"{url}flock")
    page.fill("#seat-name-0", NAMES[0])
    page.click("#setup-form button[type=submit]")
    expect(page.locator("#setup-board .cell")).to_have_count(15)
    number = page.locator("#setup-facts .seed").text_content()
    flock = page.locator("#setup-board").inner_html()
    fits(page, "the setup, locked, in en")
    page.reload()
    expect(page.locator("#setup-facts .seed")).to_have_text(number)
    in_language(page, url, "ja")
    expect(page.locator("#setup-board .cell")).to_have_count(15)
    fits(page, "the setup, locked, in ja")
    in_language(page, url, "en")
    page.click("#setup-pin")
    page.fill("#pin", "1234")
    page.click(".pin-form button[type=submit]")
    page.wait_for_url(re.compile(r"/flock\?"))
    expect(page.locator("#setup-facts .seed")).to_have_text(number)  # the flock the table laid out, not a new deal
    expect(page.locator("#keep-moves")).to_be_visible()
    assert page.locator("#setup-board").inner_html() == flock
    expect(page.locator("#seat-name-0")).to_have_value(NAMES[0])  # a name typed before the PIN is kept too
    fits(page, "the setup, unlocked, in en")

    page.fill("#seat-name-1", NAMES[1])
    page.click("#keep-moves")
    page.wait_for_url("**/flock/games/*")
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    kept = page.request.get(f"{url}api/flock/games/{game_id}").json()
    assert str(kept["seed"]) in number
    players = kept["players"]
    game = Game(players, kept["seed"])  # the planner: the same table the phones show
    named = dict(zip(players, NAMES))

    viewer_context = launch()
    viewer = viewer_context.pages[0] if viewer_context.pages else viewer_context.new_page()
    viewer.goto(page.url)
    cubes_left(viewer, expect, game)
    for p in players:  # names beside species
        expect(viewer.locator(f"#players-table tr[data-player='{p}'] th")).to_contain_text(named[p])
    expect(viewer.locator("#game-board [role=cell]").first).to_have_accessible_name(
        re.compile(r"^front row, column 1: "))  # the rules' words for rows, never a number

    mover, other = game.turn, next(p for p in players if p != game.turn)
    flight = next(m for m in game.legal_moves() if m["do"] == "fly_side")
    start = tuple(flight["from"])

    # A bird of the other player cannot fly now: refused in words where the player looks, and the board answers.
    foreign = next((r, c) for r in range(3) for c in range(5)
                   if game.board[r][c] and game.board[r][c]["owner"] == other)
    cell(page, foreign).click()
    expect(page.locator("#move-error")).to_contain_text("cannot fly now")
    expect(page.locator("#move-error")).to_have_text(re.compile(r"^[A-Z]"))  # a sentence, whatever bird it names
    seen(page, expect, page.locator("#move-error"), "another player's bird refused")

    # The first tap lights up exactly the legal targets, those only a movement card reaches marked apart
    # (the mover holds cards and 4+ cubes: free flight reaches every bird).
    moves = [m for m in game.legal_moves() if m.get("from") == list(start)]
    targets = {tuple(m["to"]) for m in moves}
    by_card = targets - {tuple(m["to"]) for m in moves if m["do"] != "card"}
    assert by_card and len(by_card) < len(targets)
    cell(page, start).click()
    expect(page.locator("#game-board .cell.target")).to_have_count(len(targets))
    expect(page.locator("#game-board .cell.card-target")).to_have_count(len(by_card))
    for target in targets:
        assert ("card-target" in cell(page, target).get_attribute("class")) == (target in by_card), target
    expect(cell(page, next(iter(by_card)))).to_have_accessible_name(re.compile(r"with a movement card\)$"))
    expect(page.locator("#target-legend")).to_be_visible()
    no_axe_violations(page, "the targets of a chosen bird, some only a card reaches")
    # An empty space after choosing a bird: refused where the player looks, the bird still chosen.
    empty = next(((r, c) for r in range(3) for c in range(5) if game.board[r][c] is None), None)
    if empty:
        cell(page, empty).click()
        expect(page.locator("#move-error")).to_contain_text("is empty")
        seen(page, expect, page.locator("#move-error"), "an empty space refused")
        expect(page.locator("#game-board .cell.target")).to_have_count(len(targets))
    page.click("#choices .cancel")
    expect(page.locator("#game-board .cell.target")).to_have_count(0)
    expect(page.locator("#game-board .cell[aria-pressed='true']")).to_have_count(0)
    expect(page.locator("#target-legend")).to_be_hidden()

    # A move the table refuses (another phone changed the game first) leaves the board usable.
    refused = {"n": 0}

    def clash(route):
        refused["n"] += 1
        route.fulfill(status=409, content_type="application/json", body=json.dumps(
            {"error": "version: the game is at version 9", "field": "version", "code": "errors.version_clash"}))

    page.route(f"**/api/flock/games/{game_id}/actions", clash)
    cell(page, start).click()
    cell(page, tuple(flight["to"])).click()
    expect(page.locator("#choices button[data-move]")).not_to_have_count(0)
    page.click("#choices button[data-move='fly_side']")
    expect(page.locator("#move-error")).to_have_text("The game changed on another phone meanwhile: reload it.")
    seen(page, expect, page.locator("#move-error"), "a move the table refused")
    page.unroute(f"**/api/flock/games/{game_id}/actions")
    assert refused["n"] == 1

    # Then the legal move, tapped on the same board: only the choices that apply are offered.
    cell(page, start).click()
    cell(page, tuple(flight["to"])).click()
    offered = page.locator("#choices button[data-move]").evaluate_all("bs => bs.map(b => b.dataset.move)")
    allowed = {m["do"] if m["do"] != "card" else f"card-{m['card']}" for m in game.legal_moves()
               if m.get("from") == flight["from"] and m.get("to") == flight["to"]}
    assert set(offered) == allowed
    page.click("#choices button[data-move='fly_side']")
    game.apply(flight)
    cubes_left(page, expect, game)
    cubes_left(viewer, expect, game)
    expect(cell(viewer, tuple(flight["to"]))).to_have_attribute("data-owner", mover)
    assert_inside(page, "a game mid-move")
    shot(page, "flock-game-moves")

    # Undo asks first, naming the move it would take back; "No" keeps it.
    page.click("#undo")
    expect(page.locator("#undo-question")).to_contain_text("move 1")
    expect(page.locator("#undo-question")).to_contain_text(f"{named[mover]}")
    expect(page.locator("#undo-question")).to_contain_text("Fly left/right")
    expect(page.locator("#undo-yes")).to_be_focused()
    no_axe_violations(page, "Undo asking")
    page.click("#undo-no")
    expect(page.locator("#undo-confirm")).to_be_hidden()
    cubes_left(viewer, expect, game)

    # Mid-game, no page is wider than the phone: the owner's (unlocked) and the viewer's (locked), in both languages.
    for phone, state in ((page, "unlocked"), (viewer, "locked")):
        for lang in ("ja", "en"):
            in_language(phone, url, lang)
            expect(phone.locator("#players-table tr[data-player]")).to_have_count(2)
            fits(phone, f"the game, {state}, in {lang}")
            if lang == "ja":
                expect(phone.locator("#game-board [role=cell], #game-board [role=gridcell]").first).to_have_accessible_name(
                    re.compile(r"^最前の行・左から1列目："))
            if lang == "ja" and phone is page:  # the refusal and Undo's question in Japanese, seen as in English
                cell(page, tuple(flight["to"])).click()  # the mover's bird, now the other player's turn
                expect(page.locator("#move-error")).to_contain_text("今は飛べません")
                seen(page, expect, page.locator("#move-error"), "a refusal in Japanese")
                page.click("#undo")
                expect(page.locator("#undo-question")).to_contain_text("1手目（")
                page.click("#undo-no")
                expect(page.locator("#undo-confirm")).to_be_hidden()
    cubes_left(viewer, expect, game)

    for stage in range(1, 4):
        expect(viewer.locator("#game-status")).to_contain_text(f"Stage {stage}")
        while game.turn is not None:  # every cube spent, pass by pass
            page.click("#pass")
            game.apply({"do": "pass"})
            for phone in (page, viewer):  # the next tap waits for this phone's own answer, as a player does
                cubes_left(phone, expect, game)
        entry = page.locator("#stage-entry")
        expect(entry).to_be_visible()
        # The Pass that ended the stage is off now: the focus goes on to the stage's entry, never to the page.
        expect(page.locator("#stage-entry :focus")).to_have_count(1)
        page.fill("#stage-entry .nest-points", NEST[0])
        page.fill("#stage-entry .nest-pair", NEST[1])
        entry.locator(".score-stage").click()
        expect(viewer.locator("#sheet .sheet-stage")).to_have_count(stage)
        game.apply({"do": "land", "nest": {"points": [3, 7, 11, 14, 16], "pair": 3}})

    view = game.view()
    assert view["over"]
    print("taps, from the locked setup page to the winner:", page.evaluate("sessionStorage.taps"))
    winners = [f"{named[p]}" for p in view["winners"]]
    for phone in (page, viewer):
        expect(phone.locator("#game-status")).to_contain_text("Winner" if len(winners) == 1 else "Shared")
        for name in winners:
            expect(phone.locator("#game-status")).to_contain_text(name)
        for p in players:
            expect(phone.locator(f"#players-table tr[data-player='{p}'] .total-points")).to_have_text(
                str(view["scores"][p]))
    shot(page, "flock-game-over")

    # The phone that landed the last stage shows the result to share at once, the focus on it (Land went away with
    # the game), and nothing that plays or undoes a move. The play it sends BG Stats names who the setup let start
    # and is this table's own: the same game 1 finished on another table is another play.
    expect(page.locator("#share-title")).to_be_focused()
    expect(page.locator("#share-text")).to_contain_text("Über den Wolken: final scores")
    expect(page.locator("#share-button")).to_be_enabled()
    expect(page.locator("#prices")).to_be_empty()
    expect(page.locator("#undo")).to_be_hidden()
    expect(viewer.locator("#share-text")).to_contain_text("Über den Wolken: final scores")
    play = page_play(demo.app.test_client(), f"/flock/games/{game_id}")
    starter = Game(players, kept["seed"]).start_player
    assert [p["name"] for p in play["players"] if p["startPlayer"]] == [named[starter]]
    with second_table(tmp_path) as other:
        other_play = page_play(other, f"/flock/games/{finished_flock_game(other, players, kept['seed'])}")
    assert other_play["sourcePlayId"].endswith(f"-ueber-den-wolken-game-{game_id}")
    assert other_play["sourcePlayId"] != play["sourcePlayId"]
    in_language(page, url, "ja")
    expect(page.locator("#share-text")).to_contain_text("雲の上を飛んで：最終得点")

    # The sheet's every column (Total too) and every control fit a 390 px phone, in English and Japanese,
    # and no English word is broken inside ("Playe|r", "greyl|ag").
    for lang in ("en", "ja"):
        page.goto(f"{url}lang/{lang}?next=/flock/games/{game_id}")
        expect(page.locator("#sheet .sheet-stage")).to_have_count(3)
        for total in page.locator("#sheet .result-table th[scope='col']:last-child").all():  # Total, every stage
            box = total.bounding_box()
            assert box["width"] > 0 and box["x"] + box["width"] <= 390, (lang, box)
        assert page.evaluate("""() => [...document.querySelectorAll('#sheet .result-table, #players-table')]
            .map((t) => t.getBoundingClientRect().right - t.closest('section').getBoundingClientRect().right)
            .filter((over) => over > 0.5)""") == [], f"a table wider than its panel in {lang}"
        if lang == "en":
            assert page.evaluate(BROKEN_WORDS, "#sheet .result-table th, #sheet .result-table td, #players-table th") == []
        assert_inside(page, f"the game's sheet in {lang}")
        fits(page, f"the game's sheet in {lang}")
        page.goto(f"{url}lang/{lang}?next=/flock")
        assert_inside(page, f"the flock index in {lang}")
    shot(page, "flock-index-ja")
    # History: the finished game listed with its players, date and result; it exports as JSON and CSV.
    page.goto(f"{url}lang/en?next=/flock")
    row = page.locator(f"ul.games li[data-game='{game_id}']")
    expect(row).to_contain_text(NAMES[0])
    expect(row.locator(".result")).to_contain_text("over: won by")
    expect(row.locator("time")).not_to_contain_text("UTC")
    exported = page.request.get(f"{url}api/flock/games/{game_id}/export.json").json()
    assert exported["result"]["over"] is True and exported["record"]["names"] == named
    lines = page.request.get(f"{url}api/flock/games/{game_id}/export.csv").text().strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("game,place,species,name")
    viewer_context.close()


def test_a_name_typed_before_the_pages_script_ran_is_kept_through_a_reload(browser, expect):
    """A quick hand on a slow phone types a name before the setup script has run: it is kept all the same (it was
    kept only from the script's first keystroke on, so the name was gone after the PIN page)."""
    page = browser.page
    with held_back(page, re.compile(r"/flock/static/setup\.js")):  # held till the name is in
        page.goto(f"{browser.url}flock", wait_until="commit")  # the page is parsed; its script, a module, waits
        page.fill("#seat-name-0", "Ann")
    expect(page.locator("#setup-form button[type=submit]")).to_be_enabled()  # the script has run
    page.reload()
    expect(page.locator("#setup-form button[type=submit]")).to_be_enabled()
    expect(page.locator("#seat-name-0")).to_have_value("Ann")


def test_a_second_tap_while_a_move_is_on_its_way_sends_nothing(browser, expect):
    """A move tapped twice on a slow phone went twice: the second, for the version the table was leaving, came back
    as a change made on another phone ("reload it"). Until the table answers, the game takes no taps."""
    url, page = browser.url, browser.page
    page.context.add_init_script(COUNT_POSTS)
    game_id = api(url, "/api/flock/games", {"players": ["crane", "kite"], "seed": 5})["id"]
    unlock(page, url, f"/flock/games/{game_id}")
    expect(page.locator("#take-card")).to_be_enabled()
    with held_back(page, f"**/api/flock/games/{game_id}/actions"):  # the first move stays on its way
        page.click("#take-card")
        page.locator("#take-card").click(force=True)  # tapped again, and Pass too, on a game that is waiting
        page.locator("#pass").click(force=True)
        sent = page.evaluate(f"window.posts['/api/flock/games/{game_id}/actions']")
        assert sent == 1, "a tap sent a second move while the first was on its way"
        expect(page.locator("#flock")).to_have_attribute("aria-busy", "true")
    expect(page.locator("#undo")).to_be_enabled()  # the move is in
    expect(page.locator("#flock")).not_to_have_attribute("aria-busy", "true")
    expect(page.locator("#move-error")).to_be_empty()
    assert page.request.get(f"{url}api/flock/games/{game_id}").json()["view"]["moves"] == 1
