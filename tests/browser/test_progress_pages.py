"""The progress pages on a phone, in both languages, after several nights at the table: shows won and lost with
different glasses running out, Über den Wolken and 帰る雁 games; each figure checked against the history as this
test played it, counted here by hand."""

import re
from collections import Counter
from datetime import datetime, timedelta

import pytest

from companion.records.fakes import show_with_runouts

from .conftest import api
from .layout import assert_inside
from .plays import finished_flock_game, finished_geese_game

DAY = 86400.0
# (nights before tonight, event, glasses that ran out): three losses, purple never among the glasses of these
# shows; red runs out in two of the three losses.
HISTORY = [(3, "event-02", ("red", "orange", "yellow")), (3, "event-02", ("green",)), (3, "event-03", ()),
           (2, "event-04", ("red", "green", "yellow")), (2, "event-04", ("orange",)),
           (1, "event-05", ("green", "orange", "yellow")), (1, "event-05", ("green", "orange")),
           (0, "event-06", ("red",)), (0, "event-06", ())]
GEESE = ["ann", "ben", "cho"]
PAGES = ["/progress", "/progress/trouble", "/progress/flock", "/progress/geese", "/progress/tonight"]


class Client:
    """The table at `url` as the games' helpers post to it (plays.py)."""

    def __init__(self, url: str):
        self.url = url

    def post(self, path: str, json: dict, headers=None):
        from types import SimpleNamespace

        return SimpleNamespace(status_code=200, json=api(self.url, path, json))


@pytest.fixture
def nights(demo):
    """The demo table after four nights: HISTORY's shows at nine in the evening (tonight's a minute ago), a
    finished Über den Wolken game and a finished 帰る雁 game."""
    now = demo.table.clock.wall()
    for before, event, ran_out in HISTORY:
        wall = now - 60 if before == 0 else now - before * DAY
        show_with_runouts(demo.table.store, event, ran_out, wall=wall)
    flock = finished_flock_game(Client(demo.url), ["crane", "goose"], 5)
    geese = finished_geese_game(Client(demo.url), GEESE)
    # All counted before a page asks, as on a table that has had a moment: a page counts for its budget only (its
    # own tests), so on a busy machine the last game was left for later and missing from the page.
    demo.table.progress.fill()
    return demo, flock, geese


def open_phone(launch, url, lang):
    context = launch()
    context.add_cookies([{"name": "lang", "value": lang, "url": url}])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def row_of(page, event_number: int):
    return page.locator("table.campaign tbody tr").nth(event_number - 1)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_progress_pages_show_the_history_as_it_was_played(nights, launch, shot, lang):
    demo, _, _ = nights
    page, errors = open_phone(launch, demo.url, lang)
    base = demo.url.rstrip("/")

    # The campaign: each event's attempts and stars, the nights' wins, as counted here.
    page.goto(base + "/progress")
    assert_inside(page, f"/progress ({lang})")
    tried = Counter(event for _, event, _ in HISTORY)
    won = {event for _, event, ran in HISTORY if len(ran) < 3}
    best = {event: max(3 - len(ran) for _, e, ran in HISTORY if e == event and len(ran) < 3) for event in won}
    for event, attempts in tried.items():
        row = row_of(page, int(event[-2:]))
        assert row.locator("td").nth(1).inner_text() == str(attempts)
        assert row.locator(".strip svg path").count() >= 1
    sentence = page.locator("#map-sentence").inner_text()
    stars = sum(best.values())
    assert (f"You have won {len(won)} of the 30 events, with {stars} of 90 stars." if lang == "en"
            else f"30のイベントのうち{len(won)}に成功し、星は90のうち{stars}です。") == sentence
    night_rows = page.locator("#nights-title ~ details tbody tr")
    assert night_rows.count() == 4
    shot(page, f"progress-campaign-{lang}")

    # What goes wrong: the glass that ran out in most losses, and in how many.
    page.goto(base + "/progress/trouble")
    assert_inside(page, f"/progress/trouble ({lang})")
    losses = [ran for _, _, ran in HISTORY if len(ran) == 3]
    in_losses = Counter(colour for ran in losses for colour in set(ran))
    worst, n = max(in_losses.items(), key=lambda kv: (kv[1], sum(kv[0] in r for _, _, r in HISTORY)))
    said = page.locator("#colours-sentence").inner_text()
    assert (f"ran out in {n} of your {len(losses)} losses" in said if lang == "en"
            else f"失敗した{len(losses)}回のうち{n}回で" in said)
    tokens = sum(len(ran) for _, _, ran in HISTORY)
    assert str(tokens) in page.locator("#tokens-sentence").inner_text()
    page.locator("#colours-title ~ details summary").click()
    rows = page.locator("#colours-title ~ details tbody tr")
    assert rows.count() == 6
    shot(page, f"progress-trouble-{lang}")

    # The bird games, per player: each geese player's one game, the winner's win.
    page.goto(base + "/progress/geese")
    assert_inside(page, f"/progress/geese ({lang})")
    assert page.locator(".players-table tbody tr").count() == len(GEESE)
    total_wins = sum(int(re.findall(r"\d+", cell)[-1 if lang == "ja" else 0])
                     for cell in page.locator(".players-table tbody td:nth-child(2)").all_inner_texts())
    assert total_wins == 1
    # Head to head, ranked: the one game's winner finished ahead of both others, first of three places.
    winner = next(row.locator("th").inner_text().split("\n")[0] for row in page.locator(".players-table tbody tr").all()
                  if re.findall(r"\d+", row.locator("td").first.inner_text())[-1 if lang == "ja" else 0] == "1")
    assert page.locator("#ranking-title ~ details tbody tr").count() == len(GEESE)
    assert page.locator("#ranking-sentence").inner_text() == (
        f"{winner} finishes ahead most often head to head: in 2 of 2 meetings." if lang == "en"
        else f"直接対決で最もよく上位で終えているのは{winner}です：2回の対戦のうち2回。")
    shot(page, f"progress-geese-{lang}")
    page.goto(base + "/progress/flock")
    assert_inside(page, f"/progress/flock ({lang})")
    assert page.locator(".players-table tbody tr").count() == 2
    shot(page, f"progress-flock-{lang}")

    # Tonight: tonight's shows, won and lost as played, and the two games finished tonight.
    page.goto(base + "/progress/tonight")
    assert_inside(page, f"/progress/tonight ({lang})")
    tonight = [ran for before, _, ran in HISTORY if before == 0]
    wins = sum(len(ran) < 3 for ran in tonight)
    text = page.locator("#share-text").inner_text()
    assert (f"{wins} won, {len(tonight) - wins} lost" in text if lang == "en"
            else f"成功{wins}回、失敗{len(tonight) - wins}回" in text)
    assert page.locator(".recap li").count() == 1 + len({e for b, e, _ in HISTORY if b == 0}) + 2
    shot(page, f"progress-tonight-{lang}")
    assert errors == []


def test_every_chart_is_reached_by_the_keyboard_and_read_as_a_sentence(nights, launch):
    demo, _, _ = nights
    page, _ = open_phone(launch, demo.url, "en")
    page.goto(demo.url.rstrip("/") + "/progress/trouble")
    figures = page.locator("figure[tabindex='0']")
    assert figures.count() == 5
    reached = set()
    for _ in range(60):
        page.keyboard.press("Tab")
        label = page.evaluate("document.activeElement.tagName === 'FIGURE' ? "
                              "document.activeElement.getAttribute('aria-labelledby') : null")
        if label:
            reached.add(label)
    assert reached == {f"{f}-sentence" for f in ("colours", "phases", "closeness", "tokens", "time")}
    for label in reached:
        assert page.locator(f"#{label}").inner_text().strip()
    assert page.locator("svg.chart[aria-hidden='true']").count() == page.locator("svg.chart").count()


def test_a_night_is_the_evening_by_the_tables_clock(nights):
    """The campaign's nights are those this test played, found by the table's own zone."""
    demo, _, _ = nights
    zone = demo.table.progress.zone
    now = demo.table.clock.wall()
    expected = sorted({(datetime.fromtimestamp(now - 60 if b == 0 else now - b * DAY, zone) - timedelta(hours=6))
                       .date().isoformat() for b, _, _ in HISTORY})
    assert [n["night"] for n in demo.table.progress.campaign()["nights"]] == expected


SHARE_SHEET = """Object.defineProperty(navigator, "canShare", { value: (data) => !!data.files });
Object.defineProperty(navigator, "share", { value: async (data) => {
  window.__shared = await Promise.all(data.files.map(async (f) => [f.name, f.type, await f.text()]));
} });"""


def test_tonights_picture_goes_to_the_share_sheet_as_an_svg_file(nights, launch):
    demo, _, _ = nights
    context = launch()
    context.add_init_script(SHARE_SHEET)
    page = context.new_page()
    page.goto(demo.url.rstrip("/") + "/progress/tonight")
    page.click("#picture-button:enabled")
    page.wait_for_function("() => window.__shared !== undefined")
    ((name, kind, text),) = page.evaluate("window.__shared")
    night = demo.table.progress.tonight()["night"]
    assert (name, kind) == (f"tonight-{night}.svg", "image/svg+xml")
    assert text.startswith("<svg") and "Tonight at the table" in text
    assert page.locator("#picture-status").inner_text() == "Shared."


KIOSK_SCREENS = {"monitor": {"width": 1280, "height": 720}, "touch-display": {"width": 800, "height": 480}}
# The progress screen's parts, whether the page scrolls, what a person could press (the skip link is the
# keyboard's, off screen), the text's smallest size.
KIOSK_GEOMETRY = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const screen = document.getElementById('kiosk-progress');
  return {
    campaign: box(screen.querySelector('.kiosk-campaign')), tonight: box(screen.querySelector('.kiosk-tonight')),
    map: box(screen.querySelector('.kiosk-campaign svg')),
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    view: [innerWidth, innerHeight],
    controls: [...document.querySelectorAll('a:not(.skip), button, input, select, textarea, [tabindex]')]
      .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden').length,
    smallest: Math.min(...[...screen.querySelectorAll('.kiosk-recap li, .kiosk-sentence, h2')]
      .map((el) => parseFloat(getComputedStyle(el).fontSize))),
  };
}"""


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("size", list(KIOSK_SCREENS))
def test_the_tables_screen_turns_to_the_groups_progress_between_shows(nights, launch, shot, monkeypatch, lang, size):
    """With no show running the table's screen shows the campaign map beside tonight, large and with nothing
    to press, the figures as this test played them; a show started from a phone brings the live show back."""
    from companion.web.kiosk import pages as kiosk

    demo, _, _ = nights
    monkeypatch.setattr(kiosk, "PROGRESS_AFTER_S", 0.2)  # the screen's wait, shortened: the test waits on the URL
    context = launch(viewport=KIOSK_SCREENS[size])
    context.add_cookies([{"name": "lang", "value": lang, "url": demo.url}])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    base = demo.url.rstrip("/")
    page.goto(base + "/kiosk/", wait_until="commit")  # the screen may turn before the live page has loaded
    page.wait_for_url(base + "/kiosk/progress")
    page.wait_for_load_state()
    seen = page.evaluate(KIOSK_GEOMETRY)
    width, height = seen["view"]
    assert seen["scroll"] == [width, height], "the progress screen scrolls"
    assert seen["campaign"][2] <= seen["tonight"][0] and abs(seen["campaign"][1] - seen["tonight"][1]) < 2
    assert seen["map"][2] - seen["map"][0] > width * 0.4  # the map fills its half, not a phone's width
    assert seen["controls"] == 0
    assert seen["smallest"] >= 0.03 * height  # as the live screen's words: read from across the table

    won = {event for _, event, ran in HISTORY if len(ran) < 3}
    best = {event: max(3 - len(ran) for _, e, ran in HISTORY if e == event and len(ran) < 3) for event in won}
    on_map = page.locator(".kiosk-campaign svg text").all_text_contents()
    assert sorted(int(t[:-1]) for t in on_map if t.endswith("★")) == sorted(best.values())
    said = page.locator("#kiosk-campaign-said").inner_text()
    assert (f"You have won {len(won)} of the 30 events, with {sum(best.values())} of 90 stars." if lang == "en"
            else f"30のイベントのうち{len(won)}に成功し、星は90のうち{sum(best.values())}です。") == said
    tonight = [ran for before, _, ran in HISTORY if before == 0]
    wins = sum(len(ran) < 3 for ran in tonight)
    stars = sum(3 - len(ran) for ran in tonight if len(ran) < 3)
    first = page.locator(".kiosk-recap li").first.inner_text()
    assert (f"{wins} won, {len(tonight) - wins} lost, {stars} ★" in first if lang == "en"
            else f"成功{wins}回、失敗{len(tonight) - wins}回、★{stars}" in first)
    assert page.locator(".kiosk-recap li").count() == 1 + len({e for b, e, _ in HISTORY if b == 0}) + 2
    shot(page, f"progress-kiosk-{size}-{lang}")

    api(demo.url, "api/show/start", {"event": "training"})
    page.wait_for_url(base + "/kiosk/")
    assert errors == []
