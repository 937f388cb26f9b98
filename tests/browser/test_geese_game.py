"""A whole game of 帰る雁 for 4 players, played on two phones through the tracker's pages to its final ranking.

The deal is seeded, so the game is the same every run. A small planner (the
rules core's own Game and its greedy strategy) decides each move, and every
move is made by tapping the keeper's page; the second phone follows live.
On the way: a setup card laid by mistake and taken out, a two-card arrival
that takes a card back from the ground, a turn the rules refuse, an undo
that asks first.
"""

import json
import random
import urllib.error
import urllib.request

import pytest

from companion.geese import score
from companion.geese.game import Game
from companion.geese.strategies import STRATEGIES, Move

from .conftest import unlock
from .layout import assert_inside
from .plays import finished_geese_game, page_play, second_table

SEED = 1
NAMES = ["ann", "ben", "cho", "dan"]


def key(card) -> str:
    return f"{card.n}-{card.suit}"


def tap_move(page, expect, move: Move) -> None:
    """Make `move` for the player whose turn it is, by tapping: the hand's cards, a ground card to take, the button
    (the table knows whose turn it is, and a migration's value is its number of cards)."""
    for card in move.cards:
        page.click(f'#picker button[data-card="{key(card)}"]')
    expect(page.locator("#chosen button")).to_have_count(len(move.cards))
    if move.take is not None:
        page.click(f'#ground button[data-card="{key(move.take)}"]')
        expect(page.locator("#take-line .gcard[aria-pressed='true']")).to_have_count(1)
    page.click("#arrive" if move.kind == "arrive" else "#migrate")


def played(game: Game, move: Move) -> None:
    if move.kind == "arrive":
        game.arrive(list(move.cards), move.take)
    else:
        game.migrate(move.value, list(move.cards))


def test_a_whole_game_of_four_to_its_final_ranking(browser, launch, expect, shot):
    url = browser.url
    rng = random.Random(SEED)
    game = Game(len(NAMES), rng)  # the planner: the same seeded deal the players hold
    hand_size = len(game.hands[0])

    keeper = browser.page
    unlock(keeper, url, "/geese")
    keeper.fill("#players", "\n".join(NAMES))
    expect(keeper.locator("#players")).to_have_value("\n".join(NAMES))
    keeper.click("#new-game button[type=submit]")
    expect(keeper.locator("#picker button").first).to_be_visible()
    tracker = keeper.url

    viewer_context = launch()
    viewer = viewer_context.pages[0] if viewer_context.pages else viewer_context.new_page()
    viewer_errors = []
    viewer.on("pageerror", lambda error: viewer_errors.append(str(error)))
    viewer.goto(tracker)
    expect(viewer.locator("#next-turn")).to_have_text(f"Setting up: 0 of {len(game.setup)} cards in the wintering ground")
    for name in NAMES:
        expect(viewer.locator(f'#seats li[data-player="{name}"] .hand')).to_have_text(f"{hand_size} in hand")

    # Setup: a card from a hand is laid by mistake and tapped out again; then the cards left over from the deal.
    wrong = next(c for c in game.hands[0] if c not in game.setup)
    keeper.click(f'#picker button[data-card="{key(wrong)}"]')
    expect(viewer.locator(f'#ground [data-card="{key(wrong)}"]')).to_have_count(1)
    keeper.click(f'#ground button[data-card="{key(wrong)}"]')
    expect(viewer.locator(f'#ground [data-card="{key(wrong)}"]')).to_have_count(0)
    for laid, card in enumerate(game.setup, start=1):
        keeper.click(f'#picker button[data-card="{key(card)}"]')
        if laid < len(game.setup):
            expect(keeper.locator("#next-turn")).to_contain_text(f"{laid} of {len(game.setup)}")
    expect(viewer.locator("#next-turn")).to_have_text("Next turn: ann")

    # Ann's first turn: two birds arrive and she takes a card of the ground back into her hand.
    put = tuple(game.hands[0][:2])
    take = next(c for c in sorted(game.ground.cards) if c not in put)
    first = Move("arrive", put, take=take)
    tap_move(keeper, expect, first)
    played(game, first)
    expect(viewer.locator("#actions li")).to_have_count(1)
    expect(viewer.locator('#seats li[data-player="ann"] .hand')).to_have_text(f"{hand_size - 1} in hand")
    expect(viewer.locator("#actions li").first).to_contain_text("takes back")

    # A turn the rules refuse (a lone card of 2 or more migrates as 1): told in the viewport, nothing changes.
    lone = next(c for c in game.hands[1] if c.n > 1)
    tap_move(keeper, expect, Move("migrate", (lone,), value=1))
    expect(keeper.locator("#turn-error")).to_contain_text(f"A {lone.n} can be used only as {lone.n}")
    expect(keeper.locator("#turn-error")).to_contain_text("now, not as 1.")
    expect(keeper.locator("#turn-error")).to_be_in_viewport()
    expect(viewer.locator("#actions li")).to_have_count(1)
    keeper.click("#clear")

    turns = 1
    undone = False
    while not game.over:
        player = NAMES[game.seat]
        move = STRATEGIES["greedy"](game, rng)
        tap_move(keeper, expect, move)
        expect(viewer.locator("#actions li")).to_have_count(turns + 1)
        if not undone and turns == 3:
            # Undo asks once more: "no" keeps the turn, "yes" takes it back on every phone; then it is made again.
            keeper.click("#undo")
            expect(keeper.locator("#undo-question")).to_contain_text(f"Take back turn #{turns + 1} ({player})?")
            keeper.click("#undo-no")
            expect(keeper.locator("#undo-confirm")).to_be_hidden()
            expect(viewer.locator("#actions li")).to_have_count(turns + 1)
            keeper.click("#undo")
            keeper.click("#undo-yes")
            expect(viewer.locator("#actions li")).to_have_count(turns)
            tap_move(keeper, expect, move)
            expect(viewer.locator("#actions li")).to_have_count(turns + 1)
            undone = True
        played(game, move)
        turns += 1
        expect(viewer.locator(f'#seats li[data-player="{player}"] .hand')).to_have_text(
            f"{len(game.hands[NAMES.index(player)])} in hand")
        if turns == 6:
            assert_inside(keeper, "the tracker mid-game")
            shot(keeper, "geese-game-keeper-midgame")
            sheet = viewer.context.new_page()
            sheet.goto(tracker + "/score")
            expect(sheet.locator("#sheet-state")).to_have_text("so far: the game goes on")
            expect(sheet.locator(".winner")).to_have_count(0)
            sheet.close()

    # The end: a hand ran out, the round was finished, and both phones declare the game over with the ranking.
    result = score(game.record(NAMES, deal=True))
    ranking = result["ranking"]
    expected = [f"{name} — {result['players'][name]['total']} VP" + (" ★ winner" if i == 0 else "")
                for i, name in enumerate(ranking)]
    for phone in (keeper, viewer):
        expect(phone.locator("#game-over")).to_be_visible()
        expect(phone.locator("#final-ranking li")).to_have_text(expected)
        expect(phone.locator("#next-turn")).to_have_text(f"Game over: {ranking[0]} wins")
    expect(keeper.locator("#turn-panel")).to_be_hidden()
    expect(keeper.locator("#over-title")).to_be_focused()  # the last turn's buttons went: the focus is not lost
    assert 0 in [len(h) for h in game.hands]
    shot(keeper, "geese-game-over-keeper")
    shot(viewer, "geese-game-over-viewer")

    # No turn after the end, whoever sends it.
    game_id = tracker.rstrip("/").rsplit("/", 1)[1]
    refused = urllib.request.Request(f"{url}api/geese/games/{game_id}/actions", method="POST",
                                     data=json.dumps({"action": {"player": "ann", "arrive": [{"n": 1, "suit": "gull"}]}}).encode(),
                                     headers={"X-Table-Pin": "1234", "Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(refused, timeout=10)
    assert answer.value.code == 400 and json.loads(answer.value.read())["code"] == "geese.refused.over"

    # The sheet is final now; the saved games list it with its result; it exports as JSON and CSV.
    keeper.goto(tracker + "/score")
    expect(keeper.locator("#sheet-state")).to_have_text("final: the game is over")
    expect(keeper.locator("#ranking li").first.locator(".winner")).to_be_visible()
    assert_inside(keeper, "the final score sheet")
    keeper.goto(url + "geese")
    row = keeper.locator(f'#saved-games li[data-game="{game_id}"]')
    expect(row.locator(".result")).to_have_text(
        f"over: {ranking[0]} wins with {result['players'][ranking[0]]['total']} VP")
    expect(row.locator("time")).not_to_contain_text("UTC")  # the phone's own time
    exported = keeper.request.get(f"{url}api/geese/games/{game_id}/export.json").json()
    assert exported["over"] is True and exported["result"]["ranking"] == ranking
    assert score(exported["record"])["ranking"] == ranking
    lines = keeper.request.get(f"{url}api/geese/games/{game_id}/export.csv").text().strip().splitlines()
    assert len(lines) == 1 + len(NAMES) and lines[1].split(",")[2] == ranking[0]

    # Every page of the game fits a 390 px phone, in English and in Japanese.
    for lang in ("en", "ja"):
        for path in (f"/geese/games/{game_id}", f"/geese/games/{game_id}/score", "/geese"):
            keeper.goto(f"{url}lang/{lang}?next={path}")
            expect(keeper.locator("main h1")).to_be_visible()
            if path == f"/geese/games/{game_id}":
                expect(keeper.locator("#over-title")).to_have_text("Game over" if lang == "en" else "ゲーム終了")
            assert_inside(keeper, f"{path} in {lang}")
    shot(keeper, "geese-index-ja")
    viewer_context.close()
    assert viewer_errors == []


class Taps:
    """The keeper's taps on the tracker, counted: a tap on a card or button is one; choosing from a list two
    (open it, pick); typing a number two (the box, the digit)."""

    def __init__(self, page):
        self.page, self.count = page, 0

    def tap(self, selector: str) -> None:
        self.page.click(selector)
        self.count += 1


def tap_turn(taps: Taps, expect, move: Move) -> None:
    """Make `move` for the player whose turn it is, by tapping: the hand's cards, a ground card to take, the button."""
    page = taps.page
    for card in move.cards:
        taps.tap(f'#picker button[data-card="{key(card)}"]')
    expect(page.locator("#chosen button")).to_have_count(len(move.cards))
    if move.take is not None:
        taps.tap(f'#ground button[data-card="{key(move.take)}"]')
        expect(page.locator("#take-line .gcard[aria-pressed='true']")).to_have_count(1)
    taps.tap("#arrive" if move.kind == "arrive" else "#migrate")


def test_a_whole_game_of_three_without_sixes(browser, demo, expect, shot, tmp_path):
    """Three players: the picker offers no 6 (they are out of the deck); the last setup card, laid wrong, is
    tapped out of the full ground again; each turn is its cards and one button. The taps are counted."""
    url = browser.url
    names = NAMES[:3]
    rng = random.Random(SEED)
    game = Game(len(names), rng)
    keeper = browser.page
    unlock(keeper, url, "/geese")
    keeper.fill("#players", "\n".join(names))
    keeper.click("#new-game button[type=submit]")
    expect(keeper.locator("#picker button").first).to_be_visible()
    expect(keeper.locator('#picker button[data-card^="6-"]')).to_have_count(0)
    expect(keeper.locator('#picker button[data-card^="5-"]')).to_have_count(4)
    expect(keeper.locator("#turn-player")).to_have_count(0)  # the table knows whose turn it is
    expect(keeper.locator("#migrate-value")).to_have_count(0)  # a migration's value is its number of cards
    taps = Taps(keeper)

    # Setup: the last card laid is the wrong one; the full ground still gives it back, and the right one goes in.
    *first, last = game.setup
    wrong = next(c for c in game.hands[0] if c not in game.setup)
    for laid, card in enumerate([*first, wrong], start=1):
        taps.tap(f'#picker button[data-card="{key(card)}"]')
        if laid < len(game.setup):
            expect(keeper.locator("#next-turn")).to_contain_text(f"{laid} of {len(game.setup)}")
    expect(keeper.locator("#next-turn")).to_have_text("Next turn: ann")
    taps.tap(f'#ground button[data-card="{key(wrong)}"]')
    expect(keeper.locator("#next-turn")).to_have_text(f"Setting up: {len(game.setup) - 1} of {len(game.setup)} "
                                                      "cards in the wintering ground")
    taps.tap(f'#picker button[data-card="{key(last)}"]')
    expect(keeper.locator("#next-turn")).to_have_text("Next turn: ann")
    expect(keeper.locator("#lay-out")).to_be_hidden()  # the ground is full: no more setup cards
    expect(keeper.locator('#ground tr[data-number="6"]')).to_have_count(0)  # no 6 among three players
    expect(keeper.locator("#ground tr[data-number]")).to_have_count(5)
    assert_inside(keeper, "the 3-player tracker after setup")

    moves = []
    while not game.over:
        moves.append(STRATEGIES["greedy"](game, rng))
        played(game, moves[-1])
    game_id = keeper.url.rstrip("/").rsplit("/", 1)[1]
    for turns, move in enumerate(moves, start=1):
        if turns == len(moves):  # the last turn in Japanese (the 4-player game ends in English)
            keeper.goto(f"{url}lang/ja?next=/geese/games/{game_id}")
        tap_turn(taps, expect, move)
        expect(keeper.locator("#actions li")).to_have_count(turns)
    result = score(game.record(names, deal=True))
    # The last turn hid the turn's buttons: the focus goes to the game's end, where the result to share comes in
    # at once. Its play is this table's own: the same game 1 finished on another table is another play.
    expect(keeper.locator("#over-title")).to_have_text("ゲーム終了")
    expect(keeper.locator("#over-title")).to_be_focused()
    keeper.goto(f"{url}lang/en?next=/geese/games/{game_id}")
    expect(keeper.locator("#next-turn")).to_have_text(f"Game over: {result['ranking'][0]} wins")
    expect(keeper.locator("#game-over #share-text")).to_contain_text("帰る雁 (Kaeru Kari): final scores")
    expect(keeper.locator("#game-over #share-button")).to_be_enabled()
    play = page_play(demo.app.test_client(), f"/geese/games/{game_id}/score")
    assert [p["name"] for p in play["players"] if p["startPlayer"]] == [names[0]]
    with second_table(tmp_path) as other:
        other_play = page_play(other, f"/geese/games/{finished_geese_game(other, names)}/score")
    assert other_play["sourcePlayId"].endswith(f"-kaeru-kari-game-{game_id}")
    assert other_play["sourcePlayId"] != play["sourcePlayId"]
    # A goose in a migration cost its player the no-goose bonus: the score says why beside it.
    for seat, name in enumerate(names):
        lost = any(card.suit == "goose" for _, cards in game.migrations[seat] for card in cards)
        why = keeper.locator(f'#totals tr[data-player="{name}"] .total .why')
        expect(why).to_have_text(["no-goose bonus lost: a goose migrated"] if lost else [])
        expect(keeper.locator(f'#totals tr[data-player="{name}"] .total')).to_contain_text(
            str(result["players"][name]["total"]))
    assert any(any(c.suit == "goose" for _, cards in seat for c in cards) for seat in game.migrations)
    shot(keeper, "geese-game-three-over")
    print(f"taps for a whole 3-player game of {len(moves)} turns: {taps.count}")
    assert taps.count == len(game.setup) + 2 + sum(len(m.cards) + (m.take is not None) + 1 for m in moves)

    # The checker with this game's ground offers its deck alone too; every page fits the phone in en and ja.
    keeper.goto(f"{url}geese/check?game={game_id}")
    expect(keeper.locator("#picker button").first).to_be_visible()
    expect(keeper.locator('#picker button[data-card^="6-"]')).to_have_count(0)
    for lang in ("en", "ja"):
        for path in (f"/geese/games/{game_id}", f"/geese/games/{game_id}/score", f"/geese/check?game={game_id}",
                     "/geese"):
            keeper.goto(f"{url}lang/{lang}?next={path}")
            expect(keeper.locator("main h1")).to_be_visible()
            assert_inside(keeper, f"{path} of a 3-player game in {lang}")
        keeper.goto(f"{url}lang/{lang}?next=/geese/games/{game_id}")
        expect(keeper.locator("#totals .total").first).to_be_visible()
        expect(keeper.locator("#share-text")).to_contain_text(
            "帰る雁 (Kaeru Kari): final scores" if lang == "en" else "帰る雁：最終得点")
        assert_inside(keeper, f"the 3-player tracker's scores with their reasons in {lang}")
    shot(keeper, "geese-game-three-ja")
