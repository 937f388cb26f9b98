"""Festivals on the score pad, and the whole history carried to a fresh table: progress, best stars, imports."""

import json

import pytest

from companion.errors import BadInput, Conflict
from companion.records import GameShelf, Store
from companion.records.fakes import played_show
from companion.table.games import KINDS
from companion.records.schema import TABLE_FILE
from companion.records.history import export_history, import_history
from companion.skyrockets.events import parse_event
from companion.skyrockets.festivals import (campaign, current_festival, custom_festival, event_id, event_number,
                                            next_event, progress)

WALL = 1_746_387_000.0  # 2025-05-04 19:30 UTC


def numbered(n: int, name: str = ""):
    """An event card's setup as its owner entered it (made-up values: the cards' own setups are not shipped)."""
    return parse_event({"id": event_id(n), "name": name or f"Night {n}", "hand_size": 4, "countdown": "orange",
                        "running": ["red", "orange"], "lying": ["green"]}, "event")


def play(store: Store, n: int, outcome: str, stars: int = 0, wall: float = WALL) -> int:
    """A finished show of event n, recorded as the table records one (its journal replays to its result)."""
    return played_show(store, event_id(n), outcome, stars, name=f"Night {n}", wall=wall)


# ---- the pure rules of the campaign ------------------------------------------------

def test_the_campaign_is_the_training_event_nine_festivals_of_three_and_the_encore_pair():
    festivals = campaign()
    assert festivals[0].training and festivals[0].events == ("training",)
    assert [f.events for f in festivals[1:3]] == [("event-02", "event-03", "event-04"),
                                                  ("event-05", "event-06", "event-07")]
    assert len(festivals) == 11 and festivals[9].key == "9" and festivals[9].events == ("event-26", "event-27",
                                                                                       "event-28")
    assert festivals[-1].encore and festivals[-1].events == ("event-29", "event-30")
    events = [event for festival in festivals for event in festival.events]
    assert len(events) == len(set(events)) == 30  # the box's 30 event cards, never more
    assert [event_number(e) for e in events] == list(range(1, 31))
    assert event_number("event-31") is None and event_number("event-01") is None and event_number("event-1") is None
    shown = progress(festivals, {})
    assert [f["key"] for f in shown if f["grand_finale"]] == ["9"] and shown[0]["training"]


def test_the_next_event_is_the_first_not_yet_won_and_a_loss_does_not_move_on():
    assert next_event(progress(campaign(), {})) == "training"  # the rules start with the training event
    pad = {"training": {"best_stars": 1, "attempts": 1},
           "event-02": {"best_stars": 3, "attempts": 1}, "event-03": {"best_stars": None, "attempts": 2}}
    shown = progress(campaign(), pad)
    assert next_event(shown) == "event-03"
    assert shown[1]["won"] == 1 and shown[1]["stars"] == 3 and not shown[1]["complete"]
    assert current_festival(shown)["key"] == "1"


def test_the_encore_opens_only_after_the_grand_finale_is_complete():
    won = {event_id(n): {"best_stars": 1, "attempts": 1} for n in range(1, 28)}
    shown = progress(campaign(), won)
    assert not shown[-1]["open"] and next_event(shown) == "event-28"
    won["event-28"] = {"best_stars": 2, "attempts": 4}
    shown = progress(campaign(), won)
    assert shown[-1]["open"] and next_event(shown) == "event-29"
    won.update({"event-29": {"best_stars": 3, "attempts": 1}, "event-30": {"best_stars": 3, "attempts": 2}})
    assert next_event(progress(campaign(), won)) is None


def test_a_custom_festival_names_the_field_that_is_wrong():
    assert custom_festival({"name": "Reds", "events": ["training", "event-07"]}, {"training"}).events == \
        ("training", "event-07")
    with pytest.raises(BadInput, match=r"festival.events\[1\]: 'nope' is not an event"):
        custom_festival({"name": "Reds", "events": ["training", "nope"]}, {"training"})
    with pytest.raises(BadInput, match=r"festival.events\[1\]: 'training' is listed twice"):
        custom_festival({"name": "Reds", "events": ["training", "training"]}, {"training"})
    with pytest.raises(BadInput, match="festival.name"):
        custom_festival({"name": " ", "events": ["training"]}, {"training"})


# ---- the records: schema version, best stars, attempts -----------------------------

def test_a_table_file_is_migrated_to_the_current_schema_version(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    with store.database.transaction() as db:
        db.execute("DROP TABLE festivals")  # as a table written before festivals left it
        db.execute("PRAGMA user_version = 1")
    store.close()
    store = Store(tmp_path / "t.sqlite3")
    assert TABLE_FILE.version(store.database) == TABLE_FILE.latest
    assert store.database.read("SELECT COUNT(*) FROM festivals")[0][0] == 0


def test_a_table_that_counted_32_events_keeps_its_encore_as_events_29_and_30(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    play_id = played_show(store, "event-31", "win", 2, name="Encore A")
    played_show(store, "event-32", "loss", name="Encore B")
    played_show(store, "event-30", "win", 3, name="Night 30")  # the old grand finale's last: still event 30
    played_show(store, "event-32", "win", 1, name="Encore B")
    with store.database.transaction() as db:
        db.execute("INSERT INTO festivals (name, events, saved) VALUES ('Encores', '[\"event-31\", \"training\"]',"
                   " '2025-05-04T19:30:00Z')")
        db.execute("PRAGMA user_version = 4")  # as the table wrote it before
    store.close()
    store = Store(tmp_path / "t.sqlite3")
    assert TABLE_FILE.version(store.database) == TABLE_FILE.latest
    pad = {row["event"]: row for row in store.scorepad()["events"]}
    assert "event-31" not in pad and (pad["event-29"]["best_stars"], pad["event-29"]["attempts"]) == (2, 1)
    assert "event-32" in pad  # event 30 was played already: the old event 32 stays an ordinary saved event
    assert (pad["event-30"]["best_stars"], pad["event-30"]["name"]) == (3, "Night 30")
    assert store.events()["event-29"].name == "Encore A" and "event-31" not in store.events()
    assert '"id": "event-29"' in store.show_log(play_id)[0]
    from companion.records.festivals import festivals
    assert festivals(store.database)[0]["events"] == ["event-29", "training"]
    shown = progress(campaign(), {e: r for e, r in pad.items()})
    assert [r["best_stars"] for r in shown[-1]["events"]] == [2, 3]
    # and the file it exports reads into a fresh table as it is
    text = export_history(store.database, wall=WALL)
    new = Store(tmp_path / "new.sqlite3")
    import_history(new.database, text, GameShelf(new.database, KINDS))
    assert new.scorepad() == store.scorepad()


def test_a_history_file_of_32_events_reads_its_encore_as_events_29_and_30(tmp_path):
    old = Store(tmp_path / "old.sqlite3")
    played_show(old, "event-31", "win", 3, name="Encore A")
    text = export_history(old.database, wall=WALL)
    assert '"event": "event-31"' in text
    new = Store(tmp_path / "new.sqlite3")
    import_history(new.database, text, GameShelf(new.database, KINDS))
    assert [row["event"] for row in new.scorepad()["events"] if row["attempts"]] == ["event-29"]
    assert new.shows()[0]["event"] == "event-29" and '"id": "event-29"' in new.show_log(1)[0]
    again = Store(tmp_path / "again.sqlite3")  # exported again, the file reads the same
    import_history(again.database, export_history(new.database, wall=WALL), GameShelf(again.database, KINDS))
    assert again.scorepad() == new.scorepad()


def test_stars_are_kept_at_their_best_and_every_attempt_counts(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    play(store, 2, "loss")
    play(store, 2, "win", 3)
    play(store, 2, "win", 1)
    row = next(r for r in store.scorepad()["events"] if r["event"] == "event-02")
    assert (row["best_stars"], row["attempts"]) == (3, 3)


# ---- the history file ----------------------------------------------------------------

def test_export_then_import_into_a_fresh_table_gives_the_same_score_pad(tmp_path):
    old = Store(tmp_path / "old.sqlite3")
    old.set_players(["Aki", "Ben", "Chiyo"])
    play(old, 2, "win", 2)
    play(old, 3, "loss")
    play(old, 3, "win", 3)
    text = export_history(old.database, wall=WALL)
    new = Store(tmp_path / "new.sqlite3")
    counts = import_history(new.database, text, GameShelf(new.database, KINDS))
    assert counts["show"] == 3 and counts["event"] == 2 and counts["players"] == 1
    assert new.scorepad() == old.scorepad()
    assert new.shows() == old.shows()
    assert new.show_log(3) == old.show_log(3)


def bad_history(tmp_path, change) -> tuple[Store, str]:
    old = Store(tmp_path / "old.sqlite3")
    play(old, 2, "win", 2)
    play(old, 3, "win", 1)
    lines = export_history(old.database, wall=WALL).split("\n")[:-1]
    change(lines)
    return Store(tmp_path / "new.sqlite3"), "\n".join(lines) + "\n"


def test_an_import_names_the_line_and_field_and_writes_nothing(tmp_path):
    def bad_stars(lines):
        show = json.loads(lines[4])
        assert show["record"] == "show" and show["id"] == 2
        lines[4] = json.dumps({**show, "stars": 7})

    new, text = bad_history(tmp_path, bad_stars)
    with pytest.raises(BadInput, match=r"^line 5\.stars: 7 is out of range \(0-3\)$"):
        import_history(new.database, text, GameShelf(new.database, KINDS))
    assert new.shows() == [] and new.events() == {k: v for k, v in new.events().items() if v.builtin}


def test_an_import_refuses_a_file_that_is_not_a_history_and_a_table_that_is_not_fresh(tmp_path):
    new, text = bad_history(tmp_path, lambda lines: None)
    with pytest.raises(BadInput, match=r"^line 1\.format"):
        import_history(new.database, '{"format": "something else", "version": 1}\n', GameShelf(new.database, KINDS))
    with pytest.raises(BadInput, match=r"^line 2: "):
        import_history(new.database, text.splitlines()[0] + "\n{not json\n", GameShelf(new.database, KINDS))
    import_history(new.database, text, GameShelf(new.database, KINDS))
    with pytest.raises(Conflict, match="already has records"):
        import_history(new.database, text, GameShelf(new.database, KINDS))


def test_the_command_moves_a_history_to_a_fresh_table_and_names_a_bad_line(tmp_path, cli):
    old = Store(tmp_path / "old.sqlite3")
    old.set_players(["Aki", "Ben"])
    play(old, 2, "win", 2)
    play(old, 3, "loss")
    old.close()
    saved = tmp_path / "history.jsonl"
    done = cli("history", "export", "--db", str(tmp_path / "old.sqlite3"), str(saved))
    assert done.returncode == 0, done.stderr
    done = cli("history", "import", "--db", str(tmp_path / "new.sqlite3"), str(saved))
    assert done.returncode == 0 and done.stdout.strip() == "2 events, 2 shows, 1 players imported"
    assert Store(tmp_path / "new.sqlite3").scorepad() == Store(tmp_path / "old.sqlite3").scorepad()
    saved.write_text(saved.read_text().replace('"outcome": "loss"', '"outcome": "draw"'))
    done = cli("history", "import", "--db", str(tmp_path / "other.sqlite3"), str(saved))
    assert done.returncode == 2
    assert done.stderr.strip() == (f"companion history import: {saved}: line 5.outcome: expected one of win, loss, aborted,"
                                   " got 'draw'")
    assert not (tmp_path / "other.sqlite3").exists()  # a refused import leaves no new empty file behind


def test_an_export_that_fails_part_way_leaves_the_last_whole_file_as_it_was(tmp_path, monkeypatch):
    """The command writes as it reads; a failure part way leaves no half file where the whole one goes."""
    import argparse
    import sqlite3

    import companion.records.history as history
    from companion.cli.common import Refusal
    from companion.cli.history import cmd_export

    old = Store(tmp_path / "old.sqlite3")
    play(old, 2, "win", 2)
    old.close()

    def failing(database, *, wall):
        yield '{"format": "companion-history"}\n'
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(history, "history_pieces", failing)
    target = tmp_path / "history.jsonl"
    target.write_text("the last whole export\n")
    args = argparse.Namespace(file=str(target), db=str(tmp_path / "old.sqlite3"), config=None)
    with pytest.raises(Refusal, match="not a database the table can use"):
        cmd_export(args)
    assert target.read_text() == "the last whole export\n"
    # No half export left beside it (the lock beside the database is every open database's: records/holding.py).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.jsonl", "old.sqlite3", "old.sqlite3-lock"]


def test_the_export_command_writes_each_piece_before_it_reads_the_next(tmp_path, monkeypatch):
    """10 000 shows are never held whole by `companion history export`."""
    import argparse
    import io
    import sys

    import companion.records.history as history
    from companion.cli.history import cmd_export

    Store(tmp_path / "old.sqlite3").close()
    out, written_before_second = io.StringIO(), []

    def pieces(database, *, wall):
        yield "first\n"
        written_before_second.append(out.getvalue())
        yield "second\n"

    monkeypatch.setattr(history, "history_pieces", pieces)
    monkeypatch.setattr(sys, "stdout", out)
    assert cmd_export(argparse.Namespace(file="-", db=str(tmp_path / "old.sqlite3"), config=None)) == 0
    assert written_before_second == ["first\n"] and out.getvalue() == "first\nsecond\n"


def test_the_shows_csv_holds_every_show_not_only_the_newest_hundred(table):
    from companion.web import create_app

    for n in range(105):
        played_show(table.store, "night", "win" if n % 2 else "loss", 2, wall=WALL + n)
    rows = create_app(table, testing=True).test_client().get("/api/history.csv").get_data(as_text=True)
    lines = rows.strip().splitlines()
    assert len(lines) == 1 + 105
    assert lines[1].startswith("1,") and lines[-1].startswith("105,")  # oldest first, every one
