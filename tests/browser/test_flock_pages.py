"""The Über den Wolken pages in a real browser at phone size: a stage scored by tapping, a game played and resumed."""

import json
import urllib.request

from companion.flock.board import land
from companion.flock.game import Game

from .conftest import unlock


def tap(page, board, row, col):
    page.click(f"{board} .cell[data-row='{row}'][data-col='{col}']")


def brush(page, index):
    page.click(f".stage-editor label[data-brush='{index}']")


# Brushes for two players: 0 empty, 1 swift, 2 crane ♀, 3 crane ♂, 4 kite ♀, 5 kite ♂.
def test_a_stage_entered_by_tapping_reads_the_right_totals(browser, expect, shot):
    page = browser.page
    page.goto(browser.url + "/flock/stage")
    expect(page.locator(".stage-board .cell")).to_have_count(15)
    brush(page, 2)
    tap(page, ".stage-board", 2, 0)  # a female crane lands from column 0: 3 points
    brush(page, 5)
    tap(page, ".stage-board", 1, 1)  # male kites land from columns 1 and 2: 7 points, no pair
    tap(page, ".stage-board", 2, 2)
    brush(page, 4)
    tap(page, ".stage-board", 2, 1)  # a female kite stays behind in column 1
    brush(page, 1)
    tap(page, ".stage-board", 2, 4)
    page.fill(".nest-points", "3, 7, 11")
    page.fill(".nest-pair", "3")
    page.select_option(".card-player", "kite")
    tap(page, ".card-board", 2, 1)
    tap(page, ".card-board", 0, 0)
    page.fill("#card-points-0", "4")
    page.fill("#card-points-1", "1")
    page.click(".add-card")
    # The movement-card list names each space as the board does (the rules' row words, never a row number).
    spaces = [page.locator(f".card-board .cell[data-row='{r}'][data-col='{c}']").get_attribute("title").split(":")[0]
              for r, c in ((2, 1), (0, 0))]
    assert spaces == ["back row, column 2", "front row, column 1"]
    expect(page.locator(".hands li").first).to_contain_text(f"{spaces[0]}: 4 + {spaces[1]}: 1")
    page.click(".score-stage")
    kite = page.locator("#stage-result tr[data-player='kite']")
    expect(kite.locator(".nest-points")).to_have_text("7")
    expect(kite.locator(".movement-points")).to_have_text("4")
    expect(kite.locator(".total-points")).to_have_text("11")
    expect(page.locator("#stage-result tr[data-player='crane'] .total-points")).to_have_text("3")
    shot(page, "flock-stage")
    # A gap behind a bird is refused naming its column and row as the board does (not the API's count from 0).
    brush(page, 0)
    tap(page, ".stage-board", 2, 1)
    page.click(".score-stage")
    expect(page.locator(".stage-error")).to_have_text("Column 2 has a gap in the back row.")


def post(url, path, body):
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "X-Table-Pin": "1234"})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


def test_a_few_moves_on_the_phone_and_the_game_resumed_on_another(browser, launch, expect, shot):
    game = post(browser.url, "/api/flock/games", {"mode": "moves", "players": ["crane", "kite"], "seed": 11})
    rules = Game(["crane", "kite"], 11)
    mover = rules.turn
    # a swap the rules allow for the start player: one of their birds and its neighbour in the row
    start, target = next(((r, c), (r, c + d)) for r in range(3) for c in range(5) for d in (1, -1)
                         if rules.board[r][c] and rules.board[r][c]["owner"] == mover
                         and 0 <= c + d < 5 and rules.board[r][c + d])
    page = browser.page
    path = f"/flock/games/{game['id']}"
    unlock(page, browser.url, path)
    expect(page.locator("#game-status")).to_contain_text("to move")
    tap(page, "#game-board", *start)
    tap(page, "#game-board", *target)
    page.click("#choices button:has-text('Fly left/right')")
    expect(page.locator(f"#players-table tr[data-player='{mover}'] .cubes")).to_have_text("9 / 10")
    moved = rules.board[start[0]][start[1]]
    expect(page.locator(f"#game-board .cell[data-row='{target[0]}'][data-col='{target[1]}']")).to_have_attribute(
        "data-owner", moved["owner"])
    # An illegal move is explained: the other player's bird cannot be flown now.
    other = rules.players[1 - rules.players.index(mover)]
    tap(page, "#game-board", *target)  # the mover's bird, now that it is the other player's turn
    expect(page.locator("#move-error")).to_contain_text("cannot fly now")
    expect(page.locator("#choices button")).to_have_count(0)
    page.click("#pass")
    expect(page.locator(f"#players-table tr[data-player='{other}'] .cubes")).to_have_text("8 / 10")
    # The start player again: tap an empty space of a column that has room, and add the deck's top bird there.
    board = json.load(urllib.request.urlopen(f"{browser.url}/api/flock/games/{game['id']}"))["view"]["board"]
    col = next(c for c in range(5) if board[0][c] is None and board[2][c] is not None)
    tap(page, "#game-board", 0, col)
    page.click("#choices button:has-text('Add in front')")
    expect(page.locator(f"#players-table tr[data-player='{mover}'] .cubes")).to_have_text("8 / 10")
    filled = sum(board[r][col] is not None for r in range(3))
    expect(page.locator(f"#game-board .cell.bird[data-col='{col}']")).to_have_count(filled + 1)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "flock-game")

    # Another phone opens the same game and sees it; a move there shows here live.
    phone = launch()
    second = phone.pages[0] if phone.pages else phone.new_page()
    unlock(second, browser.url, path)
    expect(second.locator(f"#players-table tr[data-player='{mover}'] .cubes")).to_have_text("8 / 10")
    second.click("#undo")  # asks first, naming the move: the bird added to its column
    expect(second.locator("#undo-question")).to_contain_text(f"move 3 (")
    expect(second.locator("#undo-question")).to_contain_text(f"Add in front, column {col + 1}")
    second.click("#undo-yes")  # takes back the added bird: its cubes return, here too
    expect(page.locator(f"#players-table tr[data-player='{mover}'] .cubes")).to_have_text("9 / 10")
    expect(page.locator(f"#game-board .cell.bird[data-col='{col}']")).to_have_count(filled)
    phone.close()


HOLE_BRUSHES = (1, 2, 4, 3, 5)  # swift, crane ♀, kite ♀, crane ♂, kite ♂: no owner runs out of tiles


def test_a_whole_game_on_a_sheet_from_setup_to_winner_and_resumed_on_another_phone(browser, launch, expect, shot):
    page = browser.page
    unlock(page, browser.url, "/flock")
    page.click("#setup-form button[type=submit]")
    expect(page.locator("#setup-board .cell")).to_have_count(15)
    expect(page.locator("#setup-facts .starts")).to_contain_text("starts")
    page.click("#keep-sheet")
    page.wait_for_url("**/flock/games/*")
    game_url = page.url
    entry = page.locator("#stage-entry")
    for stage in range(1, 4):
        expect(entry).to_be_visible()
        expect(page.locator("#game-status")).to_contain_text(f"Stage {stage}")
        holes = entry.locator(".stage-board .cell.hole")
        for i in range(holes.count()):
            page.click(f"#stage-entry label[data-brush='{HOLE_BRUSHES[i % len(HOLE_BRUSHES)]}']")
            holes.first.click()
        page.fill("#stage-entry .nest-points", "3, 7, 11, 14, 16")
        page.fill("#stage-entry .nest-pair", "3")
        entry.locator(".score-stage").click()
        expect(page.locator("#sheet .sheet-stage")).to_have_count(stage)
    view = json.load(urllib.request.urlopen(game_url.replace("/flock/games/", "/api/flock/games/")))["view"]
    assert view["over"]
    expect(page.locator("#game-status")).to_contain_text("Winner" if len(view["winners"]) == 1 else "Shared")
    for player, total in view["totals"].items():
        expect(page.locator(f"#players-table tr[data-player='{player}'] .total-points")).to_have_text(str(total))
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    shot(page, "flock-sheet")
    page.click("#undo")  # asks first, naming the stage it would take back; "No" keeps it
    expect(page.locator("#undo-question")).to_have_text(
        "Take back the scores of stage 3? Every phone will show the game without it.")
    page.click("#undo-no")
    expect(page.locator("#undo-confirm")).to_be_hidden()
    expect(page.locator("#undo")).to_be_focused()
    expect(page.locator("#sheet .sheet-stage")).to_have_count(3)

    phone = launch()
    other = phone.pages[0] if phone.pages else phone.new_page()
    other.goto(game_url)
    expect(other.locator("#sheet .sheet-stage")).to_have_count(3)
    expect(other.locator("#sheet > .winners")).to_have_text(page.locator("#sheet > .winners").text_content())
    phone.close()


def test_the_pages_fit_a_phone_and_speak_japanese(browser, expect):
    page = browser.page
    for path in ("/flock", "/flock/stage"):
        page.goto(browser.url + path)
        expect(page.locator(".flock-board, #setup-form").first).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
    page.goto(f"{browser.url}/lang/ja?next=/flock/stage")
    expect(page.locator("h1")).to_have_text("ステージの得点計算")
    expect(page.locator(".stage-editor label[data-brush='2']")).to_contain_text("ツルのメス")
    # The movement-card list and the board name a space the same way, in the rule text's words.
    tap(page, ".card-board", 1, 3)
    tap(page, ".card-board", 0, 0)
    page.click(".add-card")
    where = page.locator(".card-board .cell[data-row='1'][data-col='3']").get_attribute("title").split("：")[0]
    assert where == "前から2行目・左から4列目"
    expect(page.locator(".hands li").first).to_contain_text(f"{where}：1")
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    # Four named players mid-game: the players table still fits the phone (the widest Japanese page).
    game = post(browser.url, "/api/flock/games", {"mode": "moves", "players": ["crane", "kite", "goose", "swallow"],
                                                  "seed": 5, "names": {"crane": "Ann", "kite": "Ben", "goose": "Cleo",
                                                                       "swallow": "Dan"}})
    page.goto(f"{browser.url}/flock/games/{game['id']}")
    expect(page.locator("#players-table tr[data-player]")).to_have_count(4)
    assert page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")[0] <= 390
    expect(page.locator("#players-table th[scope=col]").last).to_have_accessible_name("ボード上の鳥")


def cranes_after_landing(seed):
    _, after = land(Game(["crane", "kite"], seed).board)
    return [(r, c) for r in range(3) for c in range(5) if after[r][c] and after[r][c]["owner"] == "crane"]


def test_a_stage_kept_move_by_move_ends_with_the_landing_entered_on_the_phone(browser, expect):
    seed = next(s for s in range(100) if len(cranes_after_landing(s)) >= 2)  # passes only: the flock stays as laid
    held = cranes_after_landing(seed)[:2]
    game = post(browser.url, "/api/flock/games", {"mode": "moves", "players": ["crane", "kite"], "seed": seed})
    rules = Game(["crane", "kite"], seed)
    version = game["version"]
    while rules.turn is not None:  # everyone passes until every cube is spent
        rules.apply({"do": "pass"})
        version = post(browser.url, f"/api/flock/games/{game['id']}/actions",
                       {"action": {"do": "pass"}, "version": version})["version"]
    page = browser.page
    unlock(page, browser.url, f"/flock/games/{game['id']}")
    expect(page.locator("#stage-entry")).to_be_visible()
    page.fill("#stage-entry .nest-points", "3, 7, 11, 14, 16")
    page.fill("#stage-entry .nest-pair", "3")
    page.select_option("#stage-entry .card-player", "crane")
    for r, c in held:
        tap(page, "#stage-entry .card-board", r, c)
    page.fill("#card-points-0", "2")
    page.fill("#card-points-1", "1")
    page.click("#stage-entry .add-card")
    page.click("#stage-entry .score-stage")
    expect(page.locator("#game-status")).to_contain_text("Stage 2")
    crane = page.locator("#sheet tr[data-player='crane']")
    expect(crane.locator(".movement-points")).to_have_text("(2 + 1 + 2) = 5")
    expected = json.load(urllib.request.urlopen(f"{browser.url}/api/flock/games/{game['id']}"))["view"]["scores"]
    expect(page.locator("#players-table tr[data-player='crane'] .total-points")).to_have_text(str(expected["crane"]))


def test_every_control_is_labelled_and_every_text_readable(browser, expect):
    from tests.browser.test_table_page import LOW_CONTRAST, UNLABELLED_CONTROLS

    page = browser.page
    unlock(page, browser.url, "/flock")
    page.click("#setup-form button[type=submit]")
    expect(page.locator("#setup-board .cell")).to_have_count(15)
    for path in ("/flock", "/flock/stage"):
        if path != "/flock":
            page.goto(browser.url + path)
            expect(page.locator(".stage-board .cell")).to_have_count(15)
        assert page.evaluate(UNLABELLED_CONTROLS) == [], path
        contrast = page.evaluate(LOW_CONTRAST)
        assert contrast["checked"] > 10 and contrast["failures"] == [], path
    game = post(browser.url, "/api/flock/games", {"mode": "moves", "players": ["crane", "kite"], "seed": 1})
    page.goto(f"{browser.url}/flock/games/{game['id']}")
    page.click("#supply .add-column >> nth=0")
    expect(page.locator("#choices select")).to_be_visible()  # the favourite-bird card's search
    assert page.evaluate(UNLABELLED_CONTROLS) == []
    assert page.evaluate(LOW_CONTRAST)["failures"] == []
