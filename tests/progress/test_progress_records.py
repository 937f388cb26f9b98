"""The progress figures read from the records: each show replayed once and again only when it changed, a file of
the version before them brought forward, a scripted history counted as it was played."""

import json
import sqlite3
from datetime import timezone

import pytest

from companion.clock import FakeClock
from companion.records import figures as figure_book
from companion.records.fakes import show_with_runouts
from companion.records.schema import TABLE_FILE
from companion.records.shows import Store
from companion.table.progress import TableProgress

NIGHT = 1_767_290_400.0  # 2026-01-01 18:00 UTC


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    yield store
    store.close()


def counting(monkeypatch) -> list:
    """The shows replayed for their figures, in order (the reader's replay, watched)."""
    replayed = []
    real = figure_book.show_figures

    def watched(lines, known=None):
        replayed.append(json.loads(lines[0])["event"]["id"])
        return real(lines, known)

    monkeypatch.setattr(figure_book, "show_figures", watched)
    return replayed


def test_a_scripted_history_is_counted_as_it_was_played(store):
    played = [("event-02", ("red", "orange", "yellow")), ("event-02", ("green",)), ("event-02", ()),
              ("event-03", ("green", "red", "yellow")), ("event-04", ("green", "orange"))]
    for i, (event, ran_out) in enumerate(played):
        show_with_runouts(store, event, ran_out, wall=NIGHT + 600 * i)
    progress = TableProgress(store, FakeClock(), zone=timezone.utc)
    colours = {row["timer"]: row for row in progress.trouble()["colours"]["rows"]}
    losses = [ran for _, ran in played if len(ran) == 3]
    for colour, row in colours.items():
        assert row["losses"] == sum(colour in ran for ran in losses)
        assert row["runouts"] == sum(ran.count(colour) for _, ran in played)
    campaign = progress.campaign()
    rows = {r["event"]: r for f in campaign["festivals"] for r in f["events"]}
    assert rows["event-02"]["strip"] == ["loss", "win", "win"] and rows["event-02"]["best_stars"] == 3
    assert rows["event-04"]["best_stars"] == 1 and rows["event-03"]["best_stars"] is None
    assert (campaign["events_won"], campaign["stars"]) == (2, 4)
    assert campaign["nights"] == [{"night": "2026-01-01", "shows": 5, "wins": 3, "losses": 2, "stars": 6,
                                   "campaign": 5}]


def test_each_show_is_replayed_once_and_a_new_one_alone_after_it_ends(store, monkeypatch):
    replayed = counting(monkeypatch)
    show_with_runouts(store, "a", ("red",), wall=NIGHT)
    show_with_runouts(store, "b", (), wall=NIGHT + 60)
    progress = TableProgress(store, FakeClock(), zone=timezone.utc)
    first = progress.trouble()
    assert progress.trouble() is first and sorted(replayed) == ["a", "b"]
    assert TableProgress(store, FakeClock(), zone=timezone.utc).trouble() == first  # kept in the file
    assert sorted(replayed) == ["a", "b"]
    show_with_runouts(store, "c", ("red", "orange", "yellow"), wall=NIGHT + 120)
    assert progress.trouble()["losses"] == 1 and sorted(replayed) == ["a", "b", "c"]


def test_a_show_whose_journal_does_not_replay_counts_as_played_but_not_in_what_goes_wrong(store):
    show_with_runouts(store, "a", ("red",), wall=NIGHT)
    broken = show_with_runouts(store, "a", (), wall=NIGHT + 60)
    with store.database.transaction() as db:
        db.execute("UPDATE journal SET line = '{\"t\": 0, \"type\": \"nonsense\"}' WHERE show_id = ? AND n = 1",
                   (broken,))
    progress = TableProgress(store, FakeClock(), zone=timezone.utc)
    assert progress.trouble()["shows"] == 1
    assert progress.campaign()["nights"][0]["shows"] == 2


def test_a_file_of_the_version_before_is_brought_forward_with_its_shows(tmp_path):
    path = tmp_path / "old.sqlite3"
    store = Store(path)
    show_with_runouts(store, "a", ("green",), wall=NIGHT)
    store.close()
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE figures; PRAGMA user_version = 6;")
    db.close()
    store = Store(path)
    try:
        assert TABLE_FILE.version(store.database) == TABLE_FILE.latest == 8
        assert TableProgress(store, FakeClock(), zone=timezone.utc).trouble()["colours"]["rows"][3] == {
            "timer": "green", "losses": 0, "runouts": 1}
    finally:
        store.close()


def test_a_board_game_saved_anew_is_scored_anew(tmp_path):
    from companion.table import demo_table
    from companion.web import create_app

    table = demo_table(tmp_path / "t.sqlite3", clock=FakeClock())
    try:
        client = create_app(table, testing=True).test_client()
        pin = {"X-Table-Pin": table.door.pin}
        game = client.post("/api/geese/games", json={"players": ["ann", "ben", "cho"]}, headers=pin).json["id"]
        assert table.progress.players("geese")["games"] == 0
        goose = {"n": 1, "suit": "goose"}
        client.post(f"/api/geese/games/{game}/setup", json={"card": goose}, headers=pin)
        kept = table.store.database.read("SELECT mark FROM figures WHERE kind = 'geese'")
        table.progress.players("geese")
        assert table.store.database.read("SELECT mark FROM figures WHERE kind = 'geese'")[0][0] != kept[0][0]
    finally:
        table.stop()


def test_a_first_reading_of_many_journals_answers_within_its_budget_and_the_rest_are_counted_after(store,
                                                                                                   monkeypatch):
    """After an upgrade no figure is kept: a page replays journals for a page's budget only and says how many are
    counted; the table counts the rest on its own, each show once, and the figures end as a whole reading's."""
    played = [("red",), (), ("red", "orange", "yellow"), ("green",), (), ("green", "yellow", "red"), ("orange",),
              ("yellow",), ("orange", "green", "red"), ()]
    for i, ran_out in enumerate(played):
        show_with_runouts(store, "event-02", ran_out, wall=NIGHT + 600 * i)
    clock = FakeClock()
    replayed = counting(monkeypatch)
    real = figure_book.show_figures

    def slow(lines, known=None):  # each journal takes two fifths of a page's budget to replay
        clock.advance(figure_book.REPLAY_BUDGET_S * 0.4)
        return real(lines, known)

    monkeypatch.setattr(figure_book, "show_figures", slow)
    progress = TableProgress(store, clock, zone=timezone.utc)
    first = progress.trouble()
    assert first["counting"] == {"counted": 3, "shows": len(played)}
    assert first["shows"] == 3
    drawn = progress.campaign()
    assert drawn["nights"][0]["shows"] == len(played)  # the shows not counted yet are played
    assert progress.campaign() is drawn  # the campaign needs no journal: it is not drawn anew as the counting moves
    assert len(replayed) == 9  # each page read counts a few more
    progress.fill()
    whole = progress.trouble()
    assert whole["counting"] is None and whole["shows"] == len(played)
    assert len(replayed) == len(played)  # none twice
    monkeypatch.setattr(figure_book, "show_figures", real)
    assert TableProgress(store, FakeClock(), zone=timezone.utc).trouble() == whole


def test_the_table_counts_the_shows_figures_on_its_own_once_started(tmp_path):
    from companion.table import demo_table

    table = demo_table(tmp_path / "t.sqlite3", clock=FakeClock())
    show_with_runouts(table.store, "event-02", ("red",), wall=NIGHT)
    table.start()
    try:
        assert table.progress.filled(timeout=30)  # the thread's own end, not a wait for time to pass
        kept = table.store.database.read("SELECT COUNT(*) FROM figures WHERE kind = 'show'")[0][0]
        assert kept == 1
    finally:
        table.stop()


def test_a_first_reading_of_many_games_scores_them_within_its_budget_the_newest_first(tmp_path, monkeypatch):
    from companion.table import demo_table
    from companion.web import create_app

    table = demo_table(tmp_path / "t.sqlite3", clock=FakeClock())
    try:
        client = create_app(table, testing=True).test_client()
        made = [client.post("/api/geese/games", json={"players": ["ann", "ben", "cho"]},
                            headers={"X-Table-Pin": table.door.pin}).json["id"] for _ in range(5)]
        with table.store.database.transaction() as db:
            db.execute("DELETE FROM figures")  # as the file was before the upgrade
        clock = FakeClock()
        scored = []
        real = figure_book.game_summary

        def slow(kind, state):  # each game takes three fifths of a page's budget to score
            clock.advance(figure_book.REPLAY_BUDGET_S * 0.6)
            scored.append(kind)
            return real(kind, state)

        monkeypatch.setattr(figure_book, "game_summary", slow)
        progress = TableProgress(table.store, clock, zone=timezone.utc)
        assert progress.players("geese")["scoring"] == {"scored": 2, "games": 5}
        assert [g["id"] for g in progress.book.read({}).games] == made[1:]  # the next reading: the newest two more
        progress.fill()
        assert progress.players("geese")["scoring"] is None
        assert [g["id"] for g in progress.book.read({}).games] == made and len(scored) == 5
    finally:
        table.stop()
