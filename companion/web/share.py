"""Results that travel: a finished show or bird game as a short text to share, and as a play for BG Stats.

BG Stats documents how another app pushes a play to it
(https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/):
a link `https://app.bgstatsapp.com/createPlay.html?data=<data>`, where
<data> is the URL-encoded JSON of one play — `sourceName` (the app that
sends it) and `sourcePlayId` (the play's own id there: the same play pushed
again updates the play BG Stats made of it instead of adding a second),
`playDate` ("YYYY-MM-DD HH:MM:SS", the players' local time), `durationMin`,
`location`, `board`, `comments`, `game` (`name`, `sourceGameId`, `bggId`
when known, `highestWins`, `noPoints`, `cooperative`) and `players`
(`name`, `sourcePlayerId`, `score`, `rank`, `role`, `winner`,
`startPlayer`). A co-operative game without points sends `noPoints` and no
score: all its players win or lose together, and its stars are told in the
comments. The app exists for iOS and Android only, so the link is offered
on those phones alone.

>>> from datetime import timedelta, timezone
>>> play = bgstats_play(game={"name": "Skyrockets", "sourceGameId": "skyrockets", "highestWins": True,
...                           "noPoints": True, "cooperative": True}, play_id="show-4",
...                    played="2025-05-04T19:30:00Z", minutes=7, board="Training", comments="",
...                    players=[{"name": "Aki", "winner": True, "start": True}], zone=timezone(timedelta(hours=9)))
>>> play["playDate"], play["sourcePlayId"], play["players"][0]["sourcePlayerId"], "score" in play["players"][0]
('2025-05-05 04:30:00', 'show-4', 'aki', False)
>>> bgstats_link(play).startswith("https://app.bgstatsapp.com/createPlay.html?data=%7B")
True
"""

import json
import re
from datetime import datetime, tzinfo
from urllib.parse import quote

from companion.web.looks import LOOKS

BGSTATS_URL = "https://app.bgstatsapp.com/createPlay.html"
BGSTATS_PLATFORMS = re.compile(r"Android|iPhone|iPad|iPod")  # where the app (and so its link) exists
LOCATION = "Hourglass table"
SOURCE_NAME = "Hourglass table companion"  # this app, as BG Stats names where a pushed play came from
STAR, NO_STAR, SPARK, MISS = "⭐", "☆", "🎆", "💨"


def bgstats_play(*, game: dict, play_id: str, played: str, minutes: int | None, board: str, comments: str,
                 players: list[dict], zone: tzinfo | None = None) -> dict:
    """One play in BG Stats' documented JSON. `play_id` is the play's id on this table, `played` the stored UTC
    instant ("...T...Z"), told in `zone` (None: the table's own time zone). A player's `score` and `rank` are
    sent when given (a co-operative game without points has neither)."""
    play = {"sourceName": SOURCE_NAME, "sourcePlayId": play_id, "board": board, "comments": comments,
            "game": dict(game), "location": LOCATION, "playDate": local_time(played, zone), "players": []}
    for p in players:
        player = {"name": p["name"], "sourcePlayerId": _player_id(p["name"])}
        player.update({key: p[key] for key in ("score", "rank") if key in p})
        player.update({"role": "", "winner": p["winner"], "startPlayer": p["start"]})
        play["players"].append(player)
    if minutes is not None:
        play["durationMin"] = minutes
    return play


def local_time(instant: str, zone: tzinfo | None = None) -> str:
    """A stored UTC instant as BG Stats reads a play's date: "YYYY-MM-DD HH:MM:SS" in `zone` (None: the table's).

    >>> from datetime import timezone
    >>> local_time("2025-05-04T19:30:00Z", timezone.utc)
    '2025-05-04 19:30:00'
    """
    moment = datetime.fromisoformat(instant.replace("Z", "+00:00"))
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S")


def bgstats_link(play: dict) -> str:
    """The documented link that opens BG Stats' import dialog with `play`."""
    return f"{BGSTATS_URL}?data={quote(json.dumps(play, ensure_ascii=False, separators=(',', ':')), safe='')}"


def offers_bgstats(user_agent: str | None) -> bool:
    """Whether the phone is one BG Stats runs on (iOS or Android): the link means nothing elsewhere."""
    return bool(user_agent and BGSTATS_PLATFORMS.search(user_agent))


def _minutes(started: str | None, ended: str | None) -> int | None:
    """The minutes a show took at the table, from its stored UTC start and end (None if either is missing)."""
    try:
        return max(0, round((datetime.fromisoformat(ended) - datetime.fromisoformat(started)).total_seconds() / 60))
    except (TypeError, ValueError):
        return None


def _player_id(name: str) -> str:
    """A stable id for a player of this table (BG Stats remembers the match it makes for it)."""
    return name.strip().casefold()


def show_result(show: dict, players: list[str], words, ran_out: list[str] = (), *, table: str,
                zone: tzinfo | None = None) -> dict:
    """A finished Skyrockets show: its share text, emoji line and BG Stats play.

    `words(key, **params)` is the catalogue in the page's language; `ran_out`
    the glasses that ran out, in order, each told by its symbol and name;
    `table` the table's own id, which makes the play's id this table's alone.
    Skyrockets is co-operative and scores no points: all win or all lose
    together, and the stars are told in the comments (the share text).
    """
    won = show["outcome"] == "win"
    stars = show["stars"] if won else 0
    emoji = (SPARK + " " + STAR * stars + NO_STAR * (3 - stars)) if won else MISS + " " + NO_STAR * 3
    outcome = words("share.show_won", stars=stars) if won else words("share.show_lost")
    title = show["event_name"] + (" · " + words("start.challenge") if show.get("challenge") else "")
    runouts = [words("share.runouts", timers=words("join.sep").join(
        f"{LOOKS[c]['symbol']} {words('timer.' + c)}" for c in ran_out))] if ran_out else []
    text = "\n".join([words("share.show_title", event=title), outcome, emoji, *runouts, words("share.hashtag")])
    minutes = _minutes(show.get("started"), show.get("ended"))
    names = players or ([show["start_player"]] if show.get("start_player") else [])
    play = bgstats_play(
        game={"name": "Skyrockets", "sourceGameId": "skyrockets", "highestWins": True, "noPoints": True,
              "cooperative": True},
        play_id=f"{table}-skyrockets-show-{show['id']}", played=show["started"], minutes=minutes, board=title,
        comments=text, zone=zone,
        players=[{"name": n, "winner": won, "start": n == show.get("start_player")} for n in names])
    return {"text": text, "emoji": emoji, "play": play}


def game_result(game_name: str, source_id: str, play_id: str, ranking: list[tuple[str, int]], played: str, words,
                start: str | None = None, winners: set[str] | None = None, zone: tzinfo | None = None,
                title: str | None = None) -> dict:
    """A finished bird game: `ranking` is (name, points), winner first, in the game's own tie order;
    `play_id` the game's id, made this table's alone by the table's own id; `title` the game's name in the
    text's language (BG Stats keeps `game_name`, the name it knows the game by)."""
    medals = ["🥇", "🥈", "🥉"]
    lines = [f"{medals[i] if i < 3 else '🐦'} {name} {points}" for i, (name, points) in enumerate(ranking)]
    emoji = "🪶" * min(len(ranking), 5)
    text = "\n".join([words("share.game_title", game=title or game_name), *lines, emoji])
    play = bgstats_play(
        game={"name": game_name, "sourceGameId": source_id, "highestWins": True, "noPoints": False,
              "cooperative": False},
        play_id=play_id, played=played, minutes=None, board="", comments=text, zone=zone,
        players=[{"name": name, "score": points, "rank": 1 if winners and name in winners else i + 1,
                  "winner": name in winners if winners else i == 0,
                  "start": name == start}
                 for i, (name, points) in enumerate(ranking)])
    return {"text": text, "emoji": emoji, "play": play}
