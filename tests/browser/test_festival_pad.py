"""The festival pad, results that travel, and the history carried to a fresh table, in Chromium at a phone's size.

Shows are recorded as the table records them (a setup line, an end line, the
outcome); the pages are then read and used as a player would. The BG Stats
link is checked field by field against the format BG Stats documents for
other apps (https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/).
"""

import json
import re
from datetime import datetime

from companion.clock import FakeClock
from companion.records.fakes import played_show
from companion.skyrockets.festivals import event_id
from companion.table import demo_table
from companion.web.scorepad.pieces import MAX_UPLOAD_BYTES, piece_length
from companion.web.server import ServerThread, make_server

from .conftest import unlock
from .layout import assert_inside
from .plays import ANDROID, finished_geese_game, link_play

WALL = 1_746_387_000.0  # 2025-05-04 19:30:00 UTC
PIN = {"X-Table-Pin": "1234"}
PLAY_FIELDS = {"sourceName", "sourcePlayId", "board", "comments", "durationMin", "game", "location", "playDate",
               "players"}
GAME_FIELDS = {"name", "sourceGameId", "highestWins", "noPoints", "cooperative"}  # bggId only when known
PLAYER_FIELDS = {"name", "sourcePlayerId", "score", "rank", "role", "winner", "startPlayer"}
SOURCE = "Hourglass table companion"


def record_show(table, n: int, outcome: str, stars: int = 0, rules: str = "") -> int:
    """A finished show of event card n, with a made-up setup the owner entered once, its journal replaying to it."""
    return played_show(table.store, event_id(n), outcome, stars, name=f"Night {n}", rules=rules, wall=WALL,
                       ended=WALL + 6 * 60)


def festival_one(table) -> None:
    """The three events of festival 1 (events 2-4), with a loss and a poorer win after a better one."""
    table.store.set_players(["Aki", "Ben", "Chiyo"])
    record_show(table, 2, "win", 2)
    record_show(table, 3, "loss")
    record_show(table, 3, "win", 3)
    record_show(table, 3, "win", 1)  # stars are kept at their best: event 3 stays at 3
    record_show(table, 4, "win", 1)


def check_play(play: dict) -> None:
    """A play as BG Stats documents it: the fields, their types, the date format; a game without points sends
    no score."""
    assert set(play) == PLAY_FIELDS or set(play) == PLAY_FIELDS - {"durationMin"}
    assert play["sourceName"] == SOURCE and play["sourcePlayId"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"])
    assert set(play["game"]) == GAME_FIELDS
    assert isinstance(play["game"]["highestWins"], bool) and isinstance(play["game"]["noPoints"], bool)
    for player in play["players"]:
        assert set(player) == (PLAYER_FIELDS - {"score", "rank"} if play["game"]["noPoints"] else PLAYER_FIELDS)
        if not play["game"]["noPoints"]:
            assert isinstance(player["score"], (int, float)) and isinstance(player["rank"], int)
        assert isinstance(player["winner"], bool) and isinstance(player["startPlayer"], bool)
        assert isinstance(player["sourcePlayerId"], str) and player["sourcePlayerId"]


def local(wall: float) -> str:
    """An instant as BG Stats reads a play's date: the table's local time (the server runs in this process)."""
    return datetime.fromtimestamp(wall).strftime("%Y-%m-%d %H:%M:%S")


def test_the_festival_pad_after_three_events_of_one_festival(browser, demo, expect, shot):
    festival_one(demo.table)
    page = browser.page
    page.goto(f"{browser.url}scorepad")
    first = page.locator('details.festival[data-festival="1"]')
    expect(first).to_have_attribute("data-won", "3")
    expect(first.locator("summary")).to_have_text(re.compile(r"^Festival 1\s*:\s*3 of 3 won · 6 of 9 ★\s*$"))
    expect(first.locator(".festival-progress")).to_have_text("3 of 3 won · 6 of 9 ★")
    second = first.locator('li[data-event="event-03"]')
    expect(second).to_have_attribute("data-best", "3")
    expect(second).to_have_attribute("data-attempts", "3")
    expect(second.locator(".attempts")).to_have_text("3 attempts")
    expect(first.locator('li[data-event="event-04"] .attempts')).to_have_text("1 attempt")
    expect(first.locator('li[data-event="event-02"]')).to_have_attribute("data-best", "2")
    # The rules start with the training event, event 1: not won yet, it is the next to play.
    expect(page.locator("#next-event")).to_have_attribute("data-event", "training")
    expect(page.locator("#next-event")).to_contain_text("Next event: Event 1 · Training — Play it on the table page")
    expect(page.locator('details.festival[data-festival="encore"] .locked')).to_have_text("opens after the Grand Finale")
    # The start player passed on after each of the five shows: Aki, Ben, Chiyo, Aki, Ben -> Chiyo.
    expect(page.locator("#festival-start-player")).to_have_text("Chiyo starts the next show.")
    # Event 5's setup is not entered yet: its link opens the table page's event form with its id filled in.
    unlock(page, browser.url, "/scorepad")
    page.locator('details.festival[data-festival="2"] summary').click()
    page.locator('li[data-event="event-05"] a').click()
    expect(page.locator("#ev-id")).to_have_value("event-05")
    page.goto(f"{browser.url}scorepad")
    expect(page.locator("#festival-form")).to_have_attribute("data-ready", "")
    page.fill("#festival-name", "Our reds")
    page.fill("#festival-events", "event-02, training")
    page.click("#festival-form button[type=submit]")
    custom = page.locator("details.festival").filter(has_text="Our reds")
    expect(custom.locator(".festival-progress")).to_have_text("1 of 2 won · 2 of 6 ★")
    page.context.clear_cookies()
    page.context.add_cookies([{"name": "lang", "value": "ja", "url": browser.url}])
    page.goto(f"{browser.url}scorepad")
    expect(first.locator(".festival-progress")).to_have_text("成功 3/3・★6/9")
    expect(page.locator("#next-event")).to_contain_text("イベント1 · トレーニング")
    shot(page, "festival-pad")


def test_a_finished_show_shares_its_text_and_its_bgstats_play(demo, expect, launch):
    festival_one(demo.table)
    phone = launch(user_agent=ANDROID)
    try:
        page = phone.pages[0] if phone.pages else phone.new_page()
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=demo.url.rstrip("/"))
        page.goto(f"{demo.url}shows/3")
        text = "Skyrockets: Event 3 · Night 3\nWon with 3 of 3 stars\n🎆 ⭐⭐⭐\n#Skyrockets"
        expect(page.locator("#share-button")).to_be_enabled()  # its script is ready
        assert page.locator("#share-text").inner_text() == text
        page.evaluate("delete Navigator.prototype.share")  # a phone without a share sheet: the text is copied
        page.click("#share-button")
        expect(page.locator("#share-status")).to_have_text("Copied: paste it anywhere.")
        assert page.evaluate("navigator.clipboard.readText()") == text
        play = link_play(page.locator("#bgstats-link").get_attribute("href"))
        check_play(play)
        # A co-operative show without points, one play however often it is pushed, in the table's own time;
        # its stars travel in the comments.
        assert play == {
            "sourceName": SOURCE, "sourcePlayId": f"{demo.table.ledger.table_id()}-skyrockets-show-3", "board": "Event 3 · Night 3",
            "comments": text, "location": "Hourglass table", "playDate": local(WALL), "durationMin": 6,
            "game": {"name": "Skyrockets", "sourceGameId": "skyrockets", "highestWins": True, "noPoints": True,
                     "cooperative": True},
            "players": [{"name": "Aki", "sourcePlayerId": "aki", "role": "", "winner": True, "startPlayer": False},
                        {"name": "Ben", "sourcePlayerId": "ben", "role": "", "winner": True, "startPlayer": False},
                        {"name": "Chiyo", "sourcePlayerId": "chiyo", "role": "", "winner": True,
                         "startPlayer": True}]}  # Chiyo started
        page.reload()
        assert link_play(page.locator("#bgstats-link").get_attribute("href")) == play  # the same play again
        page.goto(f"{demo.url}shows/2")
        expect(page.locator("#share-text")).to_contain_text("The crowd went home: lost\n💨 ☆☆☆")
        lost = link_play(page.locator("#bgstats-link").get_attribute("href"))
        assert {p["winner"] for p in lost["players"]} == {False} and lost["sourcePlayId"] == f"{demo.table.ledger.table_id()}-skyrockets-show-2"
    finally:
        phone.close()


def test_the_bgstats_link_is_offered_only_on_the_phones_it_runs_on(browser, demo, expect):
    festival_one(demo.table)
    browser.page.goto(f"{browser.url}shows/3")
    expect(browser.page.locator("#share-button")).to_be_enabled()
    expect(browser.page.locator("#bgstats-link")).to_have_count(0)  # a desktop browser: no BG Stats app


def test_a_finished_bird_game_shares_its_scores_and_its_bgstats_play(demo, expect, launch):
    gid = finished_geese_game(demo.app.test_client())
    phone = launch(user_agent=ANDROID)
    try:
        page = phone.pages[0] if phone.pages else phone.new_page()
        page.goto(f"{demo.url}geese/games/{gid}/score")
        expect(page.locator("#sheet-state")).to_have_attribute("data-final", "yes")
        ranking = [(li.get_attribute("data-player"), int(li.locator(".total").inner_text()))
                   for li in page.locator("#ranking li").all()]
        text = page.locator("#share-text").inner_text()
        lines = text.splitlines()
        assert lines[0] == "帰る雁 (Kaeru Kari): final scores"
        assert lines[1:5] == [f"{medal} {name} {points}" for medal, (name, points) in zip(["🥇", "🥈", "🥉", "🐦"], ranking)]
        assert lines[5] == "🪶" * 4
        play = link_play(page.locator("#bgstats-link").get_attribute("href"))
        check_play(play)
        assert play["game"] == {"name": "帰る雁 (Kaeru Kari)", "sourceGameId": "kaeru-kari", "highestWins": True,
                                "noPoints": False, "cooperative": False}
        assert [(p["name"], p["score"], p["rank"], p["winner"]) for p in play["players"]] == [
            (name, points, place, place == 1) for place, (name, points) in enumerate(ranking, start=1)]
        assert [p["name"] for p in play["players"] if p["startPlayer"]] == ["ann"]
        assert play["sourcePlayId"] == f"{demo.table.ledger.table_id()}-kaeru-kari-game-{gid}" and play["game"]["cooperative"] is False
        assert play["comments"] == text
    finally:
        phone.close()


def test_export_then_import_into_a_fresh_table_gives_the_same_score_pad(browser, launch, demo, expect, tmp_path):
    festival_one(demo.table)
    page = browser.page
    page.goto(f"{browser.url}scorepad")
    with page.expect_download() as download:
        page.click("#history-download")
    saved = tmp_path / "history.jsonl"
    download.value.save_as(saved)
    events = page.locator("#events-title + table")
    expect(events).not_to_contain_text("UTC")  # its script has put the dates in the phone's own time
    old_pad = page.locator("#festivals details").all_inner_texts()
    old_events = events.inner_text()

    fresh = demo_table(tmp_path / "fresh.sqlite3", clock=FakeClock(), pin="1234").start()
    server = ServerThread(make_server(fresh, "127.0.0.1", 0))
    context = launch()  # a phone on the new table
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(f"{server.url}pin?next=/scorepad")
        page.fill("#pin", "1234")
        page.click(".pin-form button[type=submit]")
        expect(page.locator('details.festival[data-festival="1"]')).to_have_attribute("data-won", "0")
        expect(page.locator("#history-form")).to_have_attribute("data-ready", "")
        page.set_input_files("#history-file", str(saved))
        page.click("#history-form button[type=submit]")
        expect(page.locator('details.festival[data-festival="1"]')).to_have_attribute("data-won", "3")  # reloaded
        # The confirmation outlives the reload that shows the imported pad, and is in view.
        expect(page.locator("#history-status")).to_have_text("5 shows imported.")
        expect(page.locator("#history-status")).to_be_in_viewport()
        expect(page.locator("#events-title + table")).not_to_contain_text("UTC")
        assert page.locator("#events-title + table").inner_text() == old_events
        assert page.locator("#festivals details").all_inner_texts() == old_pad
        # A second import into the same (no longer fresh) table is refused, naming why; nothing changes.
        expect(page.locator("#history-form")).to_have_attribute("data-ready", "")
        page.set_input_files("#history-file", str(saved))
        page.click("#history-form button[type=submit]")
        expect(page.locator("#history-error")).to_have_text("This table already has records: import into a fresh table.")
        assert fresh.ledger.scorepad() == demo.table.ledger.scorepad()
    finally:
        context.close()
        server.close()
        fresh.stop()


def test_a_history_larger_than_a_request_goes_in_from_the_page_whole(launch, demo, expect, tmp_path):
    for n in range(2, 31):  # every card past the training event, each with a long rules text outside the BMP, kanji
        record_show(demo.table, n, "win", 2, rules="🎆🎆花" * 600)
    text = demo.table.ledger.export_history()
    saved = tmp_path / "history.jsonl"
    saved.write_text(text, "utf-8")
    length, units = piece_length(demo.app.config["MAX_CONTENT_LENGTH"]), text.encode("utf-16-le")
    assert len(units) // 2 > 10 * length  # far past one body
    assert any(0xD800 <= int.from_bytes(units[2 * cut - 2:2 * cut], "little") <= 0xDBFF  # a cut meets a pair
               for cut in range(length, len(units) // 2, length))

    fresh = demo_table(tmp_path / "fresh.sqlite3", clock=FakeClock(), pin="1234").start()
    server = ServerThread(make_server(fresh, "127.0.0.1", 0))
    context = launch()
    try:
        page = context.pages[0] if context.pages else context.new_page()
        unlock(page, server.url, "/scorepad")
        expect(page.locator("#history-form")).to_have_attribute("data-ready", "")
        sent = []
        page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/api/history") else None)
        too_big = tmp_path / "too-big.jsonl"
        too_big.write_bytes(b"x" * (MAX_UPLOAD_BYTES + 1))
        page.set_input_files("#history-file", str(too_big))
        page.click("#history-form button[type=submit]")
        expect(page.locator("#history-error")).to_contain_text("larger than 16 MiB")
        assert sent == []  # refused on the phone, before a byte of it went to the table
        page.set_input_files("#history-file", str(saved))
        page.click("#history-form button[type=submit]")
        expect(page.locator('details.festival[data-festival="encore"]')).to_have_attribute("data-won", "2",
                                                                                       timeout=30_000)
        assert sent
        assert fresh.ledger.scorepad() == demo.table.ledger.scorepad()
        assert fresh.store.events() == demo.table.store.events()
    finally:
        context.close()
        server.close()
        fresh.stop()


def test_the_kiosk_shows_the_next_event_its_festival_and_who_starts(browser, demo, expect):
    festival_one(demo.table)
    browser.page.goto(f"{browser.url}kiosk/")
    expect(browser.page.locator("#kiosk-festival")).to_have_text(
        "Next: Event 1 · Training (Training, 0/1 won). Chiyo starts the next show.")


def test_a_finished_flock_game_shares_its_scores_and_its_bgstats_play(demo, expect, launch):
    client = demo.app.test_client()
    flock = client.post("/api/flock/games", json={"mode": "sheet", "players": ["crane", "kite"], "seed": 2},
                        headers=PIN).json
    rows = [[None] * 5, [None, {"owner": "kite", "sex": "M"}, None, None, None],
            [{"owner": "crane", "sex": "F"}, {"owner": "kite", "sex": "F"}, {"owner": "kite", "sex": "M"},
             None, {"owner": "neutral"}]]
    stage = {"board": rows, "nest": {"points": [3, 7, 11], "pair": 3},
             "movement_cards": {"kite": [{"spaces": [{"row": 2, "col": 1, "points": 4}, {"row": 0, "col": 0, "points": 1}]}]}}
    for _ in range(3):
        answer = client.post(f"/api/flock/games/{flock['id']}/stages", json={"stage": stage}, headers=PIN)
        assert answer.status_code == 200, answer.json
    totals = answer.json["view"]["totals"]
    phone = launch(user_agent=ANDROID)
    try:
        page = phone.pages[0] if phone.pages else phone.new_page()
        page.goto(f"{demo.url}flock/games/{flock['id']}")
        expect(page.locator("#share-button")).to_be_enabled()
        assert page.locator("#share-text").inner_text().splitlines() == [
            "Über den Wolken: final scores", f"🥇 kite {totals['kite']}", f"🥈 crane {totals['crane']}", "🪶🪶"]
        play = link_play(page.locator("#bgstats-link").get_attribute("href"))
        check_play(play)
        assert play["game"]["name"] == "Über den Wolken" and play["game"]["sourceGameId"] == "ueber-den-wolken"
        assert [(p["name"], p["score"], p["rank"], p["winner"]) for p in play["players"]] == [
            ("kite", totals["kite"], 1, True), ("crane", totals["crane"], 2, False)]
    finally:
        phone.close()


def test_a_custom_festival_is_deleted_from_the_pad_and_only_with_the_pin(browser, demo, expect):
    demo.table.ledger.save_festival({"name": "Keep me", "events": ["training"]})
    demo.table.ledger.save_festival({"name": "Our reds", "events": ["event-02", "training"]})
    page = browser.page
    page.goto(f"{browser.url}scorepad")
    expect(page.locator("details.festival").filter(has_text="Our reds")).to_have_count(1)
    expect(page.locator("form.festival-delete")).to_have_count(0)  # a locked page offers no delete
    unlock(page, browser.url, "/scorepad")
    doomed = page.locator("details.festival").filter(has_text="Our reds").locator("form.festival-delete")
    expect(doomed).to_have_attribute("data-ready", "")
    expect(doomed.locator("button")).to_have_text("Delete this festival")
    doomed.locator("button").click()
    expect(page.locator("details.festival").filter(has_text="Our reds")).to_have_count(0)
    expect(page.locator("details.festival").filter(has_text="Keep me")).to_have_count(1)
    assert [c["name"] for c in demo.table.ledger.festival_pad()["festivals"] if c["custom"]] == ["Keep me"]


def test_the_score_pad_holds_the_boxs_30_events_and_fits_a_phone_in_both_languages(browser, demo, expect, shot):
    """Event 1 the training event, nine festivals of three (the ninth the Grand Finale), the encore 29 and 30:
    30 events, never more. Names and counts stand apart, and nothing is wider than the phone, in en and ja."""
    festival_one(demo.table)
    record_show(demo.table, 29, "win", 1)
    played_show(demo.table.store, event_id(30), "loss", name="Feuerwerksfestivalabschlussnachtgroßveranstaltung",
                wall=WALL)  # a long name, in the encore and in the events table
    page = browser.page
    page.goto(f"{browser.url}scorepad")
    events = page.locator("details.festival .festival-events li")
    expect(events).to_have_count(30)
    numbers = [int(n) for n in re.findall(r"Event (\d+)", " ".join(events.all_text_contents()))]
    assert numbers == list(range(1, 31))
    assert page.locator("details.festival").evaluate_all("els => els.map(e => e.dataset.festival)") == [
        "training", *map(str, range(1, 10)), "encore"]
    expect(page.locator('details.festival[data-festival="9"] .festival-name')).to_have_text("Festival 9: Grand Finale")
    expect(page.locator('details.festival[data-festival="encore"] li[data-event="event-29"]')).to_have_attribute(
        "data-attempts", "1")
    for lang in ("en", "ja"):
        page.goto(f"{browser.url}lang/{lang}?next=/scorepad")
        page.evaluate("() => document.querySelectorAll('details.festival').forEach(d => d.open = true)")
        # A festival's name and its counts stand apart: the counts never read as part of its number.
        for summary in page.locator("details.festival summary").all():
            name, counts = summary.locator(".festival-name"), summary.locator(".festival-progress")
            assert counts.bounding_box()["x"] >= name.bounding_box()["x"] + name.bounding_box()["width"] + 4 or \
                counts.bounding_box()["y"] >= name.bounding_box()["y"] + name.bounding_box()["height"] - 1
        encore = page.locator('details.festival[data-festival="encore"] .festival-name')
        assert encore.evaluate("e => e.getClientRects().length") == 1  # one line: 「アンコール」 never breaks
        assert_inside(page, f"the score pad in {lang}")
        table = page.locator(".pad-events")
        assert table.evaluate("t => t.getBoundingClientRect().right <= "
                              "t.closest('.panel').getBoundingClientRect().right")
    shot(page, "scorepad-ja")


def test_a_long_event_name_wraps_in_the_share_text_and_the_show_page_fits_a_phone(browser, demo, expect, shot):
    long = "Feuerwerksfestivalabschlussnachtgroßveranstaltungssternenhimmel am Hafen, Sommer"  # 80 characters
    demo.table.store.set_players(["Aki"])
    show = played_show(demo.table.store, event_id(7), "win", 2, name=long, wall=WALL, ended=WALL + 60)
    page = browser.page
    for lang in ("en", "ja"):
        page.goto(f"{browser.url}lang/{lang}?next=/shows/{show}")
        text = page.locator("#share-text")
        expect(text).to_contain_text(long)  # nothing is cut
        assert text.evaluate("p => p.scrollWidth <= p.clientWidth")
        assert_inside(page, f"/shows/{show} with a long event name in {lang}")
    shot(page, "show-long-name-ja")
