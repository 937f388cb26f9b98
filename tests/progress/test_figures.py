"""The progress figures against the same figures counted here another way: plain loops over the history, the night
found by whole days since the epoch in a fixed offset (not by the datetime arithmetic the product uses)."""

import datetime
from collections import Counter
from datetime import timedelta, timezone
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from companion.progress.campaign import STRIP_LENGTH, campaign_map
from companion.progress.nights import NIGHT_STARTS_HOUR, night_of
from companion.progress.players import per_player
from companion.progress.tonight import tonight
from companion.progress.trouble import trouble
from companion.skyrockets.festivals import event_id

RUNNING_OUT = ("red", "orange", "yellow", "green", "blue", "purple")
EPOCH = datetime.date(1970, 1, 1)


def night_here(wall: float, offset_h: int) -> str:
    """The night by whole days: shift to local time, back by the night's start, count days since 1970-01-01."""
    days = int((wall + offset_h * 3600 - NIGHT_STARTS_HOUR * 3600) // 86400)
    return (EPOCH + timedelta(days=days)).isoformat()


runout = st.builds(lambda timer, t, space: {"timer": timer, "t": t, "space": space},
                   st.sampled_from(RUNNING_OUT), st.floats(0, 600, allow_nan=False), st.integers(1, 4))


@st.composite
def a_show(draw):
    outcome = draw(st.sampled_from(["win", "loss", "aborted"]))
    turned = draw(st.integers(0, 2)) if outcome == "win" else draw(st.integers(0, 3))
    wall = draw(st.floats(1.6e9, 1.8e9, allow_nan=False))
    figures = None if draw(st.integers(0, 9)) == 0 else {
        "runouts": draw(st.lists(runout, min_size=turned, max_size=turned)), "tokens": turned,
        "spaces_left": 0 if outcome == "win" else draw(st.integers(1, 4)), "start_space": 4,
        "show_s": draw(st.floats(1, 1500, allow_nan=False))}
    return {"event": event_id(draw(st.integers(1, 30))) if draw(st.booleans()) else "custom", "event_name": "E",
            "outcome": outcome, "stars": 3 - turned if outcome == "win" else 0, "wall": wall,
            "started": datetime.datetime.fromtimestamp(wall, timezone.utc).isoformat(), "figures": figures}


shows = st.lists(a_show(), max_size=40)
offsets = st.integers(-11, 13)


@settings(max_examples=60, deadline=None)
@given(shows, offsets)
def test_every_events_best_stars_attempts_wins_and_strip_are_the_historys(history, offset_h):
    shown = campaign_map(history, timezone(timedelta(hours=offset_h)))
    rows = {row["event"]: row for festival in shown["festivals"] for row in festival["events"]}
    assert len(rows) == 30
    for event, row in rows.items():
        mine = [s for s in history if s["event"] == event]
        tried = [s["outcome"] for s in mine if s["outcome"] in ("win", "loss")]
        won = [s["stars"] for s in mine if s["outcome"] == "win"]
        assert row["attempts"] == len(tried) and row["wins"] == len(won)
        assert row["best_stars"] == (max(won) if won else None)
        assert row["strip"] == tried[-STRIP_LENGTH:] and row["earlier"] == max(0, len(tried) - STRIP_LENGTH)
        assert row["last_played"] == (max(s["started"] for s in mine) if mine else None)
    assert shown["events_won"] == sum(1 for row in rows.values() if row["wins"])
    assert shown["stars"] == sum(row["best_stars"] or 0 for row in rows.values())


@settings(max_examples=60, deadline=None)
@given(shows, offsets)
def test_each_nights_wins_losses_and_stars_are_those_of_its_shows(history, offset_h):
    found = {n["night"]: n for n in campaign_map(history, timezone(timedelta(hours=offset_h)))["nights"]}
    played = [s for s in history if s["outcome"] in ("win", "loss")]
    assert set(found) == {night_here(s["wall"], offset_h) for s in played}
    for night, row in found.items():
        mine = [s for s in played if night_here(s["wall"], offset_h) == night]
        assert row["wins"] == sum(s["outcome"] == "win" for s in mine)
        assert row["losses"] == sum(s["outcome"] == "loss" for s in mine)
        assert row["stars"] == sum(s["stars"] for s in mine if s["outcome"] == "win")
    assert list(found) == sorted(found)


def test_a_night_runs_from_six_to_six_local_time():
    tokyo = timezone(timedelta(hours=9))
    evening = datetime.datetime(2026, 12, 5, 20, 0, tzinfo=tokyo).timestamp()
    assert night_of(evening, tokyo) == "2026-12-05"
    assert night_of(evening + 9 * 3600 + 59 * 60, tokyo) == "2026-12-05"  # 05:59 the next morning
    assert night_of(evening + 10 * 3600, tokyo) == "2026-12-06"  # 06:00: a new night


@settings(max_examples=60, deadline=None)
@given(shows)
def test_what_goes_wrong_is_counted_from_the_shows_figures(history):
    found = trouble(history)
    played = [s for s in history if s["outcome"] in ("win", "loss") and s["figures"]]
    losses = [s for s in played if s["outcome"] == "loss"]
    assert (found["shows"], found["losses"]) == (len(played), len(losses))
    for row in found["colours"]["rows"]:
        ran_out = [{r["timer"] for r in s["figures"]["runouts"]} for s in losses]
        assert row["losses"] == sum(row["timer"] in timers for timers in ran_out)
        assert row["runouts"] == sum(1 for s in played for r in s["figures"]["runouts"] if r["timer"] == row["timer"])
    spaces = Counter(r["space"] for s in played for r in s["figures"]["runouts"])
    assert {r["space"]: r["runouts"] for r in found["phases"]["rows"]} == dict(spaces)
    assert found["tokens"]["turned"] == sum(s["figures"]["tokens"] for s in played)
    assert {r["spaces_left"]: r["losses"] for r in found["closeness"]["losses"]} == \
        dict(Counter(s["figures"]["spaces_left"] for s in losses))
    assert sum(r["shows"] for r in found["time"]["rows"]) == len(played)
    sentence = found["colours"]["sentence"]
    if losses and sentence["code"] == "progress.trouble.colour":
        worst = max(found["colours"]["rows"], key=lambda r: r["losses"])["losses"]
        assert sentence["params"]["n"] == worst and sentence["params"]["losses"] == len(losses)


def test_the_sentence_names_the_glass_that_ran_out_in_most_losses():
    def lost(*timers):
        return {"outcome": "loss", "stars": 0, "figures": {"runouts": [{"timer": t, "t": 1.0, "space": 2}
                                                                          for t in timers],
                                                           "tokens": 3, "spaces_left": 2, "start_space": 4,
                                                           "show_s": 90.0}}
    history = [lost("purple", "red", "red")] * 9 + [lost("red", "orange", "green")] * 5
    assert trouble(history)["colours"]["sentence"] == {
        "code": "progress.trouble.colour", "params": {"timer": "red", "n": 14, "losses": 14}}
    history = [lost("purple", "purple", "blue")] * 9 + [lost("red", "orange", "green")] * 5
    assert trouble(history)["colours"]["sentence"]["params"] == {"timer": "purple", "n": 9, "losses": 14}


names = st.sampled_from(["ann", "ben", "cho", "dan", "eve"])


@st.composite
def a_game(draw):
    kind = draw(st.sampled_from(["flock", "geese"]))
    seated = draw(st.lists(names, min_size=2, max_size=4, unique=True))
    scores = [draw(st.integers(0, 60)) for _ in seated]
    best = max(scores)
    players = []
    for name, score in zip(seated, scores):
        seat = {"name": name, "score": score, "winner": score == best}
        if kind == "flock":
            stages = [draw(st.integers(0, 20)) for _ in range(3)]
            seat.update(stages=stages, nest=sum(stages), movement=0)
        else:
            seat.update(values=draw(st.lists(st.integers(1, 6), max_size=4)), no_goose_bonus=draw(st.integers(0, 3)))
        players.append(seat)
    return {"kind": kind, "over": draw(st.integers(0, 5)) > 0, "wall": draw(st.floats(1.6e9, 1.8e9)),
            "players": players}


@settings(max_examples=60, deadline=None)
@given(st.lists(a_game(), max_size=15), st.sampled_from(["flock", "geese"]))
def test_each_players_games_wins_average_best_and_head_to_head(games, kind):
    shown = per_player(games, kind)
    done = [g for g in games if g["kind"] == kind and g["over"]]
    assert shown["games"] == len(done)
    for row in shown["players"]:
        mine = [seat for g in done for seat in g["players"] if seat["name"] == row["name"]]
        assert row["games"] == len(mine) and row["wins"] == sum(s["winner"] for s in mine)
        assert row["best"] == max(s["score"] for s in mine)
        assert abs(row["average"] - sum(s["score"] for s in mine) / len(mine)) <= 0.05 + 1e-9  # to a tenth
        if kind == "geese":
            assert sum(row["values"].values()) == sum(len(s["values"]) for s in mine)
            assert row["bonus_games"] == sum(s["no_goose_bonus"] > 0 for s in mine)
    assert {p["name"] for p in shown["players"]} == {s["name"] for g in done for s in g["players"]}
    for pair in shown["head_to_head"]:
        met = [g for g in done if {pair["a"], pair["b"]} <= {s["name"] for s in g["players"]}]
        assert pair["games"] == len(met) == pair["a_ahead"] + pair["b_ahead"] + pair["level"]
        score = [{s["name"]: s["score"] for s in g["players"]} for g in met]
        assert pair["a_ahead"] >= sum(s[pair["a"]] > s[pair["b"]] for s in score)
        assert pair["b_ahead"] >= sum(s[pair["b"]] > s[pair["a"]] for s in score)


@settings(max_examples=80, deadline=None)
@given(st.lists(a_game(), max_size=15), st.sampled_from(["flock", "geese"]))
def test_head_to_head_ranks_the_players_by_the_share_of_their_meetings_they_finished_ahead_in(games, kind):
    """Counted here seat by seat: a meeting is a game and one other player in it; ahead is the higher score, then
    the winner. A better record is a larger share, then more meetings ahead; the same record shares a place."""
    ranking = per_player(games, kind)["ranking"]
    record: dict[str, Counter] = {}
    for game in (g for g in games if g["kind"] == kind and g["over"]):
        for me in game["players"]:
            for other in game["players"]:
                if other is not me:
                    mine = record.setdefault(me["name"], Counter())
                    mine["meetings"] += 1
                    mine["ahead" if (me["score"], me["winner"]) > (other["score"], other["winner"]) else
                         "behind" if (me["score"], me["winner"]) < (other["score"], other["winner"]) else "level"] += 1
    better = {name: (Fraction(r["ahead"], r["meetings"]), r["ahead"]) for name, r in record.items()}
    assert [row["name"] for row in ranking["rows"]] == sorted(record, key=lambda n: (
        [-x for x in better[n]], n))
    for row in ranking["rows"]:
        mine = record[row["name"]]
        assert (row["meetings"], row["ahead"], row["behind"], row["level"]) == (
            mine["meetings"], mine["ahead"], mine["behind"], mine["level"])
        assert row["place"] == 1 + sum(better[n] > better[row["name"]] for n in record)
    shared = {frozenset(n for n in record if better[n] == mark) for mark in better.values()}
    assert {frozenset(tie["params"]["names"]) for tie in ranking["ties"]} == {s for s in shared if len(s) > 1}
    top = ranking["rows"][0]["name"] if record else None
    assert ranking["sentence"]["code"] == ("progress.h2h.none" if top is None else "progress.h2h.top_shared"
                                           if any(top in t["params"]["names"] and t["params"]["place"] == 1
                                                  for t in ranking["ties"]) else "progress.h2h.top")


@settings(max_examples=40, deadline=None)
@given(shows, st.lists(a_game(), max_size=8), st.floats(1.6e9, 1.8e9), offsets)
def test_tonight_holds_the_shows_and_games_of_the_current_night_only(history, games, now, offset_h):
    recap = tonight(history, games, now, timezone(timedelta(hours=offset_h)))
    night = night_here(now, offset_h)
    mine = [s for s in history if s["outcome"] in ("win", "loss") and night_here(s["wall"], offset_h) == night]
    assert recap["night"] == night and recap["shows"] == len(mine)
    assert recap["stars"] == sum(s["stars"] for s in mine if s["outcome"] == "win")
    assert len(recap["games"]) == len([g for g in games if g["over"] and night_here(g["wall"], offset_h) == night])
    assert sum(e["attempts"] for e in recap["events"]) == len(mine)
