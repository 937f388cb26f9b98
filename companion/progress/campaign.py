"""The campaign at a glance: the 30 events as a map, the group's stars and wins over nights, each event's attempts.

`shows` are the table's finished shows, oldest first, as the records reader
gives them (`event`, `outcome`, `stars`, `started`, `wall`: the start in epoch
seconds). An attempt is a show won or lost, as on the score pad (an aborted
show is none); an event's best stars are those of its best win.

>>> from datetime import timezone
>>> shows = [{"event": "training", "outcome": o, "stars": s, "started": "2026-01-0%dT20:00:00Z" % d,
...           "wall": 1767297600.0 + 86400 * (d - 1)} for o, s, d in (("loss", 0, 1), ("win", 2, 1), ("win", 3, 2))]
>>> shown = campaign_map(shows, timezone.utc)
>>> shown["stars"], shown["events_won"], shown["festivals"][0]["events"][0]["strip"]
(3, 1, ['loss', 'win', 'win'])
>>> [(n["night"], n["wins"], n["stars"]) for n in shown["nights"]]
[('2026-01-01', 1, 2), ('2026-01-02', 1, 3)]
"""

from collections import defaultdict
from datetime import tzinfo

from companion.progress.nights import night_of
from companion.skyrockets.festivals import CAMPAIGN_EVENTS, MAX_STARS, campaign, event_number, progress

ATTEMPTED = ("win", "loss")  # what the score pad counts as an attempt
STRIP_LENGTH = 20  # attempts an event's strip shows, the newest: a phone's width of small squares


def campaign_map(shows: list[dict], zone: tzinfo, names: dict[str, str] | None = None) -> dict:
    """The campaign's festivals with each event's best stars, attempts, wins, last played and strip of outcomes;
    the stars and events won in all; and every night's shows, wins, losses and stars. `names`: the events'
    names as entered (an event never entered has none)."""
    names = names or {}
    pad: dict[str, dict] = {}
    strips: dict[str, list[str]] = defaultdict(list)
    for show in shows:
        row = pad.setdefault(show["event"], {"best_stars": None, "attempts": 0, "wins": 0, "last_played": None})
        row["last_played"] = max(row["last_played"] or "", show["started"]) or None
        if show["outcome"] in ATTEMPTED:
            row["attempts"] += 1
            strips[show["event"]].append(show["outcome"])
        if show["outcome"] == "win":
            row["wins"] += 1
            row["best_stars"] = max(row["best_stars"] or 0, show["stars"])
    festivals = progress(campaign(), pad)
    for festival in festivals:
        for row in festival["events"]:
            played = pad.get(row["event"], {})
            strip = strips.get(row["event"], [])
            row.update(name=names.get(row["event"]), wins=played.get("wins", 0),
                       last_played=played.get("last_played"), strip=strip[-STRIP_LENGTH:],
                       earlier=max(0, len(strip) - STRIP_LENGTH))
    won = sum(f["won"] for f in festivals)
    stars = sum(f["stars"] for f in festivals)
    return {"events": CAMPAIGN_EVENTS, "events_won": won, "stars": stars, "max_stars": MAX_STARS * CAMPAIGN_EVENTS,
            "festivals": festivals, "nights": nights(shows, zone),
            "sentence": {"code": "progress.campaign.sentence",
                         "params": {"won": won, "events": CAMPAIGN_EVENTS, "stars": stars,
                                    "max_stars": MAX_STARS * CAMPAIGN_EVENTS}}}


def nights(shows: list[dict], zone: tzinfo) -> list[dict]:
    """Each night with a show, oldest first: its shows won or lost, wins, losses, the stars of its wins, and
    the campaign events among them."""
    found: dict[str, dict] = {}
    for show in shows:
        if show["outcome"] not in ATTEMPTED:
            continue
        night = found.setdefault(night_of(show["wall"], zone),
                                 {"shows": 0, "wins": 0, "losses": 0, "stars": 0, "campaign": 0})
        won = show["outcome"] == "win"
        night["shows"] += 1
        night["wins" if won else "losses"] += 1
        night["stars"] += show["stars"] if won else 0
        night["campaign"] += event_number(show["event"]) is not None
    return [{"night": key, **night} for key, night in sorted(found.items())]
