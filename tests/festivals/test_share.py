"""The results that travel, payload by payload: BG Stats' documented play (one play per show or game, however often
it is pushed; a co-operative show without points; the table's local time), and the share text."""

import json
from datetime import timedelta, timezone
from urllib.parse import parse_qs, urlsplit

from companion.web.share import SOURCE_NAME, bgstats_link, game_result, show_result

TOKYO = timezone(timedelta(hours=9))
WORDS = {"share.show_title": "Skyrockets: {event}", "share.show_won": "Won with {stars} of 3 stars",
         "share.show_lost": "The crowd went home: lost", "share.game_title": "{game}: final scores",
         "start.challenge": "challenge", "share.hashtag": "#Skyrockets"}


def words(key: str, **params) -> str:
    return WORDS[key].format(**params)


SHOW = {"id": 3, "event": "event-02", "event_name": "Event 2 · Night 2", "outcome": "win", "stars": 2,
        "challenge": False, "started": "2025-05-04T19:30:00Z", "ended": "2025-05-04T19:36:00Z",
        "start_player": "Chiyo"}


def test_a_won_show_is_one_cooperative_play_without_points_dated_in_the_tables_time():
    result = show_result(SHOW, ["Aki", "Ben", "Chiyo"], words, table="5e1f", zone=TOKYO)
    text = "Skyrockets: Event 2 · Night 2\nWon with 2 of 3 stars\n🎆 ⭐⭐☆\n#Skyrockets"
    assert result["text"] == text
    assert result["play"] == {
        "sourceName": SOURCE_NAME, "sourcePlayId": "5e1f-skyrockets-show-3",
        "board": "Event 2 · Night 2", "comments": text,  # the stars travel in the comments
        "game": {"name": "Skyrockets", "sourceGameId": "skyrockets", "highestWins": True, "noPoints": True,
                 "cooperative": True},
        "location": "Hourglass table", "playDate": "2025-05-05 04:30:00", "durationMin": 6,
        "players": [{"name": "Aki", "sourcePlayerId": "aki", "role": "", "winner": True, "startPlayer": False},
                    {"name": "Ben", "sourcePlayerId": "ben", "role": "", "winner": True, "startPlayer": False},
                    {"name": "Chiyo", "sourcePlayerId": "chiyo", "role": "", "winner": True, "startPlayer": True}]}


def test_a_show_pushed_twice_is_the_same_play_and_a_lost_one_loses_together():
    first = show_result(SHOW, ["Aki"], words, table="5e1f", zone=TOKYO)["play"]
    again = show_result({**SHOW}, ["Aki"], words, table="5e1f", zone=TOKYO)["play"]
    assert bgstats_link(first) == bgstats_link(again)
    sent = json.loads(parse_qs(urlsplit(bgstats_link(first)).query)["data"][0])
    assert (sent["sourceName"], sent["sourcePlayId"]) == (SOURCE_NAME, "5e1f-skyrockets-show-3")
    other = show_result({**SHOW, "id": 4}, ["Aki"], words, table="5e1f", zone=TOKYO)["play"]
    assert other["sourcePlayId"] == "5e1f-skyrockets-show-4"
    lost = show_result({**SHOW, "outcome": "loss", "stars": 0}, ["Aki", "Ben"], words, table="5e1f", zone=TOKYO)["play"]
    assert [p["winner"] for p in lost["players"]] == [False, False]
    assert all("score" not in p and "rank" not in p for p in lost["players"])


def test_a_bird_game_sends_each_players_points_and_place():
    result = game_result("帰る雁 (Kaeru Kari)", "kaeru-kari", "kaeru-kari-game-7", [("ann", 41), ("ben", 37)],
                         "2025-05-04T23:59:30Z", words, start="ben", zone=timezone.utc)
    assert result["play"] == {
        "sourceName": SOURCE_NAME, "sourcePlayId": "kaeru-kari-game-7", "board": "", "comments": result["text"],
        "game": {"name": "帰る雁 (Kaeru Kari)", "sourceGameId": "kaeru-kari", "highestWins": True,
                 "noPoints": False, "cooperative": False},
        "location": "Hourglass table", "playDate": "2025-05-04 23:59:30",
        "players": [{"name": "ann", "sourcePlayerId": "ann", "score": 41, "rank": 1, "role": "", "winner": True,
                     "startPlayer": False},
                    {"name": "ben", "sourcePlayerId": "ben", "score": 37, "rank": 2, "role": "", "winner": False,
                     "startPlayer": True}]}
    assert result["text"] == "帰る雁 (Kaeru Kari): final scores\n🥇 ann 41\n🥈 ben 37\n🪶🪶"


def test_a_japanese_share_text_names_the_game_as_the_japanese_box_does():
    from pathlib import Path

    from companion.web.i18n import fill

    web = Path(__file__).resolve().parents[2] / "companion" / "web"
    japanese = {**json.loads((web / "static" / "i18n" / "ja.json").read_text("utf-8")),
                **json.loads((web / "scorepad" / "i18n" / "ja.json").read_text("utf-8"))}
    text = show_result(SHOW, ["Aki"], lambda key, **params: fill(japanese[key], params), table="5e1f",
                       zone=TOKYO)["text"]
    assert "Skyrockets" not in text and text.startswith("スカイロケット：") and text.endswith("#スカイロケット")
