"""What goes wrong: which glass the group loses most and when, how close each show came, tokens, time.

`shows` are finished shows, oldest first, each with its `figures`
(companion.progress.shows; None when its journal did not replay). Only shows
won or lost count. Each figure carries one sentence, as a catalogue code and
its numbers: the colour that ran out in most losses, the countdown space most
glasses ran out on, the losses that ended one space from the button, the
tokens a show costs, the time a show takes.

>>> runout = {"timer": "purple", "t": 80.0, "space": 2}
>>> lost = {"outcome": "loss", "stars": 0, "figures": {"runouts": [runout] * 3, "tokens": 3, "spaces_left": 1,
...                                                     "start_space": 4, "show_s": 200.0}}
>>> found = trouble([lost])
>>> found["colours"]["sentence"]
{'code': 'progress.trouble.colour', 'params': {'timer': 'purple', 'n': 1, 'losses': 1}}
>>> found["phases"]["rows"], found["time"]["sentence"]["params"]
([{'space': 2, 'runouts': 3}], {'average': '3:20', 'longest': '3:20', 'shows': 1})
"""

from companion.skyrockets.colours import COLOURS
from companion.skyrockets.show import CROWD_TOKENS


def trouble(shows: list[dict]) -> dict:
    """Every figure of what goes wrong, over the shows won or lost whose journals replayed."""
    played = [s for s in shows if s["outcome"] in ("win", "loss") and s.get("figures")]
    losses = [s for s in played if s["outcome"] == "loss"]
    wins = [s for s in played if s["outcome"] == "win"]
    return {"shows": len(played), "wins": len(wins), "losses": len(losses), "colours": colours(losses, played),
            "phases": phases(played), "closeness": closeness(wins, losses), "tokens": tokens(played),
            "time": time_per_show(played)}


def colours(losses: list[dict], played: list[dict]) -> dict:
    """Per glass: the losses it ran out in, and its run-outs in all shows; the sentence names the worst."""
    rows = [{"timer": c, "losses": sum(any(r["timer"] == c for r in s["figures"]["runouts"]) for s in losses),
             "runouts": sum(r["timer"] == c for s in played for r in s["figures"]["runouts"])} for c in COLOURS]
    worst = max(rows, key=lambda r: (r["losses"], r["runouts"]))
    sentence = (_said("progress.trouble.colour", timer=worst["timer"], n=worst["losses"], losses=len(losses))
                if worst["losses"] else _said("progress.trouble.no_losses", shows=len(played)))
    return {"rows": rows, "sentence": sentence}


def phases(played: list[dict]) -> dict:
    """Run-outs by the countdown space the group was on, first space first (the start is the highest)."""
    counts: dict[int, int] = {}
    for show in played:
        for runout in show["figures"]["runouts"]:
            counts[runout["space"]] = counts.get(runout["space"], 0) + 1
    rows = [{"space": space, "runouts": n} for space, n in sorted(counts.items(), reverse=True)]
    total = sum(counts.values())
    if not rows:
        return {"rows": rows, "sentence": _said("progress.trouble.no_runouts")}
    worst = max(rows, key=lambda r: (r["runouts"], r["space"]))
    return {"rows": rows, "sentence": _said("progress.trouble.phase", space=worst["space"], n=worst["runouts"],
                                            runouts=total)}


def closeness(wins: list[dict], losses: list[dict]) -> dict:
    """Each loss by the countdown's spaces left to the button, each win by the crowd tokens it turned."""
    left: dict[int, int] = {}
    for show in losses:
        left[show["figures"]["spaces_left"]] = left.get(show["figures"]["spaces_left"], 0) + 1
    turned = [sum(s["figures"]["tokens"] == k for s in wins) for k in range(CROWD_TOKENS)]
    near = left.get(1, 0)
    return {"losses": [{"spaces_left": k, "losses": n} for k, n in sorted(left.items())],
            "wins": [{"tokens": k, "wins": n} for k, n in enumerate(turned)],
            "sentence": _said("progress.trouble.close", n=near, losses=len(losses), clean=turned[0], wins=len(wins))}


def tokens(played: list[dict]) -> dict:
    """The crowd tokens the shows turned: in all, a show's average, and how many shows turned each count."""
    spent = [s["figures"]["tokens"] for s in played]
    total = sum(spent)
    return {"turned": total, "average": round(total / len(spent), 2) if spent else None,
            "rows": [{"tokens": k, "shows": spent.count(k)} for k in range(CROWD_TOKENS + 1)],
            "sentence": _said("progress.trouble.tokens", tokens=total, shows=len(spent),
                              average=f"{total / len(spent):.1f}" if spent else "0")}


def time_per_show(played: list[dict]) -> dict:
    """The shows by the whole minutes they lasted (show time); the average and the longest, as m:ss too."""
    lengths = [s["figures"]["show_s"] for s in played]
    minutes: dict[int, int] = {}
    for length in lengths:
        minutes[int(length // 60)] = minutes.get(int(length // 60), 0) + 1
    average = sum(lengths) / len(lengths) if lengths else 0.0
    longest = max(lengths, default=0.0)
    return {"rows": [{"minute": m, "shows": n} for m, n in sorted(minutes.items())],
            "average_s": round(average, 1), "longest_s": longest,
            "won_average_s": _average([s["figures"]["show_s"] for s in played if s["outcome"] == "win"]),
            "lost_average_s": _average([s["figures"]["show_s"] for s in played if s["outcome"] == "loss"]),
            "sentence": _said("progress.trouble.time", average=clock_text(average), longest=clock_text(longest),
                              shows=len(lengths))}


def clock_text(seconds: float) -> str:
    """Seconds as minutes and seconds, m:ss (the same in every language).

    >>> clock_text(125.4), clock_text(0)
    ('2:05', '0:00')
    """
    whole = round(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def _average(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 1) if values else None


def _said(code: str, **params) -> dict:
    return {"code": code, "params": params}
