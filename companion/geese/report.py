"""The simulator's statistics as text for a terminal: one column per rule set, side by side.

>>> print(lines({"draft": {"games": 0, "players": 0}})[0])
                                      draft
"""

LABEL = 38  # width of the figure names
COLUMN = 26


def _pct(p: dict) -> str:
    return f"{p['rate']:.1%} ({p['low']:.1%}–{p['high']:.1%})"


def _spread(s: dict) -> str:
    return f"{s['mean']:.1f} ± {s['sd']:.1f} [{s['min']}–{s['max']}]"


def _quartiles(s: dict) -> str:
    return f"{s['q1']} / {s['median']} / {s['q3']}"


def _rows(stats: dict) -> list[tuple[str, str]]:
    if not stats.get("games"):
        return []
    rows = [("games", str(stats["games"])), ("players", str(stats["players"])),
            ("score: mean ± sd [min–max]", _spread(stats["score"])),
            ("score: quartiles", _quartiles(stats["score"])),
            ("winner's score: mean ± sd", _spread(stats["winning_score"])),
            ("game length, turns", _spread(stats["turns"])),
            ("game length, rounds", _spread(stats["rounds"]))]
    for seat, rate in enumerate(stats["win_rate_by_seat"]):
        rows.append((f"wins, seat {seat + 1}", _pct(rate)))
    for name, rate in stats["win_rate_by_strategy"].items():
        rows.append((f"wins, {name}", _pct(rate)))
        rows.append((f"mean VP, {name}", f"{rate['mean_score']:.1f}"))
    rules = stats.get("rules", {})
    for rule, label, key in (("rainbow", "rainbow rule decided the winner", "rainbow_decided"),
                             ("no_goose_bonus", "no-goose bonus decided the winner", "no_goose_bonus_decided")):
        rows.append((label, "rule off" if rules.get(rule) is False else _pct(stats[key])))
    first = stats["first_player_advantage"]
    rows.append(("first player's edge over fair share",
                 f"{first['rate']:+.1%} ({first['low']:+.1%}–{first['high']:+.1%})"))
    return rows


def lines(series: dict[str, dict]) -> list[str]:
    """The figures of each run ({label: statistics()}) as aligned text lines, rates with 95 % intervals."""
    tables = {label: dict(_rows(stats)) for label, stats in series.items()}
    names = []
    for label, stats in series.items():
        for name, _ in _rows(stats):
            if name not in names:
                names.append(name)
    out = [" " * LABEL + "".join(label.ljust(COLUMN) for label in series).rstrip()]
    for name in names:
        cells = "".join(tables[label].get(name, "–").ljust(COLUMN) for label in series)
        out.append((name.ljust(LABEL) + cells).rstrip())
    return out
