"""The simulator's figures as one SVG picture: the score distribution, and win rates by seat and by strategy.

Drawn by hand (plain SVG, no library), so it opens in any browser offline.
With a second rule set its bars stand beside the first, hatched, so the
difference reads without colour too.

>>> svg = plot({"rules": _demo_stats()})
>>> svg.startswith("<svg") and "Win rate by seat" in svg
True
"""

from html import escape

WIDTH = 720
PANEL_HEIGHT = 220
MARGIN = 48
FILLS = ("#1f5bb8", "#c77800")  # first rule set, second; hatching tells them apart without colour
PATTERNS = ("", "url(#hatch)")
NO_RATE = {"rate": 0.0, "low": 0.0, "high": 0.0}


def plot(series: dict[str, dict], title: str = "帰る雁 playtest") -> str:
    """An SVG document for one or two runs' statistics ({label: statistics()})."""
    labels = list(series)
    runs = ", ".join(f"{label}: {stats['games']} games" for label, stats in series.items())
    parts = [f'<text x="{MARGIN}" y="28" class="title">{escape(title)} — {escape(runs)}</text>', _legend(labels)]
    top = 60
    parts.append(_histogram(series, top))
    top += PANEL_HEIGHT + 40
    seats = max(s["players"] for s in series.values())
    parts.append(_bars("Win rate by seat (1 = start player; dashed: a fair share; whiskers: 95 % interval)",
                       [str(i + 1) for i in range(seats)],
                       {k: v["win_rate_by_seat"] for k, v in series.items()}, top, fair=1 / seats))
    top += PANEL_HEIGHT + 40
    names = sorted({n for v in series.values() for n in v["win_rate_by_strategy"]})
    parts.append(_bars("Win rate by strategy", names,
                       {k: [v["win_rate_by_strategy"].get(n, NO_RATE) for n in names]
                        for k, v in series.items()}, top))
    height = top + PANEL_HEIGHT + 30
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">'
            '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
            'patternTransform="rotate(45)"><rect width="6" height="6" fill="#c77800"/>'
            '<line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="2"/></pattern>'
            '<style>.title{font-size:16px;font-weight:bold}.axis{stroke:#444}</style></defs>'
            f'<rect width="{WIDTH}" height="{height}" fill="#fff"/>' + "".join(parts) + "</svg>")


def _fill(i: int) -> str:
    i = min(i, len(FILLS) - 1)
    return PATTERNS[i] or FILLS[i]


def _legend(labels: list[str]) -> str:
    items = []
    for i, label in enumerate(labels):
        x = WIDTH - MARGIN - 160 * (len(labels) - i)
        items.append(f'<rect x="{x}" y="38" width="14" height="14" fill="{_fill(i)}" stroke="#222"/>'
                     f'<text x="{x + 20}" y="50">{escape(label)}</text>')
    return "".join(items)


def _histogram(series: dict[str, dict], top: int) -> str:
    lo = min(min(map(int, s["score_histogram"]), default=0) for s in series.values())
    hi = max(max(map(int, s["score_histogram"]), default=0) for s in series.values())
    width = WIDTH - 2 * MARGIN
    step = max(1, (hi - lo + 40) // 40)  # about 40 bins across the panel
    bins = list(range(lo - lo % step, hi + 1, step))
    shares = {}
    for label, s in series.items():
        total = sum(s["score_histogram"].values()) or 1
        counts = [0] * len(bins)
        for score, count in s["score_histogram"].items():
            counts[(int(score) - bins[0]) // step] += count
        shares[label] = [c / total for c in counts]
    peak = max((v for values in shares.values() for v in values), default=1) or 1
    slot = width / max(1, len(bins))
    bar = slot / max(1, len(series)) * 0.9
    out = [f'<text x="{MARGIN}" y="{top - 6}" font-weight="bold">Score distribution (share of players, VP)</text>',
           f'<line class="axis" x1="{MARGIN}" y1="{top + PANEL_HEIGHT}" x2="{WIDTH - MARGIN}" '
           f'y2="{top + PANEL_HEIGHT}"/>']
    for i, label in enumerate(series):
        for j, share in enumerate(shares[label]):
            h = share / peak * (PANEL_HEIGHT - 10)
            x = MARGIN + j * slot + i * bar
            out.append(f'<rect x="{x:.1f}" y="{top + PANEL_HEIGHT - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                       f'fill="{_fill(i)}"><title>{bins[j]}–{bins[j] + step - 1} VP: {share:.1%}</title></rect>')
    for j in range(0, len(bins), max(1, len(bins) // 8)):
        out.append(f'<text x="{MARGIN + j * slot:.1f}" y="{top + PANEL_HEIGHT + 14}">{bins[j]}</text>')
    return "".join(out)


def _bars(caption: str, names: list[str], rates: dict[str, list[dict]], top: int, fair: float | None = None) -> str:
    """Bars of rates with their 95 % intervals as whiskers; `fair`, if given, as a dashed line."""
    width = WIDTH - 2 * MARGIN
    slot = width / max(1, len(names))
    bar = slot * 0.8 / max(1, len(rates))
    peak = max((r["high"] for values in rates.values() for r in values), default=1) or 1
    scale = (PANEL_HEIGHT - 24) / peak
    base = top + PANEL_HEIGHT
    out = [f'<text x="{MARGIN}" y="{top - 6}" font-weight="bold">{escape(caption)}</text>',
           f'<line class="axis" x1="{MARGIN}" y1="{base}" x2="{WIDTH - MARGIN}" y2="{base}"/>']
    for i, values in enumerate(rates.values()):
        for j, rate in enumerate(values):
            h = rate["rate"] * scale
            x = MARGIN + j * slot + slot * 0.1 + i * bar
            mid = x + bar / 2
            out.append(f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                       f'fill="{_fill(i)}" stroke="#222"/>'
                       f'<line x1="{mid:.1f}" x2="{mid:.1f}" y1="{base - rate["low"] * scale:.1f}" '
                       f'y2="{base - rate["high"] * scale:.1f}" stroke="#000" stroke-width="2"/>'
                       f'<text x="{mid + 4:.1f}" y="{base - rate["high"] * scale - 4:.1f}">{rate["rate"]:.1%}</text>')
    if fair is not None:
        y = base - fair * scale
        out.append(f'<line x1="{MARGIN}" x2="{WIDTH - MARGIN}" y1="{y:.1f}" y2="{y:.1f}" stroke="#b3261e" '
                   'stroke-dasharray="6 4" stroke-width="1.5"/>')
    for j, name in enumerate(names):
        out.append(f'<text x="{MARGIN + j * slot + slot / 2:.1f}" y="{base + 14}" '
                   f'text-anchor="middle">{escape(name)}</text>')
    return "".join(out)


def _demo_stats() -> dict:
    rate = {"rate": 0.25, "low": 0.2, "high": 0.3, "n": 4}
    return {"games": 4, "players": 4, "score_histogram": {"10": 2, "30": 2},
            "win_rate_by_seat": [rate] * 4, "win_rate_by_strategy": {"greedy": rate}}
