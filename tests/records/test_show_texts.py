"""Each finished show's history line is kept as text when it ends, and an export sends that text: the same bytes
as the line built afresh from the show's row and journal, on a new file and on a file brought forward."""

import sqlite3

from companion.records import Store
from companion.records.history import export_history
from companion.records.shows import JournalLine
from companion.skyrockets import parse_event, setup_line
from companion.skyrockets.show import Setup

EVENT = parse_event({"id": "ひな祭り", "name": "Hina ✿", "hand_size": 4, "countdown": "purple",
                     "countdown_start": 4, "running": ["red"], "lying": ["purple"], "rules": ""}, "event")


def played(path) -> Store:
    store = Store(path)
    show = store.begin_show(EVENT, False, setup_line(Setup(event=EVENT)), 1_700_000_000.0, 1.0)
    store.write([JournalLine(show, {"t": 0.5 * i, "type": "pose", "timer": "red", "pose": "b_up" if i % 2 else "a_up"})
                 for i in range(1, 6)])
    store.finish_show(show, {"t": 3.0, "type": "end"}, "aborted", 0, 1_700_000_003.0)
    return store


def kept(store) -> int:
    return store.database.read("SELECT count(*) FROM show_texts")[0][0]


def test_an_export_sends_the_kept_text_which_is_the_line_built_afresh(tmp_path):
    store = played(tmp_path / "table.sqlite3")
    assert kept(store) == 1
    sent = export_history(store.database, wall=0)
    with store.database.transaction() as db:
        db.execute("DELETE FROM show_texts")  # the line is then built from the row and the journal
    assert export_history(store.database, wall=0) == sent
    assert '"event_name": "Hina ✿"' in sent and '"journal": [{"t": 0' in sent
    store.close()


def test_a_file_of_before_the_texts_keeps_them_for_the_shows_it_holds(tmp_path):
    path = tmp_path / "table.sqlite3"
    store = played(path)
    sent = export_history(store.database, wall=0)
    store.close()
    with sqlite3.connect(path) as db:  # as the previous version left it: no texts kept
        db.execute("DROP TABLE show_texts")
        db.execute("PRAGMA user_version = 6")
    again = Store(path)
    assert kept(again) == 1 and export_history(again.database, wall=0) == sent
    again.close()


def test_a_show_whose_stored_journal_is_damaged_still_ends_without_a_kept_text(tmp_path):
    store = Store(tmp_path / "table.sqlite3")
    show = store.begin_show(EVENT, False, setup_line(Setup(event=EVENT)), 1_700_000_000.0, 1.0)
    with store.database.transaction() as db:  # a cell another program damaged: not JSON
        db.execute("INSERT INTO journal (show_id, n, line) VALUES (?, 2, ?)", (show, "{not json"))
    store.finish_show(show, {"t": 3.0, "type": "end"}, "aborted", 0, 1_700_000_003.0)
    assert store.database.read("SELECT outcome FROM shows")[0][0] == "aborted" and kept(store) == 0
    store.close()
