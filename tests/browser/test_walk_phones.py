"""Every page a phone opens, walked at 390 px in both languages, locked and unlocked, mid-game and mid-show.

A table in use has a show running, an earlier show on its records, an Über den
Wolken game and a 帰る雁 game under way: the walk opens every page the web serves
to phones (the route list is read from the app, so a new page cannot be left
out) and fails, naming the page, on:
- a page wider than the phone (it would scroll sideways);
- a top bar taller than one line of links, a link in it under a 44 px touch
  target, or the current page's link or the language link out of sight (the bar
  took 157 px, three rows, on every page);
- in Japanese, an English word outside a short list of names, or a word the
  glossary rules out; ASCII punctuation (`,` `:` `(` `)`) beside Japanese text, or a
  space between a Japanese word and a player's name put into a sentence (the
  catalogue's own joiners, 、：（）, go there);
- unlocked, a game whose board is not all on the first screen (every move would
  need a scroll), or 帰る雁's hand and its two turn buttons below it;
and, after a refusal tapped on the pages that take input, on a message outside
the phone's screen or focus dropped on the page's body; and after a tap that
takes its own control away (the Pass that ends a stage, the Land that ends the
game), on focus dropped on the page's body, or no result to share on that phone.
"""

import importlib.util
import re
from pathlib import Path

import pytest

from .conftest import PHONE, answers_held_back, api, unlock
from .layout import OUTSIDE, TOP_BAR
from .plays import finished_flock_game, finished_geese_game

ROOT = Path(__file__).resolve().parents[2]

# The pages for phones, by the app's route: None, or the record a page of that route needs.
PAGES = {
    "/": None, "/scorepad": None, "/shows": None, "/shows/<int:show_id>": "show",
    "/flock": None, "/flock/stage": None, "/flock/games/<int:game_id>": "flock",
    "/geese": None, "/geese/check": None, "/geese/games/<int:game_id>": "geese",
    "/geese/games/<int:game_id>/score": "geese",
    "/progress": None, "/progress/trouble": None, "/progress/flock": None, "/progress/geese": None,
    "/progress/tonight": None,
    "/setup/": None, "/pin": None, "/pair/<code>": "pair", "/maintenance/": None,
}
NOT_FOR_PHONES = {
    "/kiosk/": "the table's own screen, walked at its size by the kiosk tests",
    "/kiosk/join": "the table's own screen's join card",
    "/kiosk/progress": "the table's own screen between shows, walked at its sizes by the progress tests",
    "/i18n/<code>.json": "a catalogue, not a page", "/lang/<code>": "a redirect, not a page",
    "/maintenance/backup.tar.gz": "a download, not a page",
    "/progress/tonight.svg": "a picture to share, not a page",
}
MISSING_PAGE = "/no-such-page"  # the error page, in the phone's language
# The games' pages once a game is over (its winner named in a sentence, its result to share), walked as well.
OVER = {"/flock/games/<int:game_id>": "flock_over", "/geese/games/<int:game_id>": "geese_over",
        "/geese/games/<int:game_id>/score": "geese_over"}

# Names a Japanese page may show in Latin letters: units and standards, never words of a sentence.
LATIN_NAMES = {"PIN", "GPIO", "LED", "QR", "Wi-Fi", "BG", "Stats", "MQTT", "URL", "ID", "SPI", "PWM",
               "CSV", "JSON", "mDNS", "SD", "root", "Enter", "Esc", "journalctl", "companion"}
COMMAND = re.compile(r"\bcompanion(?: --?[a-z-]+| [a-z][a-z-]*)+")  # a command to type, as typed
MACHINE_VALUE = re.compile(r"(?:\w+://|(?<![\w.])/)[^\s）)、。]*"  # an address or a device path, not a word
                           r"|\b[a-z]+-\d+\b|\btraining\b")  # a record's id as typed (event-04, the training event's)
TITLES = ["Über den Wolken", "JSON Lines"]  # a box's own title, a format's name
PLAYERS = ["はな", "そら", "うみ", "もり"]  # the players the test enters: Japanese names, so none is an English word
JAPANESE = r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff5e「」、。・]"
ASCII_JOINER = re.compile(rf"{JAPANESE}[ ]?[,:()]|[,:()][ ]?{JAPANESE}")  # "あき, ゆう", "ゲーム 5: あき"
FORMULA = re.compile(r"\b[a-z]\([a-z]\)")  # the rules' own arithmetic: w(n)
NAME_SPACED = re.compile(rf"{JAPANESE} (?:{'|'.join(PLAYERS)})|(?:{'|'.join(PLAYERS)}) {JAPANESE}")  # "はな の勝ち"
BOARDS = {"flock": "#game-board"}  # a game's board a move is tapped on: all of it on the first screen
WHOLE = ["ハイイロガン", "アカトビ", "アマツバメ"]  # words a narrow cell must not break inside
# Each of `words` laid out on more than one line somewhere on the page: a word broken inside.
BROKEN = r"""(words) => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of words) {
      for (let at = node.data.indexOf(word); at >= 0; at = node.data.indexOf(word, at + 1)) {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + word.length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(word);
      }
    }
  }
  return broken;
}"""
PRICE = re.compile(r"\d+[ \u00a0]?●")  # a price: its number and its cube on one line

VISIBLE_TEXT = """() => {
  const skip = (el) => el.closest("script, style, code, kbd, samp, [translate=no], [lang=en], .visually-hidden");
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const parts = [];
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement;
    if (!el || skip(el) || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    parts.push(node.textContent);
  }
  // A placeholder that shows a machine's value (a device path, a broker's address) is not a sentence.
  const sentence = (text) => text && !/^\\S*[/:]\\S*$/.test(text.trim().replace(/…$/, ""));
  for (const el of document.querySelectorAll("input[placeholder], textarea[placeholder], [aria-label], img[alt]")) {
    const text = el.getAttribute("placeholder") || el.getAttribute("aria-label") || el.getAttribute("alt");
    if (!skip(el) && sentence(text)) parts.push(text);
  }
  parts.push(document.title);
  return parts.join("\\n");
}"""

SHOWN_MESSAGES = """() => [...document.querySelectorAll("[role=alert], .error, [aria-live]")]
  .filter((el) => el.textContent.trim() && el.getClientRects().length && getComputedStyle(el).visibility !== "hidden")
  .map((el) => { const b = el.getBoundingClientRect();
                 return { text: el.textContent.trim().slice(0, 60), top: b.top, bottom: b.bottom }; })"""

FOCUS = "() => document.activeElement === document.body || document.activeElement === null"
# The focus lost once the browser has drawn the change (it moves a focus off a control turned off or hidden only
# then): on the body, or on a control that is off or out of sight.
LOST_AFTER_A_FRAME = """async () => {
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const active = document.activeElement;
  return !active || active === document.body || active.disabled === true || !active.checkVisibility();
}"""

# A page is read once its scripts have their answers: every fetch answered, every live stream's first
# state in (a stream never ends, so the browser's own "network idle" never comes on a live page).
SETTLING = """
window.__asked = 0;
const realFetch = window.fetch;
window.fetch = (...args) => { window.__asked += 1;
  return realFetch(...args).finally(() => setTimeout(() => { window.__asked -= 1; })); };
window.__streams = [];
const RealSource = window.EventSource;
window.EventSource = class extends RealSource {
  constructor(...args) { super(...args); this.__seen = { first: false }; window.__streams.push(this.__seen); }
  addEventListener(kind, listener, ...rest) {  // the page's own events: the first one read settles the stream
    const seen = this.__seen;
    const settle = kind === "open" ? listener : (event) => { seen.first = true; return listener(event); };
    if (kind === "error") super.addEventListener(kind, () => { seen.first = true; });
    return super.addEventListener(kind, settle, ...rest);
  }
};
"""
SETTLED = """() => document.readyState === "complete" && window.__asked === 0
  && window.__streams.every((s) => s.first)"""


def glossary_check():
    """The glossary test's reader of ruled-out words, so that the pages answer to the same list as the files."""
    spec = importlib.util.spec_from_file_location("glossary_rules", ROOT / "tests" / "docs" / "test_glossary.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GLOSSARY = glossary_check()


def games_of(path: str) -> set:
    """The games whose ruled-out words a page answers to: its own game's, and every table-wide word."""
    parts = [p for p in path.split("/") if p]
    return {game for game, meta in GLOSSARY.scoped_games().items()
            if any(part.startswith(prefix) for part in parts for prefix in meta["paths"])}


def english_words(text: str, allowed: set) -> list:
    for title in TITLES:
        text = text.replace(title, "")
    text = MACHINE_VALUE.sub("", COMMAND.sub("", text))
    words = re.findall(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’-]+", text)
    return sorted({w for w in words if w not in allowed and w.strip("'’-") not in allowed})


@pytest.fixture
def table(tmp_path):
    """`companion demo`'s table (its settings in a file of its own, not set up yet), served on 127.0.0.1."""
    from types import SimpleNamespace

    from companion.clock import FakeClock
    from companion.table import demo_table
    from companion.web.server import ServerThread, make_server

    demo = demo_table(tmp_path / "demo.sqlite3", clock=FakeClock(), pin="1234",
                      config_path=tmp_path / "demo.toml").start()
    server = ServerThread(make_server(demo, "127.0.0.1", 0))
    yield SimpleNamespace(table=demo, url=server.url)
    server.close()
    demo.stop()


@pytest.fixture
def phone_in(launch):
    """phone_in(table, lang) -> a 390 px page with that language chosen, its scripts' answers watched."""
    def open_page(table, lang):
        context = launch(PHONE)
        context.add_cookies([{"name": "lang", "value": lang, "url": table.url}])
        context.add_init_script(SETTLING)
        return context.pages[0] if context.pages else context.new_page()
    return open_page


@pytest.fixture
def in_use(table):
    """The demo table as a game night leaves it: a show on the records, one running, two board games under way."""
    demo, url = table, table.url
    api(url, "/api/players", {"players": PLAYERS})
    api(url, "/api/show/start", {"event": "training"})
    api(url, "/api/show/abort", {})  # on the records: the first show
    api(url, "/api/show/start", {"event": "training"})  # running while the pages are walked
    flock = api(url, "/api/flock/games", {"players": ["crane", "goose"], "seed": 5})
    geese = api(url, "/api/geese/games", {"players": PLAYERS})
    over = {"flock_over": finished_flock_game(Client(url), ["crane", "goose"], 5),
            "geese_over": finished_geese_game(Client(url), PLAYERS)}
    return demo, {"show": 1, "flock": flock["id"], "geese": geese["id"], "pair": "ABCDEFGH", **over}


class Client:
    """The table at `url` as the games' helpers post to it (plays.py): each POST's JSON answer, with the PIN."""

    def __init__(self, url: str):
        self.url = url

    def post(self, path: str, json: dict, headers=None):
        from types import SimpleNamespace

        return SimpleNamespace(status_code=200, json=api(self.url, path, json))


def page_path(rule: str, records: dict) -> str:
    need = PAGES[rule]
    return re.sub(r"<[^>]+>", str(records[need]), rule) if need else rule


def test_every_page_for_phones_is_walked():
    """A page added to the web is walked too, or said here why a phone never opens it."""
    import tempfile

    from companion.clock import FakeClock
    from companion.table import demo_table
    from companion.web import create_app

    with tempfile.TemporaryDirectory() as folder:
        table = demo_table(Path(folder) / "db.sqlite3", clock=FakeClock())
        try:
            rules = {r.rule for r in create_app(table).url_map.iter_rules()
                     if "GET" in r.methods and not r.rule.startswith(("/api/", "/static/"))
                     and not r.endpoint.endswith("static")}
        finally:
            table.stop()
    assert rules == set(PAGES) | set(NOT_FOR_PHONES)


@pytest.mark.parametrize("unlocked", [False, True], ids=["locked", "unlocked"])
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_page_fits_a_phone_and_speaks_its_language(in_use, phone_in, lang, unlocked):
    demo, records = in_use
    page = phone_in(demo, lang)
    if unlocked:
        unlock(page, demo.url, "/")
    allowed = LATIN_NAMES | {"crane", "goose"}  # the flock's players are named by their colours' birds
    faults = []
    over = [re.sub(r"<[^>]+>", str(records[need]), rule) for rule, need in OVER.items()]
    for rule in list(PAGES) + over + [MISSING_PAGE]:
        path = page_path(rule, records) if rule in PAGES else rule
        page.goto(demo.url.rstrip("/") + path)
        page.wait_for_function(SETTLED)
        faults += [f"{path}: {fault}" for fault in page.evaluate(OUTSIDE)[:3]]
        faults += [f"{path}: {fault}" for fault in page.evaluate(TOP_BAR)]
        if lang == "ja":
            text = page.evaluate(VISIBLE_TEXT)
            english = english_words(text, allowed)
            if english:
                faults.append(f"{path}: English on a Japanese page: {english[:12]}")
            faults += [f"{path}: {word}" for word in GLOSSARY.ruled_out(text, games_of(path))]
            faults += [f"{path}: ASCII punctuation in Japanese: {line.strip()[:60]!r}"
                       for line in text.splitlines() if ASCII_JOINER.search(FORMULA.sub("", MACHINE_VALUE.sub("", line)))]
            faults += [f"{path}: a space beside a name: {line.strip()[:60]!r}"
                       for line in text.splitlines() if NAME_SPACED.search(line)]
            faults += [f"{path}: {word} broken inside" for word in page.evaluate(BROKEN, WHOLE)]
        prices = page.evaluate(BROKEN, sorted(set(PRICE.findall(page.evaluate("document.body.innerText")))))
        faults += [f"{path}: the price {price!r} broken" for price in prices]
        board = BOARDS.get(PAGES.get(rule))
        if unlocked and board:
            bottom = page.evaluate(f"document.querySelector({board!r}).getBoundingClientRect().bottom")
            if bottom > PHONE["height"]:
                faults.append(f"{path}: the board ends {bottom:.0f} px down a {PHONE['height']} px screen")
    assert faults == [], f"{lang}, {'unlocked' if unlocked else 'locked'}:\n" + "\n".join(faults)


# ---- after a refusal: the message in sight, the focus kept -------------------------------------

def refuse_pin(page, url):
    page.goto(url + "pin?next=/")
    page.fill("#pin", "0000")
    page.click(".pin-form button[type=submit]")
    return "#pin-error"


def refuse_players(page, url):
    unlock(page, url, "/scorepad")
    page.wait_for_selector("#players-form[data-ready]")
    page.fill("#players", "Ann\u202eBo")
    page.click("#players-form button[type=submit]")
    return "#players-error"


def refuse_setup_code(page, url):
    page.goto(url + "setup/")
    page.fill("#setup-code", "WRONG-CODE1")
    page.click("#code-form button[type=submit]")
    return "#setup-code-error"


REFUSALS = {"pin": refuse_pin, "scorepad players": refuse_players, "setup code": refuse_setup_code}


@pytest.mark.parametrize("refusal", list(REFUSALS))
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_refusal_is_seen_on_the_screen_and_keeps_the_focus(table, phone_in, expect, lang, refusal):
    page = phone_in(table, lang)
    slot = REFUSALS[refusal](page, table.url)
    expect(page.locator(slot)).not_to_be_empty()
    shown = page.evaluate(SHOWN_MESSAGES)
    assert shown, f"{refusal}: no message shown"
    outside = [m for m in shown if m["bottom"] > PHONE["height"] or m["top"] < 0]
    assert outside == [], f"{refusal}: a message outside the {PHONE['height']} px screen: {outside}"
    # A refusal that comes as a new page focuses its field by autofocus, which the browser applies once it has
    # drawn the page: the focus is looked for until then, not at the first instant the message is there.
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"() => !({FOCUS})()", timeout=5000)
    except PlaywrightTimeout:
        raise AssertionError(f"{refusal}: the focus fell to the page's body") from None
    assert page.evaluate(OUTSIDE) == []


# ---- after an action that takes its own control away: the focus stays on the page's parts ------------------

def last_pass_left(url: str, game_id: int, game, stages: int) -> None:
    """Play `game` through the API to the last Pass of stage `stages`: one tap on the page then ends it."""
    import copy

    from .plays import NEST

    while True:
        if game.turn is None:
            action = {"do": "land", "nest": NEST}
        else:
            trial = copy.deepcopy(game)
            trial.apply({"do": "pass"})
            if trial.turn is None and len(game.view()["stages"]) + 1 == stages:
                return
            action = {"do": "pass"}
        api(url, f"/api/flock/games/{game_id}/actions", {"action": action})
        game.apply(action)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_stage_or_a_game_that_ends_on_a_tap_leaves_the_focus_on_the_page_not_its_body(table, phone_in, lang):
    """The Pass that ends a stage and the Land that ends the game go away with it: the focus went to <body>."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    from companion.flock.game import Game

    page = phone_in(table, lang)
    unlock(page, table.url, "/")
    faults = []
    for stages, tap in ((1, "#pass"), (3, "#stage-entry .score-stage")):
        game_id = api(table.url, "/api/flock/games", {"players": ["crane", "goose"], "seed": 5})["id"]
        game = Game(["crane", "goose"], 5)
        last_pass_left(table.url, game_id, game, stages)
        if stages == 3:  # the last stage's passes too: the tap is its Land
            api(table.url, f"/api/flock/games/{game_id}/actions", {"action": {"do": "pass"}})
        page.goto(f"{table.url}flock/games/{game_id}")
        page.wait_for_function(SETTLED)
        if stages == 3:
            page.fill("#stage-entry .nest-points", "3, 7, 11, 14, 16")
            page.fill("#stage-entry .nest-pair", "3")
        page.click(tap)
        page.wait_for_function("() => !document.querySelector('#flock[aria-busy]')")
        if stages == 3:  # the game's end brings its result to share: the focus may go there once it is in
            try:
                page.wait_for_selector("#share-button:enabled", timeout=10_000)
            except PlaywrightTimeout:
                faults.append("the game's end: no result to share on the phone that ended it")
        if page.evaluate(LOST_AFTER_A_FRAME):
            faults.append(f"{tap} ending stage {stages}: the focus fell to the page's body")
    assert faults == [], f"{lang}: {faults}"


@pytest.mark.parametrize("lang", ["en"])
def test_a_game_ended_while_its_land_is_still_answered_leaves_the_focus_on_its_result(table, phone_in, lang):
    """On a busy table the stream can bring the game's end, and the page its result, before the answer to the Land
    that ended it: the page takes no taps meanwhile (inert), so the result could not take the focus, and when the
    answer came the Land button was gone with the stage's entry: the focus fell to the page body."""
    from companion.flock.game import Game

    page = phone_in(table, lang)
    unlock(page, table.url, "/")
    game_id = api(table.url, "/api/flock/games", {"players": ["crane", "goose"], "seed": 5})["id"]
    last_pass_left(table.url, game_id, Game(["crane", "goose"], 5), 3)
    api(table.url, f"/api/flock/games/{game_id}/actions", {"action": {"do": "pass"}})
    page.goto(f"{table.url}flock/games/{game_id}")
    page.wait_for_function(SETTLED)
    page.fill("#stage-entry .nest-points", "3, 7, 11, 14, 16")
    page.fill("#stage-entry .nest-pair", "3")
    with answers_held_back(page, "**/actions") as answers:  # the table ends the game at once
        page.click("#stage-entry .score-stage")
        page.wait_for_selector("#share-button:enabled", timeout=15_000)  # the end and its result, by the stream
        answers.some("the Land")
    page.wait_for_function("() => !document.querySelector('#flock[aria-busy]')")
    assert not page.evaluate(LOST_AFTER_A_FRAME), "the focus fell to the page's body"
    assert page.evaluate("() => document.activeElement.closest('#share-slot') !== null")


# ---- the fullest board: every move without a scroll -----------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_four_player_board_is_all_on_a_phones_first_screen(table, phone_in, lang):
    """Four players make the longest players' table above the board: a move must still need no scroll."""
    from companion.flock.birds import SPECIES

    page = phone_in(table, lang)
    unlock(page, table.url, "/")
    game_id = api(table.url, "/api/flock/games", {"players": list(SPECIES), "seed": 5})["id"]
    page.goto(f"{table.url}flock/games/{game_id}")
    page.wait_for_function(SETTLED)
    bottom = page.evaluate(f"document.querySelector({BOARDS['flock']!r}).getBoundingClientRect().bottom")
    assert bottom <= PHONE["height"], f"{lang}: the board ends {bottom:.0f} px down a {PHONE['height']} px screen"


MOVES = "#game-board button, .add-column, #take-card, #pass"  # every control a move is made with


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_move_of_a_four_player_game_is_on_a_phones_first_screen(table, phone_in, lang):
    """Below the board: the bird to add, a column to add it to, Take a movement card and Pass. With four players
    seven columns of Add buttons (one a line in Japanese) and the help above them put Pass 1042 px down."""
    from companion.flock.birds import SPECIES

    page = phone_in(table, lang)
    unlock(page, table.url, "/")
    game_id = api(table.url, "/api/flock/games", {"players": list(SPECIES), "seed": 5})["id"]
    page.goto(f"{table.url}flock/games/{game_id}")
    page.wait_for_function(SETTLED)
    page.wait_for_selector("#pass", state="visible")
    below = page.evaluate(f"""[...document.querySelectorAll({MOVES!r})].filter(b => b.offsetParent)
        .filter(b => b.getBoundingClientRect().bottom > {PHONE['height']}).map(b => b.textContent.trim())""")
    assert below == [], f"{lang}: a move needs a scroll: {below}"


GEESE_MOVES = "#picker button, #arrive, #migrate"  # the hand's cards and the two buttons a turn ends with


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("players", [3, 5])
def test_a_bird_migrating_or_arriving_from_the_hand_needs_no_scroll(table, phone_in, lang, players):
    """帰る雁 on a phone: the hand's cards and Birds arrive / Birds migrate sit on the first screen, with three
    players (five numbers) and five (six), so a migration or an arrival of one card needs no scroll (the players'
    list put them 989 px down), nor an arrival of two that takes a card of the ground back (with five players, the
    setup's help above the hand put Birds arrive 858 px down)."""
    import random

    from companion.geese.game import Game as GeeseGame

    page = phone_in(table, lang)
    unlock(page, table.url, "/")
    names = ["ann", "ben", "cho", "dan", "eve"][:players]
    game_id = api(table.url, "/api/geese/games", {"players": names})["id"]
    for card in GeeseGame(players, random.Random(1)).setup:
        api(table.url, f"/api/geese/games/{game_id}/setup", {"card": card.to_json()})
    page.goto(f"{table.url}geese/games/{game_id}")
    page.wait_for_function(SETTLED)
    page.wait_for_selector("#arrive", state="visible")
    below = page.evaluate(f"""[...document.querySelectorAll({GEESE_MOVES!r})].filter(b => b.offsetParent)
        .filter(b => b.getBoundingClientRect().bottom > {PHONE['height']}).map(b => b.id || b.dataset.card)""")
    assert below == [], f"{lang}, {players} players: a turn needs a scroll: {below}"
    # Two cards arriving: the ground's cards to take one back come in beside them, above the buttons.
    for card in page.locator("#picker button").all()[:2]:
        card.click()
    page.wait_for_selector("#take-line .take-choices button")
    below = page.evaluate(f"""[...document.querySelectorAll('#take-line button, #arrive')].filter(b => b.offsetParent)
        .filter(b => b.getBoundingClientRect().bottom > {PHONE['height']}).map(b => b.id || b.textContent)""")
    assert below == [], f"{lang}, {players} players: an arrival taking a card back needs a scroll: {below}"
