"""The history file read back through the readers the API uses: nothing the API refuses gets in, and a table's
own export always comes back whole, whatever text it holds."""

import dataclasses
import json
import sqlite3
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from companion.errors import BadInput
from companion.players import check_players
from companion.flock.birds import SPECIES
from companion.flock.kind import FLOCK
from companion.geese.kind import GEESE
from companion.records import GameShelf, Store
from companion.records import festivals as festival_records
from companion.records.fakes import WALL, played_show
from companion.records.history import MAX_LINE_CHARS, STOPPED_LINE, export_history, history_pieces, import_history
from companion.records.shows import MAX_JOURNAL_LINES, SHOWS
from companion.skyrockets.events import parse_event
from companion.skyrockets.log import replay
from companion.table.games import KINDS

NEST = {"points": [3, 7, 11, 14, 16], "pair": 3}


def exported(change=None) -> str:
    """A table's history (two events, a won and a lost show, players, a festival, a game and a card)."""
    store = Store(":memory:")
    store.set_players(["Aki", "Ben"])
    played_show(store, "night", "win", 3)
    played_show(store, "day", "loss")
    festival_records.save_festival(store.database, "Both", ["night", "day"], WALL, 50)
    shelf = GameShelf(store.database, KINDS)
    shelf.create("flock", FLOCK.new("moves", list(SPECIES[:2]), 1))
    shelf.save_card("flock", "nest/Gull", NEST)
    text = export_history(store.database, wall=WALL)
    if change is None:
        return text
    lines = [json.loads(line) for line in text.split("\n")[:-1]]
    change(lines)
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def imported(text: str) -> Store:
    store = Store(":memory:")
    import_history(store.database, text, GameShelf(store.database, KINDS))
    return store


def refused(text: str) -> BadInput:
    store = Store(":memory:")
    with pytest.raises(BadInput) as caught:
        import_history(store.database, text, GameShelf(store.database, KINDS))
    assert store.shows() == [] and store.scorepad()["players"] == []  # nothing of it was written
    assert festival_records.festivals(store.database) == []
    return caught.value


def record(lines: list[dict], kind: str, n: int = 0) -> dict:
    return [line for line in lines if line.get("record") == kind][n]


def test_a_table_exports_what_it_imports_line_for_line():
    text = exported()
    assert export_history(imported(text).database, wall=WALL) == text


@pytest.mark.parametrize("names, field", [
    (["ann\u202e" + "x" * 78] * 12, "names"),  # twelve players, each 79 characters with a right-to-left override
    (["ann\u202e"], "names[0]"),
    (["x" * 79], "names[0]"),
    ([f"p{n}" for n in range(12)], "names"),
    (["Ann", "Ann"], "names[1]"),
])
def test_players_the_api_refuses_are_refused(names, field):
    def change(lines):
        record(lines, "players")["names"] = names

    assert str(refused(exported(change))).startswith(f"line 6.{field}:")


def test_a_game_state_over_the_apis_limit_is_refused():
    def change(lines):
        record(lines, "game")["state"] = {"notes": "x" * 2**20}

    assert refused(exported(change)).field.startswith("line 8.state")


@pytest.mark.parametrize("journal, field", [
    ([{}], "line 4.journal[0].type"),
    ([{"t": 0, "type": "setup", "event": "training"}, {"t": 1e308, "type": "end"}], "line 4.journal[1].t"),
    ([], "line 4.journal"),
])
def test_a_journal_that_does_not_replay_is_refused(journal, field):
    def change(lines):
        record(lines, "show")["journal"] = journal

    assert refused(exported(change)).field == field


def test_a_win_whose_journal_says_loss_is_refused():
    def change(lines):
        lost = record(lines, "show", 1)
        lost["outcome"], lost["stars"] = "win", 3

    problem = refused(exported(change))
    assert problem.field == "line 5.outcome" and "replays to loss with 0 stars" in problem.problem


def test_a_journal_past_its_limit_is_refused_and_a_huge_line_is_refused_unread():
    def longer(lines):
        show = record(lines, "show")
        show["journal"] = show["journal"][:-1] + [{"t": 70, "type": "pose", "timer": "red", "pose": "side"}] \
            * (MAX_JOURNAL_LINES - len(show["journal"]) + 2)

    assert refused(exported(longer)).field == "line 4.journal"
    text = exported()
    lines = text.split("\n")
    lines[3] = lines[3][:-1] + ', "pad": "' + " " * MAX_LINE_CHARS + '"}'
    assert refused("\n".join(lines)).field == "line 4"


def test_every_line_break_but_newline_is_text_and_comes_back():
    store = Store(":memory:")
    store.set_players(["Aki"])
    played_show(store, "night", "win", 2, name="first\u2028second\u2029third", rules="a\u2028b\nc")
    GameShelf(store.database, KINDS).create("flock", FLOCK.new("moves", list(SPECIES[:2]), 1))
    text = export_history(store.database, wall=WALL)
    again = imported(text)
    assert export_history(again.database, wall=WALL) == text
    assert again.events()["night"].name == "first\u2028second\u2029third"
    assert again.shows()[0]["event_name"] == "first\u2028second\u2029third"


def test_the_line_breaks_a_file_may_hold_are_the_ones_docs_formats_and_security_name():
    """docs/formats.md and docs/security.md say the same, and so does the reader: U+2028 and U+2029 are text an
    event's name may hold but a person's name may not; an event's rules run over lines with \n alone; a lone CR
    is a control character in every field."""
    def with_event(**change):
        return exported(lambda lines: next(line for line in lines if line.get("record") == "event")["event"]
                        .update(change))

    def with_players(names):
        return exported(lambda lines: next(line for line in lines if line.get("record") == "players")
                        .update(names=names))

    assert imported(with_event(name="first\u2028second")).events()["day"].name == "first\u2028second"
    assert imported(with_event(rules="one\ntwo")).events()["day"].rules == "one\ntwo"
    assert refused(with_event(rules="one\rtwo")).error_code == "errors.control"
    assert refused(with_event(name="one\rtwo")).error_code == "errors.control"
    assert refused(with_players(["Aki\u2028Ben"])).error_code == "errors.name.characters"
    assert refused(with_players(["Aki\rBen"])).error_code == "errors.name.characters"


def test_a_show_gives_its_stars_always_zero_unless_it_was_won():
    """docs/formats.md: `stars` is in every show, 0 for one not won, as the table's own export writes it."""
    lines = [json.loads(line) for line in exported().split("\n")[:-1]]
    assert next(line for line in lines if line.get("outcome") == "loss")["stars"] == 0

    def without_stars(lines):
        next(line for line in lines if line.get("outcome") == "loss").pop("stars")

    assert refused(exported(without_stars)).field.endswith(".stars")


def test_the_board_games_decide_their_own_states_and_cards():
    class Strict(GameShelf):
        def check(self, kind, state):
            raise BadInput("state.stage", "not a stage of the game", code="errors.range")

    store = Store(":memory:")
    with pytest.raises(BadInput, match=r"^line 8\.state\.stage: not a stage"):
        import_history(store.database, exported(), Strict(store.database, KINDS))
    assert store.shows() == []


# Text of every kind, line breaks of every kind among it: what a free-text field may hold.
TEXT = st.text(st.characters(blacklist_categories=("Cs",)) | st.sampled_from("\u2028\u2029\r\n\x85\u202e"),
               min_size=1, max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(player=TEXT, event_name=TEXT, rules=TEXT, festival=TEXT, note=TEXT, card=TEXT)
def test_export_import_export_is_the_same_file_whatever_the_text(player, event_name, rules, festival, note, card):
    store = Store(":memory:")
    kept = {}
    try:  # each value goes in by its own door, as a person would enter it; what a door refuses is left out
        store.set_players(check_players([player]))
    except BadInput:
        pass
    try:
        event = parse_event({"id": "night", "name": event_name, "countdown": "red", "running": ["red"],
                             "rules": rules}, "event")
        kept["name"], kept["rules"] = event.name, event.rules
    except BadInput:
        kept["name"], kept["rules"] = "Night", ""
    played_show(store, "night", "win", 3, **kept)
    try:
        festival_records.save_festival(store.database, *_festival(festival, store), WALL, 50)
    except BadInput:
        pass
    shelf = GameShelf(store.database, KINDS)
    for players in ([note, "Ben", "Cho"], ["Aki", "Ben", "Cho"]):  # a note the name rule refuses is no name
        try:
            shelf.create("geese", GEESE.new(players))
            break
        except BadInput:
            continue
    try:
        shelf.save_card("flock", f"nest/{card}", NEST)
    except BadInput:
        pass  # a card name the name rule refuses is kept by no door
    text = export_history(store.database, wall=WALL)
    assert export_history(imported(text).database, wall=WALL) == text
    assert replay(imported(text).show_log(1), notices=False).stars == 3


def _festival(name: str, store: Store) -> tuple[str, list[str]]:
    from companion.skyrockets.festivals import custom_festival

    festival = custom_festival({"name": name, "events": ["night"]}, store.events())
    return festival.name, list(festival.events)


def test_more_festivals_than_a_table_keeps_are_refused_as_the_api_refuses_the_next():
    from companion.skyrockets.festivals import MAX_FESTIVALS

    def more(lines):
        festival = record(lines, "festival")
        at = lines.index(festival)
        lines[at:at + 1] = [{**festival, "id": n} for n in range(1, MAX_FESTIVALS + 2)]

    problem = refused(exported(more))
    assert problem.field == f"line {7 + MAX_FESTIVALS}.festival" and problem.error_code == "errors.festival.full"


def test_a_journal_of_another_event_is_refused():
    def swapped(lines):
        night, day = record(lines, "show"), record(lines, "show", 1)
        night["journal"], night["outcome"], night["stars"] = day["journal"], "loss", 0

    assert refused(exported(swapped)).field == "line 4.journal[0].event"


def failing_part_way(store) -> tuple[str, Exception]:
    """The text an export hands on before the records fail under it (after the first show), and the failure."""
    from companion.records import history

    def shows_then_failure(db):
        lines = SHOWS.lines(db)
        yield next(lines)
        raise sqlite3.OperationalError("disk I/O error")

    kinds = tuple(dataclasses.replace(kind, lines=shows_then_failure) if kind is SHOWS else kind
                  for kind in history.KINDS)
    pieces = []
    with patch.object(history, "KINDS", kinds), pytest.raises(sqlite3.OperationalError) as caught:
        for piece in history.history_pieces(store.database, wall=WALL):
            pieces.append(piece)
    return "".join(pieces), caught.value


def test_an_export_that_fails_part_way_ends_in_a_line_no_import_takes():
    store = Store(":memory:")
    for n in range(3):
        played_show(store, f"night-{n}", "win", 2, wall=WALL + n)
    text, _ = failing_part_way(store)
    assert text.endswith(STOPPED_LINE) and text.count('"record": "show"') == 1
    problem = refused(text)
    assert problem.field == f"line {text.count(chr(10))}" and problem.error_code == "errors.shape"


ONE_EXPORT = exported()  # one file for every example below (a game's saving time is the clock's)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, len(ONE_EXPORT) - 1).filter(lambda n: "\n" not in ONE_EXPORT[n - 1:n + 1]))
def test_an_export_cut_inside_a_line_is_refused(cut):
    # No end line: a file cut at a line's end reads as a smaller history, so the exporter never leaves one
    # (above); a file cut inside a line is refused by the reader.
    refused(ONE_EXPORT[:cut])


def test_an_export_comes_in_pieces_of_whole_lines_the_header_first():
    store = Store(":memory:")
    for n in range(40):
        played_show(store, f"night-{n}", "win", 2, rules="r" * 2000, wall=WALL + n)
    pieces = list(history_pieces(store.database, wall=WALL))
    assert pieces[0].count("\n") == 1 and json.loads(pieces[0])["format"] == "companion-history"
    assert len(pieces) > 2 and all(piece.endswith("\n") for piece in pieces)
    assert "".join(pieces) == export_history(store.database, wall=WALL)
