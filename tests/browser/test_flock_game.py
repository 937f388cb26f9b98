"""A whole game of Über den Wolken for 2 named players, kept move by move on the phones, to its sheet and winner.

The table is laid from a seed given in the page's address, so the game is
the same every run. A small planner (the rules core's Game and its legal
moves) decides each move; every move is made by tapping the page, and a
second phone follows live. On the way: a bird that cannot fly is refused
and the board answers the next tap, a selection is cancelled, a move the
table refuses (another phone was first) leaves the board usable, and the
legal targets light up after the first tap.
"""

import json
import re

from companion.flock.game import Game

from .conftest import unlock
from .layout import assert_inside

SEED = 11
NAMES = ["Ann", "Ben"]
NEST = ("3, 7, 11, 14, 16", "3")


def cell(page, space):
    return page.locator(f"#game-board .cell[data-row='{space[0]}'][data-col='{space[1]}']")


def cubes_left(page, expect, game: Game) -> None:
    for p in game.players:
        expect(page.locator(f"#players-table tr[data-player='{p}'] .cubes")).to_have_text(
            f"{game.cubes[p]} / {game.full_cubes[p]}")


def test_a_whole_game_of_two_named_players_to_its_sheet_and_winner(browser, launch, expect, shot):
    url = browser.url
    page = browser.page
    unlock(page, url, f"/flock?seed={SEED}")
    page.fill("#seat-name-0", NAMES[0])
    page.fill("#seat-name-1", NAMES[1])
    page.click("#setup-form button[type=submit]")
    expect(page.locator("#setup-board .cell")).to_have_count(15)
    page.click("#keep-moves")
    page.wait_for_url("**/flock/games/*")
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    players = page.request.get(f"{url}api/flock/games/{game_id}").json()["players"]
    game = Game(players, SEED)  # the planner: the same table the phones show
    named = dict(zip(players, NAMES))

    viewer_context = launch()
    viewer = viewer_context.pages[0] if viewer_context.pages else viewer_context.new_page()
    viewer.goto(page.url)
    cubes_left(viewer, expect, game)
    for p in players:  # names beside species
        expect(viewer.locator(f"#players-table tr[data-player='{p}'] th")).to_contain_text(named[p])
    expect(viewer.locator("#game-board [role=cell]").first).to_have_accessible_name(
        re.compile(r"^row 1, column 1: "))  # numbered for people, from 1

    mover, other = game.turn, next(p for p in players if p != game.turn)
    flight = next(m for m in game.legal_moves() if m["do"] == "fly_side")
    start = tuple(flight["from"])

    # A bird of the other player cannot fly now: refused in words, and the board answers the next tap.
    foreign = next((r, c) for r in range(3) for c in range(5)
                   if game.board[r][c] and game.board[r][c]["owner"] == other)
    cell(page, foreign).click()
    expect(page.locator("#move-error")).to_contain_text("cannot fly now")

    # The first tap lights up exactly the legal targets; Cancel clears the selection.
    targets = {tuple(m["to"]) for m in game.legal_moves() if m.get("from") == list(start)}
    cell(page, start).click()
    expect(page.locator("#game-board .cell.target")).to_have_count(len(targets))
    for target in targets:
        assert "target" in cell(page, target).get_attribute("class")
    page.click("#choices .cancel")
    expect(page.locator("#game-board .cell.target")).to_have_count(0)
    expect(page.locator("#game-board .cell[aria-pressed='true']")).to_have_count(0)

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
    cubes_left(viewer, expect, game)
    expect(cell(viewer, tuple(flight["to"]))).to_have_attribute("data-owner", mover)
    assert_inside(page, "a game mid-move")
    shot(page, "flock-game-moves")

    for stage in range(1, 4):
        expect(viewer.locator("#game-status")).to_contain_text(f"Stage {stage}")
        while game.turn is not None:  # every cube spent, pass by pass
            page.click("#pass")
            game.apply({"do": "pass"})
            cubes_left(viewer, expect, game)
        entry = page.locator("#stage-entry")
        expect(entry).to_be_visible()
        page.fill("#stage-entry .nest-points", NEST[0])
        page.fill("#stage-entry .nest-pair", NEST[1])
        entry.locator(".score-stage").click()
        expect(viewer.locator("#sheet .sheet-stage")).to_have_count(stage)
        game.apply({"do": "land", "nest": {"points": [3, 7, 11, 14, 16], "pair": 3}})

    view = game.view()
    assert view["over"]
    winners = [f"{named[p]}" for p in view["winners"]]
    for phone in (page, viewer):
        expect(phone.locator("#game-status")).to_contain_text("Winner" if len(winners) == 1 else "Shared")
        for name in winners:
            expect(phone.locator("#game-status")).to_contain_text(name)
        for p in players:
            expect(phone.locator(f"#players-table tr[data-player='{p}'] .total-points")).to_have_text(
                str(view["scores"][p]))
    shot(page, "flock-game-over")

    # The sheet's every column (Total too) and every control fit a 390 px phone, in English and Japanese.
    for lang in ("en", "ja"):
        page.goto(f"{url}lang/{lang}?next=/flock/games/{game_id}")
        expect(page.locator("#sheet .sheet-stage")).to_have_count(3)
        for total in page.locator("#sheet .result-table th[scope='col']:last-child").all():  # Total, every stage
            box = total.bounding_box()
            assert box["width"] > 0 and box["x"] + box["width"] <= 390, (lang, box)
        assert_inside(page, f"the game's sheet in {lang}")
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
