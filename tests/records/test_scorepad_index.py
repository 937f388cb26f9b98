"""The score pad is read from per-event figures kept by triggers: always what grouping every show gives."""

import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.records import Store
from companion.skyrockets import BUILTIN_EVENTS

GROUPED = ("SELECT event_id, MAX(event_name) AS name, MAX(CASE WHEN outcome = 'win' THEN stars END) AS best_stars,"
           " SUM(outcome IN ('win', 'loss')) AS attempts, SUM(outcome = 'win') AS wins, MAX(started) AS last_played"
           " FROM shows GROUP BY event_id")
EVENTS = ["training", "nightfall", "gone", "x"]


def grouped(store: Store) -> dict:
    return {r["event_id"]: dict(r) for r in store.database.read(GROUPED)}


def kept(store: Store) -> dict:
    return {r["event_id"]: dict(r) for r in store.database.read(
        "SELECT event_id, name, best_stars, attempts, wins, last_played FROM pad")}


changes = st.lists(st.one_of(
    st.tuples(st.just("insert"), st.sampled_from(EVENTS), st.sampled_from(["running", "win", "loss", "aborted"]),
              st.integers(0, 3), st.sampled_from(["2025-01-01T10:00:00Z", "2025-03-01T10:00:00Z"])),
    st.tuples(st.just("finish"), st.integers(1, 12), st.sampled_from(["win", "loss", "aborted"]), st.integers(0, 3)),
    st.tuples(st.just("rename"), st.integers(1, 12), st.sampled_from(EVENTS)),
    st.tuples(st.just("delete"), st.integers(1, 12))), max_size=25)


@settings(max_examples=80, deadline=None)
@given(changes)
def test_the_kept_figures_are_always_the_grouped_ones(steps):
    store = Store(":memory:")
    with store.database.transaction() as db:  # as this program or any other writes the shows
        for step in steps:
            if step[0] == "insert":
                _, event, outcome, stars, started = step
                db.execute("INSERT INTO shows (event_id, event_name, challenge, started, started_wall, speed, outcome,"
                           " stars) VALUES (?, ?, 0, ?, 0, 1, ?, ?)", (event, event.title(), started, outcome, stars))
            elif step[0] == "finish":
                db.execute("UPDATE shows SET outcome = ?, stars = ? WHERE id = ?", step[2:] + step[1:2])
            elif step[0] == "rename":
                db.execute("UPDATE shows SET event_id = ? WHERE id = ?", (step[2], step[1]))
            else:
                db.execute("DELETE FROM shows WHERE id = ?", (step[1],))
    assert kept(store) == grouped(store)
    pad = {row["event"]: row for row in store.scorepad()["events"]}
    for event_id, row in grouped(store).items():
        assert (pad[event_id]["attempts"], pad[event_id]["wins"]) == (row["attempts"], row["wins"])


def test_a_database_from_before_the_pad_is_counted_once_when_opened(tmp_path):
    path = tmp_path / "old.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    for trigger in ("pad_on_insert", "pad_on_update", "pad_on_delete"):
        db.execute(f"DROP TRIGGER {trigger}")  # as a table of an earlier version wrote it
    db.execute("INSERT INTO meta (key, value) VALUES ('schema', '2')")  # its version as such a file kept it
    db.execute("PRAGMA user_version = 0")
    db.executemany("INSERT INTO shows (event_id, event_name, challenge, started, started_wall, speed, outcome, stars)"
                   " VALUES ('training', 'Training', 0, ?, 0, 1, ?, ?)",
                   [("2025-01-01T10:00:00Z", "win", 2), ("2025-01-02T10:00:00Z", "loss", 0)])
    db.commit()
    db.close()
    store = Store(path)
    training = next(row for row in store.scorepad()["events"] if row["event"] == "training")
    assert (training["best_stars"], training["attempts"], training["wins"]) == (2, 2, 1)
    assert kept(store) == grouped(store)
    assert set(BUILTIN_EVENTS) <= {row["event"] for row in store.scorepad()["events"]}
