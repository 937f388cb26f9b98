"""A history file larger than any request body, read in from the score pad in pieces: all of it or nothing."""

import pytest

from companion.errors import BadInput, Conflict
from companion.skyrockets.events import parse_event
from companion.table import demo_table
from companion.web import create_app
from companion.web.scorepad import pieces as pieces_module
from companion.web.scorepad.pieces import Pieces, piece_length

PIN = {"X-Table-Pin": "1234"}
WALL = 1_746_387_000.0


def big_history(table, shows: int = 60) -> str:
    """A table's history file of `shows` shows, each of an event with a long rules text, far past one body."""
    for n in range(shows):
        event = parse_event({"id": f"night-{n}", "name": f"花火 {n} 🎆", "hand_size": 4, "countdown": "orange",
                             "running": ["red", "orange"], "lying": ["green"], "rules": "🎆花火" * 600}, "event")
        table.store.save_event(event, WALL)
        show = table.store.begin_show(event, False, {"t": 0, "type": "setup"}, WALL + n, 1.0)
        table.store.finish_show(show, {"t": 120, "type": "end"}, "win", 2, WALL + n + 300)
    return table.ledger.export_history()


def in_pieces(text: str, length: int) -> list[str]:
    """The text cut as the page cuts it: never between the halves of a character outside the BMP."""
    units = text.encode("utf-16-le")
    found, start = [], 0
    while start < len(units) // 2 or not found:
        end = min(start + length, len(units) // 2)
        if end < len(units) // 2 and 0xD800 <= int.from_bytes(units[2 * end - 2:2 * end], "little") <= 0xDBFF:
            end -= 1
        found.append(units[2 * start:2 * end].decode("utf-16-le"))
        start = end
    return found


@pytest.fixture
def apps(tmp_path, clock):
    old = demo_table(tmp_path / "old.sqlite3", clock=clock)
    fresh = demo_table(tmp_path / "fresh.sqlite3", clock=clock)
    yield old, fresh, create_app(fresh, testing=True).test_client()
    old.stop()
    fresh.stop()


def test_a_history_past_one_body_goes_in_piece_by_piece_and_whole(apps):
    old, fresh, client = apps
    text = big_history(old)
    limit = client.application.config["MAX_CONTENT_LENGTH"]
    assert len(text.encode()) > 5 * limit
    whole = client.post("/api/history", json={"history": text}, headers=PIN)
    assert whole.status_code == 413  # one body cannot carry it
    parts = in_pieces(text, piece_length(limit))
    for n, piece in enumerate(parts, start=1):
        answer = client.post("/api/history", json={"history": piece, "part": n, "parts": len(parts)}, headers=PIN)
        if n < len(parts):
            assert answer.status_code == 200 and answer.json == {"received": n, "parts": len(parts)}
            assert fresh.ledger.scorepad() != old.ledger.scorepad()  # nothing is read in before the last piece
    assert answer.status_code == 200 and answer.json["imported"]["show"] == 60
    assert fresh.ledger.scorepad() == old.ledger.scorepad()
    assert fresh.store.events() == old.store.events()  # every character came through, astral ones too


def test_pieces_cut_where_a_pair_would_split_still_make_the_file(apps):
    # The cut in the test above must meet a character outside the BMP, or it proves nothing about one.
    old, _, client = apps
    text = big_history(old)
    length = piece_length(client.application.config["MAX_CONTENT_LENGTH"])
    units = text.encode("utf-16-le")
    cuts = range(length, len(units) // 2, length)
    assert any(0xD800 <= int.from_bytes(units[2 * cut - 2:2 * cut], "little") <= 0xDBFF for cut in cuts)
    assert "".join(in_pieces(text, length)) == text


def test_a_piece_out_of_turn_is_refused_and_the_file_being_sent_is_kept():
    pieces = Pieces()
    assert pieces.add("a", 1, 3) is None
    with pytest.raises(Conflict) as refused:
        pieces.add("c", 3, 3)
    assert refused.value.field == "part" and refused.value.error_code == "history.refused.part"
    with pytest.raises(Conflict):
        pieces.add("b", 2, 4)  # not the file being sent
    assert pieces.add("b", 2, 3) is None
    assert pieces.add("c", 3, 3) == "abc"
    with pytest.raises(Conflict):
        pieces.add("d", 2, 3)  # that file is done: a new one starts at its first part
    assert pieces.add("x", 1, 2) is None and pieces.add("y", 1, 1) == "y"  # a first part starts afresh


def test_a_file_past_the_limit_is_refused_and_forgotten(monkeypatch):
    monkeypatch.setattr(pieces_module, "MAX_UPLOAD_BYTES", 10)
    pieces = Pieces()
    assert pieces.add("花火", 1, 3) is None  # 6 bytes
    with pytest.raises(BadInput) as refused:
        pieces.add("花火", 2, 3)
    assert refused.value.error_code == "history.refused.too_large" and refused.value.params == {"mib": 0}
    with pytest.raises(Conflict):
        pieces.add("x", 3, 3)  # nothing is kept of it


@pytest.mark.parametrize("body, field", [
    ({"history": "x", "part": 0, "parts": 2}, "part"), ({"history": "x", "part": 3, "parts": 2}, "part"),
    ({"history": "x", "part": 1}, "parts"), ({"history": "x", "part": True, "parts": 2}, "part"),
    ({"history": "x", "part": 1, "parts": 10**9}, "parts"), ({"history": "x", "part": 1.5, "parts": 2}, "part"),
    ({"history": 5, "part": 1, "parts": 2}, "history")])
def test_a_bad_part_number_is_named(apps, body, field):
    _, fresh, client = apps
    answer = client.post("/api/history", json=body, headers=PIN)
    assert answer.status_code == 400 and answer.json["field"] == field
    assert fresh.ledger.shows() == []


def test_pieces_need_the_pin(apps):
    _, _, client = apps
    assert client.post("/api/history", json={"history": "x", "part": 1, "parts": 2}).status_code == 403
