"""The progress pages' charts, drawn here as SVG on the server: no script, nothing fetched, a few KB a chart.

Each chart is decoration for sighted readers: the page says the same in a
sentence and a table beside it, so every chart is `aria-hidden`. Colour is
never the only cue: wins and losses differ in shape too (a filled square, a
hollow one), a glass's bar carries its symbol. The fills are the timers' own
(companion.web.looks.LOOKS), kept apart for colour-blind eyes by the test of
the timer fills; OUTCOME names the two the progress charts add meaning to.

>>> str(strip(["win", "loss"])).count("<path")
2
"""

from markupsafe import Markup, escape

from companion.web.looks import LOOKS

OUTCOME = {"win": LOOKS["blue"]["fill"], "loss": LOOKS["orange"]["fill"]}  # a won show, a lost one
WIDTH = 340  # user units across a chart: the phone's width less the page's margins, so text is drawn life size
BAR_HEIGHT = 18
LABEL_WIDTH = 96
DIGIT = 8  # user units a character of a bar's value takes at its 12-unit font, and a little over
SQUARE = 9  # one attempt in a strip
COLUMN_HEIGHT = 90
INK = "#eef1f6"  # the pages' text colour (site.css --text)
MUTED = "#b8c0cc"


def _svg(height: float, body: str, width: float = WIDTH) -> Markup:
    return Markup(f'<svg class="chart" viewBox="0 0 {width:g} {height:g}" width="{width:g}" height="{height:g}"'
                  f' aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">{body}</svg>')


def bars(rows: list[dict]) -> Markup:
    """Horizontal bars, one a row: {"label", "value", "fill"}; the value (or the row's "text") at the bar's end."""
    top = max((r["value"] for r in rows), default=0) or 1
    longest = max((len(str(r.get("text", r["value"]))) for r in rows), default=0)
    room = WIDTH - LABEL_WIDTH - max(30, 4 + DIGIT * longest)  # the longest value's text fits after its bar
    parts = []
    for i, row in enumerate(rows):
        y = i * (BAR_HEIGHT + 4)
        length = room * row["value"] / top
        parts.append(f'<text x="0" y="{y + 13}" fill="{INK}" font-size="12">{escape(row["label"])}</text>'
                     f'<rect x="{LABEL_WIDTH}" y="{y}" width="{length:.1f}" height="{BAR_HEIGHT}" rx="2"'
                     f' fill="{row["fill"]}"/>'
                     f'<text x="{LABEL_WIDTH + length + 4:.1f}" y="{y + 13}" fill="{INK}" font-size="12">'
                     f'{escape(row.get("text", row["value"]))}</text>')
    return _svg(max(1, len(rows)) * (BAR_HEIGHT + 4), "".join(parts))


def campaign_map(festivals: list[dict], labels: list[str]) -> Markup:
    """The campaign as a map: a column a festival (`labels`: each one's short name), a tile an event, filled once
    won with its best stars written in it, outlined while tried and not won, faint while never tried."""
    step = WIDTH / max(1, len(festivals))
    tile = min(step - 4, 26.0)
    parts = []
    for column, (festival, label) in enumerate(zip(festivals, labels)):
        x = column * step + (step - tile) / 2
        parts.append(f'<text x="{x + tile / 2:.1f}" y="11" fill="{MUTED}" font-size="10" text-anchor="middle">'
                     f'{escape(label)}</text>')
        for row, event in enumerate(festival["events"]):
            y = 16 + row * (tile + 4)
            if event["best_stars"] is not None:
                parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{tile:.1f}" height="{tile:.1f}" rx="3"'
                             f' fill="{OUTCOME["win"]}"/><text x="{x + tile / 2:.1f}" y="{y + tile / 2 + 4:.1f}"'
                             f' fill="#12151c" font-size="11" text-anchor="middle">{event["best_stars"]}★</text>')
            elif event["attempts"]:
                parts.append(f'<rect x="{x + 1:.1f}" y="{y + 1:.1f}" width="{tile - 2:.1f}" height="{tile - 2:.1f}"'
                             f' rx="3" fill="none" stroke="{OUTCOME["loss"]}" stroke-width="2"/>')
            else:
                parts.append(f'<rect x="{x + 1:.1f}" y="{y + 1:.1f}" width="{tile - 2:.1f}" height="{tile - 2:.1f}"'
                             f' rx="3" fill="none" stroke="{MUTED}" stroke-width="1" stroke-dasharray="2 2"/>')
    rows = max((len(f["events"]) for f in festivals), default=0)
    return _svg(16 + rows * (tile + 4), "".join(parts))


def nights(rows: list[dict]) -> Markup:
    """Each night a column: its wins (filled, below) and losses (outlined, above), its stars written on top."""
    if not rows:
        return _svg(COLUMN_HEIGHT, "")
    top = max(r["shows"] for r in rows) or 1
    step = WIDTH / len(rows)
    width = max(2.0, step * 0.7)
    parts = []
    for i, row in enumerate(rows):
        x = i * step + (step - width) / 2
        won = COLUMN_HEIGHT * row["wins"] / top
        lost = COLUMN_HEIGHT * row["losses"] / top
        base = COLUMN_HEIGHT + 14
        parts.append(f'<rect x="{x:.1f}" y="{base - won:.1f}" width="{width:.1f}" height="{won:.1f}"'
                     f' fill="{OUTCOME["win"]}"/>')
        if lost:
            parts.append(f'<rect x="{x + 0.75:.1f}" y="{base - won - lost + 0.75:.1f}" width="{width - 1.5:.1f}"'
                         f' height="{max(0.0, lost - 1.5):.1f}" fill="none" stroke="{OUTCOME["loss"]}"'
                         f' stroke-width="1.5"/>')
        if row["stars"] and step >= 12:
            parts.append(f'<text x="{x + width / 2:.1f}" y="{base - won - lost - 3:.1f}" fill="{INK}"'
                         f' font-size="10" text-anchor="middle">{row["stars"]}</text>')
    return _svg(COLUMN_HEIGHT + 16, "".join(parts))


def strip(outcomes: list[str]) -> Markup:
    """An event's attempts in order, a small square each: a win filled, a loss hollow."""
    won = "".join(f"M{i * (SQUARE + 2)} 0h{SQUARE}v{SQUARE}h-{SQUARE}z" for i, o in enumerate(outcomes) if o == "win")
    lost = "".join(f"M{i * (SQUARE + 2) + 1} 1h{SQUARE - 2}v{SQUARE - 2}h-{SQUARE - 2}z"
                   for i, o in enumerate(outcomes) if o != "win")
    body = (f'<path d="{won}" fill="{OUTCOME["win"]}"/>' if won else "") + \
           (f'<path d="{lost}" fill="none" stroke="{OUTCOME["loss"]}" stroke-width="1.5"/>' if lost else "")
    return _svg(SQUARE, body, width=max(SQUARE, len(outcomes) * (SQUARE + 2)))


def spark(scores: list[int], width: float = 120, height: float = 28) -> Markup:
    """A player's scores over games as a line, the best marked with a dot."""
    if not scores:
        return _svg(height, "", width)
    low, high = min(scores), max(scores)
    span = (high - low) or 1
    step = width / max(1, len(scores) - 1)
    points = [(i * step if len(scores) > 1 else width / 2, height - 3 - (height - 6) * (s - low) / span)
              for i, s in enumerate(scores)]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    bx, by = points[scores.index(high)]
    return _svg(height, f'<polyline points="{line}" fill="none" stroke="{OUTCOME["win"]}" stroke-width="1.5"/>'
                        f'<circle cx="{bx:.1f}" cy="{by:.1f}" r="2.5" fill="{INK}"/>', width)
