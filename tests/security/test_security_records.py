"""Show logs and the table's own database: extreme values and bad rows get one line, never a traceback."""

import json
import socket
import sqlite3

import pytest

from companion.records import Store, DamagedRow
from companion.table import demo_table

SETUP = '{"t": 0, "type": "setup", "event": "training"}'
HUGE = "9" * 400


def one_line_refusal(done, code: int = 2) -> str:
    assert done.returncode == code, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize("lines,field", [
    ([SETUP, f'{{"t": {HUGE}, "type": "end"}}'], ":2:"),
    ([f'{{"t": 0, "type": "setup", "event": "training", "durations": {{"red": {HUGE}}}}}'], ":1:"),
    ([SETUP, '{"t": NaN, "type": "end"}'], ":2:"),
    ([SETUP, '{"t": 1e999, "type": "end"}'], ":2:"),
    (['{"t": 0, "type": "setup", "event": {"id": "\\ud800", "running": ["red"], "countdown": "red"}}'], ":1:"),
    (['{"t": 0, "type": "setup", "event": {"id": "a", "name": "\\u0001", "running": ["red"], "countdown": "red"}}'],
     "event.name"),
])
def test_replay_refuses_extreme_values_with_one_line(cli, lines, field):
    line = one_line_refusal(cli("replay", "-", stdin="\n".join(lines) + "\n"))
    assert field in line


def test_a_name_with_a_paragraph_separator_replays(cli, tmp_path):
    event = {"id": "sep", "name": "Line\u2028Para\u2029Next", "running": ["red", "orange"], "countdown": "orange"}
    text = json.dumps({"t": 0, "type": "setup", "event": event}, ensure_ascii=False) + '\n{"t": 5, "type": "end"}\n'
    assert "\u2028" in text
    done = cli("replay", "-", stdin=text)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "running"


def test_stdin_that_is_not_utf8_is_one_line(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "companion", "replay", "-"], input=b"\xff\xfe\n",
                          capture_output=True, timeout=60)
    assert done.returncode == 2 and b"Traceback" not in done.stderr and b"UTF-8" in done.stderr


# ---- the table's own database -------------------------------------------------------

def running_show(tmp_path, clock):
    """A database with one finished show and one left running, as a power cut leaves it."""
    db = tmp_path / "table.sqlite3"
    table = demo_table(db, clock=clock)
    table.start()
    table.desk.start_show("training")
    table.desk.abort()
    table.desk.start_show("training")
    show_id = table.desk.show_id
    table.runtime.stop()  # as if the power went: the show stays 'running'
    table.store.close()
    return db, show_id


def edit(db, sql: str, params=()) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute(sql, params)


def rows(db, sql: str) -> list:
    with sqlite3.connect(db) as connection:
        return connection.execute(sql).fetchall()


@pytest.mark.parametrize("column,value,field", [
    ("orientation", "{", "orientation"),
    ("orientation", '{"red": "x"}', "orientation.red"),
    ("orientation", '{"pink": true}', "orientation.pink"),
    ("speed", "fast", "speed"),
    ("started_wall", 1e300, "started_wall"),
    ("started_wall", "x", "started_wall"),
])
def test_a_bad_show_row_is_one_line_and_the_show_is_set_aside(tmp_path, clock, column, value, field):
    db, show_id = running_show(tmp_path, clock)
    edit(db, f"UPDATE shows SET {column} = ? WHERE id = ?", (value, show_id))
    journal = rows(db, "SELECT * FROM journal ORDER BY show_id, n")
    with pytest.raises(DamagedRow) as refused:
        demo_table(db, clock=clock)
    message = str(refused.value)
    assert f"shows row {show_id}: {field}" in message and "\n" not in message
    assert rows(db, f"SELECT outcome FROM shows WHERE id = {show_id}") == [("aborted",)]
    assert rows(db, "SELECT * FROM journal ORDER BY show_id, n") == journal  # nothing else lost
    table = demo_table(db, clock=clock)  # the next start goes on without it
    assert table.desk.current()["outcome"] == "idle" and len(table.ledger.shows()) == 2
    table.stop()


@pytest.mark.parametrize("value", ["x", "-1", "9" * 40, "1.5", "١٢"])
def test_a_bad_boot_count_is_one_line(tmp_path, value):
    store = Store(tmp_path / "t.sqlite3")
    store.next_boot()
    edit(tmp_path / "t.sqlite3", "UPDATE meta SET value = ? WHERE key = 'boots'", (value,))
    with pytest.raises(DamagedRow, match=r"^meta row 'boots': value: "):
        store.next_boot()


def test_a_huge_t_in_the_journal_aborts_that_show_only(tmp_path, clock):
    db, show_id = running_show(tmp_path, clock)
    edit(db, "INSERT INTO journal (show_id, n, line) VALUES (?, 99, ?)", (show_id, f'{{"t": {HUGE}, "type": "end"}}'))
    table = demo_table(db, clock=clock)
    assert table.desk.current()["outcome"] == "idle"
    assert [s["outcome"] for s in table.ledger.shows()] == ["aborted", "aborted"]
    table.stop()


def test_a_bad_saved_event_is_set_aside_and_the_rest_load(tmp_path, clock):
    store = Store(tmp_path / "t.sqlite3")
    for event_id, data in (("broken", "{"), ("huge", f'{{"id": "huge", "hand_size": {HUGE}}}'),
                           ("good", '{"id": "good", "running": ["red"], "countdown": "red"}')):
        edit(tmp_path / "t.sqlite3", "INSERT INTO events (id, data, saved) VALUES (?, ?, '')", (event_id, data))
    assert sorted(store.events()) == ["good", "training"]
    assert [row["event"] for row in store.scorepad()["events"]] == ["training", "good"]


def test_a_bad_rotation_starts_the_rotation_again(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    store.set_players(["Ann", "Bo"])
    edit(tmp_path / "t.sqlite3", "UPDATE meta SET value = 'x' WHERE key = 'rotation'")
    assert store.scorepad()["start_player"] == "Ann"


def test_the_command_answers_a_bad_row_with_one_line_and_exit_1(cli, tmp_path, clock):
    db, show_id = running_show(tmp_path, clock)
    edit(db, "UPDATE shows SET orientation = '{' WHERE id = ?", (show_id,))
    with socket.socket() as taken:  # were the row let through, the table would stop here instead
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        line = one_line_refusal(cli("demo", "--db", str(db), "--port", port, "--host", "127.0.0.1"), code=1)
    assert f"shows row {show_id}: orientation" in line
