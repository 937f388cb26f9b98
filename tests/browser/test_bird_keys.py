"""The two bird games played from the keyboard alone, as a screen-reader user plays them.

After the page has loaded, only keys are pressed: no click, no tap. Every
press is counted, and a move must take no more presses than the bound named
here. After each step the focus is on the element that stands for the thing
just chosen (never on the page itself), and the choices that appear are said
in a polite status. axe-core finds nothing wrong on the pages in any state
reached on the way.
"""


from .accessibility import no_axe_violations
from .conftest import unlock
from .test_flock_game import SEED as FLOCK_SEED
from .test_geese_game import NAMES as GEESE_NAMES

# A flight from the focus on the board: to the bird, Enter, to the place, Enter, Enter on the first way to fly.
FLOCK_MOVE_MAX_KEYS = 6
# From the focus on the card picker: each card by its number key, the arrow keys along its row and Enter; Tab over
# the two chosen cards to the ground's cards offered, Enter on one to take back; Tab to "Birds arrive", Enter.
GEESE_ARRIVAL_MAX_KEYS = 14
STEPS = {(1, 0): "ArrowDown", (-1, 0): "ArrowUp", (0, 1): "ArrowRight", (0, -1): "ArrowLeft"}


class Keys:
    """The keyboard of one page, counting every press."""

    def __init__(self, page):
        self.page = page
        self.count = 0

    def press(self, key: str, times: int = 1) -> None:
        for _ in range(times):
            self.page.keyboard.press(key)
            self.count += 1

    def walk(self, start: tuple[int, int], end: tuple[int, int]) -> None:
        """The arrow keys from one space of a grid to another, rows first."""
        dr, dc = end[0] - start[0], end[1] - start[1]
        if dr:
            self.press(STEPS[(1 if dr > 0 else -1, 0)], abs(dr))
        if dc:
            self.press(STEPS[(0, 1 if dc > 0 else -1)], abs(dc))

    def tab_until(self, selector: str, key: str = "Tab", limit: int = 200) -> None:
        for _ in range(limit):
            if self.focused(selector):
                return
            self.press(key)
        raise AssertionError(f"{key} never reached {selector}")

    def focused(self, selector: str) -> bool:
        return self.page.evaluate("s => document.activeElement.matches(s)", selector)


def focus_is(page, selector: str) -> None:
    """The focus is on `selector` now or once the page has drawn it (never on the page itself)."""
    page.wait_for_function("s => document.activeElement && document.activeElement.matches(s)", arg=selector)


def spoken(page, selector: str) -> str:
    """The text a screen reader reads in `selector`: everything but what is hidden from it (aria-hidden)."""
    return page.locator(selector).evaluate("""el => {
        const words = [];
        const walk = (node) => {
            if (node.nodeType === Node.TEXT_NODE) words.push(node.textContent);
            else if (node.getAttribute?.("aria-hidden") !== "true") node.childNodes.forEach(walk);
        };
        walk(el);
        return words.join(" ").replace(/\\s+/g, " ").trim();
    }""")


def presses_for(flight, stop, first_target, order) -> int:
    """Presses from the board's tab stop: arrows to the bird, Enter, arrows from the first place lit to the
    chosen place, Enter, then Tab to the way of flying (the first is focused) and Enter."""
    distance = lambda a, b: abs(a[0] - b[0]) + abs(a[1] - b[1])  # noqa: E731
    return distance(stop, flight["from"]) + 1 + distance(first_target, flight["to"]) + 1 + order + 1


def lay_out_flock(page, url, expect, query: str = "") -> None:
    """Unlock the Über den Wolken page with the PIN and lay out a table (the setup board drawn)."""
    unlock(page, url, f"/flock{query}")
    page.click("#setup-form button[type=submit]")
    expect(page.locator("#setup-board .cell")).to_have_count(15)


def test_a_flight_from_the_keyboard_alone(browser, expect, shot):
    url, page = browser.url, browser.page
    lay_out_flock(page, url, expect, f"?seed={FLOCK_SEED}")
    page.click("#keep-moves")
    page.wait_for_url("**/flock/games/*")
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    view = page.request.get(f"{url}api/flock/games/{game_id}").json()["view"]

    page.reload()  # from here on, keys only
    keys = Keys(page)
    expect(page.locator("#game-board [role=gridcell] button.cell")).to_have_count(15)
    keys.tab_until("#game-board .cell")
    tabs_to_board = keys.count
    assert page.locator("#game-board .cell[tabindex='0']").count() == 1  # the board is one stop of Tab
    keys.press("Tab")
    assert not keys.focused("#game-board .cell")  # and one Tab leaves it
    keys.press("Shift+Tab")
    focus_is(page, "#game-board .cell[data-key='0,0']")
    no_axe_violations(page, "the board in turn")

    flights = [m for m in view["legal"] if m.get("from")]
    places = lambda frm: sorted({tuple(m["to"]) for m in flights if m["from"] == frm})  # noqa: E731
    kinds = ["fly_side", "fly_line"]

    def order(flight):  # where its button stands among the ways of flying from `from` to `to`
        offered = [k for k in kinds if any(m["do"] == k and m["from"] == flight["from"] and m["to"] == flight["to"]
                                           for m in flights)]
        return offered.index(flight["do"])

    simple = [m for m in flights if m["do"] in kinds]
    flight = min(simple, key=lambda m: presses_for(m, (0, 0), places(m["from"])[0], order(m)))
    start, to, first = tuple(flight["from"]), tuple(flight["to"]), places(flight["from"])[0]
    mover = view["board"][start[0]][start[1]]["owner"]

    # Escape takes a chosen bird back: no place lit, the focus on the bird again.
    keys.walk((0, 0), start)
    keys.press("Enter")
    focus_is(page, f"#game-board .cell[data-key='{first[0]},{first[1]}']")
    expect(page.locator("#board-status")).to_have_text(f"Places to fly to: {len(places(flight['from']))}")
    expect(page.locator("#game-board .cell.target")).to_have_count(len(places(flight["from"])))
    no_axe_violations(page, "a bird chosen, its places lit")
    keys.press("Escape")
    focus_is(page, f"#game-board .cell[data-key='{start[0]},{start[1]}']")
    expect(page.locator("#game-board .cell.target")).to_have_count(0)
    keys.walk(start, (0, 0))

    keys.count = 0  # the move itself, from the focus on the board
    keys.walk((0, 0), start)
    keys.press("Enter")
    focus_is(page, f"#game-board .cell[data-key='{first[0]},{first[1]}']")
    keys.walk(first, to)
    focus_is(page, f"#game-board .cell.target[data-key='{to[0]},{to[1]}']")
    keys.press("Enter")
    focus_is(page, "#choices button.flock-choice")
    expect(page.locator("#board-status")).to_contain_text("Choices below the board: ")
    no_axe_violations(page, "the ways to fly offered")
    shot(page, "flock-keys-ways-to-fly")
    keys.press("Tab", order(flight))
    focus_is(page, f"#choices button[data-move='{flight['do']}']")
    keys.press("Enter")
    # The bird has flown; the focus is on the space it landed on, the board still one stop of Tab.
    expect(page.locator(f"#game-board .cell[data-key='{to[0]},{to[1]}']")).to_have_attribute("data-owner", mover)
    focus_is(page, f"#game-board .cell[data-key='{to[0]},{to[1]}']")
    expect(page.locator("#choices button")).to_have_count(0)
    print(f"Über den Wolken: {tabs_to_board} Tabs from the page's top to the board; a flight in {keys.count} presses "
          f"(bound {FLOCK_MOVE_MAX_KEYS})")
    assert keys.count <= FLOCK_MOVE_MAX_KEYS


GROUND = [{"n": 6, "suit": "gull"}, {"n": 6, "suit": "thrush"}, {"n": 3, "suit": "gull"}, {"n": 1, "suit": "goose"},
          {"n": 2, "suit": "eagle"}, {"n": 4, "suit": "crane"}, {"n": 5, "suit": "crane"}, {"n": 6, "suit": "crane"}]
ARRIVING = ["2-gull", "5-gull"]  # two cards of a hand, as the picker keys them (number-suit)


def test_two_birds_arrive_from_the_keyboard_alone(browser, expect, shot):
    url, page = browser.url, browser.page
    post = lambda path, body: page.request.post(url + path, data=body, headers={"X-Table-Pin": "1234"}).json()  # noqa: E731
    game = post("api/geese/games", {"players": GEESE_NAMES})
    for card in GROUND:
        post(f"api/geese/games/{game['id']}/setup", {"card": card})
    page.goto(f"{url}pin?next=/geese/games/{game['id']}")
    page.fill("#pin", "1234")
    page.click(".pin-form button[type=submit]")
    page.wait_for_url(f"**/geese/games/{game['id']}")

    page.reload()  # from here on, keys only
    keys = Keys(page)
    expect(page.locator("#next-turn")).to_have_text(f"Next turn: {GEESE_NAMES[0]}")
    keys.tab_until("#picker button")
    tabs_to_picker = keys.count
    assert page.locator("#picker button[tabindex='0']").count() == 1  # the picker is one stop of Tab
    no_axe_violations(page, "the tracker, a turn to record")
    grid = page.locator("#picker [role=row]").evaluate_all(
        "rows => rows.map(r => [...r.querySelectorAll('[data-key]')].map(b => b.dataset.key))")
    where = {key: (r, c) for r, row in enumerate(grid) for c, key in enumerate(row)}

    def pick(at: tuple[int, int], card: str) -> tuple[int, int]:
        """A card's number key (to its row, same column), the arrow keys along the row, Enter."""
        r, c = where[card]
        keys.press(str(r + 1))
        keys.walk((r, min(at[1], len(grid[r]) - 1)), (r, c))
        focus_is(page, f"#picker button[data-card='{card}']")
        keys.press("Enter")
        return r, c

    # A card chosen and dropped again: the focus goes back to the picker; Escape clears a choice.
    keys.press("Enter")
    focus_is(page, "#picker button[data-key='1-thrush']")
    keys.press("Tab")
    focus_is(page, "#chosen button[data-key='chosen-0']")
    keys.press("Enter")
    focus_is(page, "#picker button[data-key='1-thrush']")
    expect(page.locator("#chosen button")).to_have_count(0)
    keys.press("Enter")
    keys.press("Escape")
    expect(page.locator("#chosen button")).to_have_count(0)
    focus_is(page, "#picker button[data-key='1-thrush']")

    keys.count = 0  # the turn itself, from the focus on the picker
    at = pick((0, 0), ARRIVING[0])
    focus_is(page, f"#picker button[data-card='{ARRIVING[0]}']")  # the focus stays on the card just chosen
    expect(page.locator("#turn-status")).to_have_text("Chosen: gull 2.")
    pick(at, ARRIVING[1])
    expect(page.locator("#turn-status")).to_have_text(
        "Chosen: gull 2, gull 5. With 2 arriving cards, tap the card in the ground to take back.")
    # The chosen cards are read in the chips' words, never the symbols the eye reads.
    assert spoken(page, "#chosen") == "gull 2 gull 5"
    for i, card in enumerate(ARRIVING):
        expect(page.locator("#chosen button").nth(i)).to_have_accessible_name(f"gull {card[0]}")
        expect(page.locator(f"#picker button[data-card='{card}']")).to_have_accessible_name(f"gull {card[0]}")
    keys.press("Tab", 2)  # over the two chosen cards
    focus_is(page, "#chosen button[data-key='chosen-1']")
    keys.press("Tab")
    focus_is(page, "#take-line [role=toolbar] button.gcard")
    take = page.evaluate("document.activeElement.dataset.card")
    no_axe_violations(page, "two cards chosen, the ground's cards offered to take back")
    shot(page, "geese-keys-take-back")
    keys.press("Enter")
    focus_is(page, f"#take-line button[data-card='{take}'][aria-pressed='true']")  # kept on the card marked
    expect(page.locator(f"#ground button[data-card='{take}']")).to_have_attribute("aria-pressed", "true")
    keys.press("Tab")
    focus_is(page, "#arrive")
    keys.press("Enter")
    expect(page.locator("#actions li")).to_have_count(1)
    expect(page.locator("#next-turn")).to_have_text(f"Next turn: {GEESE_NAMES[1]}")
    focus_is(page, "#arrive")
    expect(page.locator("#chosen button")).to_have_count(0)
    arrival = keys.count
    print(f"帰る雁: {tabs_to_picker} Tabs from the page's top to the card picker; two cards arriving, one taken back, "
          f"in {arrival} presses (bound {GEESE_ARRIVAL_MAX_KEYS})")
    assert arrival <= GEESE_ARRIVAL_MAX_KEYS

    # A card marked on the ground itself keeps the focus there; Escape takes the mark back.
    keys.tab_until("#ground button")
    marked = page.evaluate("document.activeElement.dataset.card")
    keys.press("Enter")
    focus_is(page, f"#ground button[data-card='{marked}'][aria-pressed='true']")
    keys.press("Escape")
    focus_is(page, "#picker button[tabindex='0']")
    expect(page.locator("#ground button[aria-pressed='true']")).to_have_count(0)
    no_axe_violations(page, "the tracker after a turn")


def test_axe_finds_nothing_wrong_on_the_bird_pages(browser, launch, expect):
    url, page = browser.url, browser.page
    lay_out_flock(page, url, expect)
    no_axe_violations(page, "Über den Wolken: a table laid out")
    page.click("#keep-sheet")
    page.wait_for_url("**/flock/games/*")
    expect(page.locator("#stage-entry .stage-board [role=gridcell]")).to_have_count(15)
    no_axe_violations(page, "Über den Wolken: the game sheet, a stage to enter")
    page.goto(f"{url}flock/stage")
    page.click(".stage-board .cell[data-key='0,0']")
    no_axe_violations(page, "Über den Wolken: the stage scorer")

    game = page.request.post(f"{url}api/geese/games", data={"players": GEESE_NAMES},
                             headers={"X-Table-Pin": "1234"}).json()
    for path in ("geese", f"geese/games/{game['id']}", f"geese/games/{game['id']}/score"):
        page.goto(url + path)
        expect(page.locator("main h1")).to_be_visible()
        no_axe_violations(page, path)
    page.goto(f"{url}geese/check")
    for card in ("3-gull", "5-crane"):
        page.click(f"#picker button[data-card='{card}']")
    expect(page.locator("#best")).not_to_be_empty()
    no_axe_violations(page, "the migration checker with a hand")
    following = launch()  # a phone without the PIN follows the game
    viewer = following.new_page()
    viewer.goto(f"{url}geese/games/{game['id']}")
    expect(viewer.locator("#ground tr")).to_have_count(6)
    no_axe_violations(viewer, "the tracker, following only")
    following.close()


def test_axe_finds_nothing_wrong_where_symbols_are_read_as_pictures(browser, expect):
    """The pages whose symbols (the result's stars, the setup check's ticks, the lists' stars) have a name."""
    for path in ("", "shows", "scorepad"):
        browser.page.goto(browser.url + path)
        expect(browser.page.locator("main h1, h1").first).to_be_attached()
        no_axe_violations(browser.page, path or "the table page")
