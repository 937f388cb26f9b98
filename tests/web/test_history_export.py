"""The whole history downloaded: sent as it is read, the same file as the command line's, never passing for
whole when the records fail part way."""

import dataclasses
import sqlite3

import pytest

from companion.records import history
from companion.records.fakes import played_show
from companion.table import demo_table
from companion.web import create_app

WALL = 1_746_387_000.0


@pytest.fixture
def table(tmp_path, clock):
    table = demo_table(tmp_path / "t.sqlite3", clock=clock)
    for n in range(30):
        played_show(table.store, f"night-{n}", "win", 2, rules="🎆花火" * 600, wall=WALL + n)
    yield table
    table.stop()


def test_the_history_is_streamed_in_pieces_and_is_the_export_byte_for_byte(table):
    answer = create_app(table, testing=True).test_client().get("/api/history")
    assert answer.status_code == 200 and answer.is_streamed and answer.content_length is None
    assert answer.headers["Content-Type"] == "application/jsonl; charset=utf-8"
    assert answer.headers["Content-Disposition"] == 'attachment; filename="companion-history.jsonl"'
    assert answer.get_data(as_text=True) == table.ledger.export_history()


def test_a_download_the_records_fail_under_ends_in_a_line_no_import_takes(table, monkeypatch):
    def failing(db):
        raise sqlite3.OperationalError("disk I/O error")
        yield  # a generator, as a kind's lines are

    kinds = tuple(dataclasses.replace(kind, lines=failing) if kind.record == "festival" else kind
                  for kind in history.KINDS)
    monkeypatch.setattr(history, "KINDS", kinds)
    answer = create_app(table, testing=True).test_client().get("/api/history", buffered=False)
    body = []
    with pytest.raises(sqlite3.OperationalError):  # the server then ends the response unfinished
        for piece in answer.response:
            body.append(piece.decode())
    assert "".join(body).endswith(history.STOPPED_LINE) and '"record": "show"' in "".join(body)


def test_every_show_as_csv_is_streamed_and_reads_as_it_did(table):
    with create_app(table, testing=True).test_request_context():
        from companion.web.download import cell, csv_download

        rows = [["show", "event", "name", "challenge", "outcome", "stars", "started", "ended", "start_player"]]
        rows += [[s["id"], cell(s["event"]), cell(s["event_name"]), "yes" if s["challenge"] else "no", s["outcome"],
                  s["stars"], s["started"], s["ended"] or "", cell(s["start_player"])]
                 for s in reversed(table.ledger.shows(limit=None))]
        whole = csv_download(rows, "shows.csv").get_data()
    answer = create_app(table, testing=True).test_client().get("/api/history.csv")
    assert answer.status_code == 200 and answer.is_streamed and answer.content_length is None
    assert answer.headers["Content-Disposition"] == 'attachment; filename="shows.csv"'
    assert answer.get_data() == whole and whole.count(b"\r\n") == 31
