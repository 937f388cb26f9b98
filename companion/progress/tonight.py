"""Tonight: the current night across the three games, the recap a group shares at the end of an evening.

`now` is the instant asked about (epoch seconds); a show belongs to the night
it started in, a board game to the night it was last changed in (when it
ended, for a finished one).

>>> from datetime import timezone
>>> shows = [{"event": "training", "event_name": "Training", "outcome": "win", "stars": 2, "wall": 72000.0}]
>>> games = [{"kind": "geese", "over": True, "wall": 73000.0, "players": [{"name": "ann", "score": 9, "winner": True}]}]
>>> recap = tonight(shows, games, 74000.0, timezone.utc)
>>> recap["night"], recap["shows"], recap["stars"], recap["games"][0]["winners"]
('1970-01-01', 1, 2, ['ann'])
"""

from datetime import tzinfo

from companion.progress.nights import night_of

NEAR_S = 2 * 86400.0


def tonight(shows: list[dict], games: list[dict], now: float, zone: tzinfo) -> dict:
    """The night of `now`: its Skyrockets shows won and lost and their stars, each event played with its best
    result and its outcomes in order, and the board games finished, each with its players' scores, winners first."""
    night = night_of(now, zone)
    near = now - NEAR_S, now + NEAR_S  # a night lasts a day (25 hours at most, as a clock goes back): only
    shows = [s for s in shows if near[0] <= s["wall"] <= near[1]]  # what lies this near can belong to it
    played = [s for s in shows if s["outcome"] in ("win", "loss") and night_of(s["wall"], zone) == night]
    events: dict[str, dict] = {}
    for show in played:
        row = events.setdefault(show["event"], {"event": show["event"], "name": show["event_name"], "attempts": 0,
                                                "won": False, "stars": 0, "strip": []})
        row["attempts"] += 1
        row["strip"].append(show["outcome"])
        if show["outcome"] == "win":
            row["won"], row["stars"] = True, max(row["stars"], show["stars"])
    finished = [{"kind": g["kind"], "winners": [p["name"] for p in g["players"] if p["winner"]],
                 "scores": sorted(([p["name"], p["score"]] for p in g["players"]), key=lambda ps: -ps[1])}
                for g in games if g["over"] and night_of(g["wall"], zone) == night]
    wins = sum(s["outcome"] == "win" for s in played)
    return {"night": night, "shows": len(played), "wins": wins, "losses": len(played) - wins,
            "stars": sum(s["stars"] for s in played if s["outcome"] == "win"), "events": list(events.values()),
            "games": finished, "empty": not played and not finished}
