"""A history file larger than any request body, read in from the score pad in pieces: all of it or nothing."""

import pytest

from companion.clock import FakeClock
from companion.errors import BadInput, Conflict
from companion.records.fakes import played_show
from companion.table import demo_table
from companion.web import create_app
from companion.web.scorepad import pieces as pieces_module
from companion.web.scorepad.pieces import IDLE_S, Pieces, piece_length

PIN = {"X-Table-Pin": "1234"}
WALL = 1_746_387_000.0


def big_history(table, shows: int = 60) -> str:
    """A table's history file of `shows` shows, each of an event with a long rules text, far past one body."""
    for n in range(shows):
        played_show(table.store, f"night-{n}", "win", 2, name=f"花火 {n} 🎆", rules="🎆花火" * 600,
                    wall=WALL + n)
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
    upload = None
    for n, piece in enumerate(parts, start=1):
        answer = client.post("/api/history", json={"history": piece, "part": n, "parts": len(parts),
                                                   "upload": upload}, headers=PIN)
        if n < len(parts):
            upload = upload or answer.json["upload"]
            assert answer.status_code == 200 and answer.json == {"received": n, "parts": len(parts), "upload": upload}
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


class Ids:
    """Upload ids handed out in turn: a1, a2, ..."""

    def __init__(self):
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"a{self.n}"


def test_a_piece_out_of_turn_ends_its_own_upload_and_a_new_first_part_starts_afresh():
    pieces = Pieces(clock=FakeClock(), new_id=Ids())
    assert pieces.add("a", 1, 3, None) == ("a1", None)
    with pytest.raises(Conflict) as refused:
        pieces.add("c", 3, 3, "a1")
    assert refused.value.field == "part" and refused.value.error_code == "history.refused.part"
    with pytest.raises(Conflict):
        pieces.add("b", 2, 3, "a1")  # that upload is over: its phone starts again from the first part
    assert pieces.add("a", 1, 2, None) == ("a2", None) and pieces.add("b", 2, 2, "a2") == ("a2", "ab")
    with pytest.raises(Conflict):
        pieces.add("d", 2, 2, "a2")  # that file is done
    assert pieces.add("y", 1, 1, None) == ("a3", "y")


def test_two_phones_sending_at_once_are_never_spliced():
    # Before: pieces had no upload id, so phone B's first part restarted the file and phone A's later parts
    # were spliced onto B's: A heard "imported", and the table held B's players with A's festival.
    clock = FakeClock()
    pieces = Pieces(clock=clock, new_id=Ids())
    a, _ = pieces.add("A1", 1, 2, None)
    with pytest.raises(Conflict) as refused:
        pieces.add("B1", 1, 2, None)  # phone B while A's upload goes on
    assert refused.value.error_code == "history.refused.upload" and refused.value.field == "upload"
    with pytest.raises(Conflict):
        pieces.add("B2", 2, 2, "someone else's")
    assert pieces.add("A2", 2, 2, a) == (a, "A1A2")  # A's file, whole and alone
    b, _ = pieces.add("B1", 1, 2, None)  # once A is done, B goes ahead
    assert pieces.add("B2", 2, 2, b) == (b, "B1B2")


def test_an_upload_given_up_gives_way_after_a_minute_without_a_piece():
    clock = FakeClock()
    pieces = Pieces(clock=clock, new_id=Ids())
    a, _ = pieces.add("A1", 1, 2, None)
    clock.advance(IDLE_S)
    with pytest.raises(Conflict):
        pieces.add("B1", 1, 2, None)
    clock.advance(1)
    b, _ = pieces.add("B1", 1, 2, None)
    with pytest.raises(Conflict):
        pieces.add("A2", 2, 2, a)  # A's upload was given up
    assert pieces.add("B2", 2, 2, b) == (b, "B1B2")


def test_two_phones_interleaved_through_the_api_each_hear_the_truth(apps):
    old, fresh, client = apps
    text = big_history(old, shows=3)
    length = len(text.encode("utf-16-le")) // 4 + 1  # two pieces each
    mine = in_pieces(text, length)
    theirs = in_pieces(text.replace('"Aki"', '"Eve"'), length)
    first = client.post("/api/history", json={"history": mine[0], "part": 1, "parts": len(mine)}, headers=PIN)
    assert first.status_code == 200
    other = client.post("/api/history", json={"history": theirs[0], "part": 1, "parts": len(theirs)}, headers=PIN)
    assert other.status_code == 409 and other.json["code"] == "history.refused.upload"
    spliced = client.post("/api/history", json={"history": theirs[1], "part": 2, "parts": len(theirs)}, headers=PIN)
    assert spliced.status_code == 409 and fresh.ledger.shows() == []
    assert len(mine) == 2
    last = client.post("/api/history", json={"history": mine[1], "part": 2, "parts": len(mine),
                                             "upload": first.json["upload"]}, headers=PIN)
    assert last.status_code == 200 and last.json["imported"]["show"] == 3
    assert fresh.ledger.scorepad() == old.ledger.scorepad()


def test_a_file_past_the_limit_is_refused_and_forgotten(monkeypatch):
    monkeypatch.setattr(pieces_module, "MAX_UPLOAD_BYTES", 10)
    pieces = Pieces(clock=FakeClock(), new_id=Ids())
    assert pieces.add("花火", 1, 3, None) == ("a1", None)  # 6 bytes
    with pytest.raises(BadInput) as refused:
        pieces.add("花火", 2, 3, "a1")
    assert refused.value.error_code == "history.refused.too_large" and refused.value.params == {"mib": 0}
    with pytest.raises(Conflict):
        pieces.add("x", 3, 3, "a1")  # nothing is kept of it


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
