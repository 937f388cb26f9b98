"""A past show as an SVG timeline: the sand on top of every glass over time, and what happened.

Pure: the show's log lines in, SVG text out. The rules core replays the log,
and the replay is sampled just before and after every input and every
instant where something happens; in between, sand runs at a steady rate, so
straight lines between those samples are what the rules say. The drawing is
as light as the picture, whatever the show's length: points that fall on
the line through their neighbours are left out, and a glass turned more
often than the plot has pixels for is drawn as each pixel column's lowest
and highest sand (what a screen could show of it), its turn marks at most
one per few columns.

>>> svg = timeline_svg(['{"t": 0, "type": "setup", "event": "training"}', '{"t": 12, "type": "end"}'])
>>> svg.startswith("<svg") and svg.count("<polyline") >= 6
True
"""

import math
from dataclasses import dataclass, field
from html import escape

from companion.errors import BadInput
from companion.skyrockets.log import LogReader, apply_line
from companion.skyrockets.show import Show
from companion.web.i18n import fill
from companion.web.looks import LOOKS

LABELS = {
    "title": "Sand on top of each glass during the show",
    "time_axis": "show time (s)",
    "sand_axis": "sand on top (s)",
    "turned": "a glass's symbol on its line: turned there",
    "runout": "ran out: a crowd token turned",
    "runouts": "Ran out: {list}.",
    "runout_at": "{timer} at {t} s",
    "join.sep": ", ",  # between the run-outs listed (the catalog's joiner: a name, never code, says it)
    "no_runouts": "No glass ran out.",
    "advance": "countdown advanced",
    "lying": "dashed: lying on its side",
    "win": "won",
    "loss": "lost",
    "red": "red", "orange": "orange", "yellow": "yellow", "green": "green", "blue": "blue", "purple": "purple",
}

WIDTH = 400
LEFT, RIGHT, TOP, BOTTOM = 44, 390, 18, 196  # the plot area
LEGEND_Y = 238
ROW = 18
COLUMN = 1.0  # the plot's resolution, in viewBox units: a phone draws the 346-unit-wide plot on ~350 px
MARK_COLUMNS = 8  # at most one turn mark per glass in this many columns
BLIP = 7.0  # a stretch shorter than one dash and its gap ("4 3") is drawn as part of its neighbours


@dataclass
class Trace:
    """A replayed show: (t, sand on top, upright) per glass in play, and the turns the players made."""

    show: Show
    end: float
    points: dict[str, list[tuple[float, float, bool]]] = field(default_factory=dict)
    turns: list[tuple[float, str, float]] = field(default_factory=list)  # (t, colour, sand on top after)

    def sample(self, t: float, only: str | None = None) -> None:
        """Note every glass at `t` (or only glass `only`: an input bends no other glass's line)."""
        for colour in (self.points if only is None else (only,) if only in self.points else ()):
            glass = self.show.timers[colour].glass
            self.points[colour].append((t, glass.top(t), glass.pose.upright))


def trace(lines) -> Trace:
    """Replay a show log, sampling every glass; raises BadInput (a LogError) for a bad log."""
    reader = LogReader()
    checked = [line for line in map(reader.read, lines) if line is not None]
    if not checked:
        raise BadInput("log", "the log is empty", code="errors.log.empty")
    show = Show(checked[0]["setup"])
    inputs, last = checked[1:], reader.last_t
    result = Trace(show, last, {c: [] for c, timer in show.timers.items() if timer.in_play})
    result.sample(0.0)
    i = 0
    while show.ended_at is None:
        due = show.next_due()
        upcoming = inputs[i]["t"] if i < len(inputs) else math.inf
        t = min(upcoming, math.inf if due is None else due)
        if t > last:
            break
        if t == upcoming:  # an input comes before anything due at the same instant (the rules' order)
            line, i = inputs[i], i + 1
            colour = line.get("timer")
            before = show.timers[colour].glass if colour in result.points else None
            result.sample(t, colour)
            apply_line(show, line)
            if before is not None and show.timers[colour].glass.pose is not before.pose:
                result.turns.append((t, colour, show.timers[colour].glass.top(t)))
            result.sample(t, colour)
        else:
            result.sample(t)
            show.advance(t)
            result.sample(t)
    if show.ended_at is None:
        show.advance(last)
    result.end = show.ended_at if show.ended_at is not None else last
    result.sample(result.end)
    return result


def timeline_svg(lines, labels: dict | None = None) -> str:
    """The show's timeline as an inline SVG, with axes, markers and a legend in `labels`' words."""
    words = {**LABELS, **(labels or {})}
    tr = trace(lines)
    show, span = tr.show, max(tr.end, 1.0)
    sand_max = max([show.timers[c].glass.duration for c in tr.points] or [1.0])

    def x(t: float) -> float:
        return round(LEFT + (RIGHT - LEFT) * t / span, 1)

    def y(s: float) -> float:
        return round(BOTTOM - (BOTTOM - TOP) * s / sand_max, 1)

    def upright_line(at: float, **attrs) -> str:
        return _el("line", x1=at, y1=TOP, x2=at, y2=BOTTOM, **attrs)

    grid = [upright_line(x(t)) + _el("text", f"{t:g}", x=x(t), y=BOTTOM + 13, text_anchor="middle", stroke="none")
            for t in _ticks(span)]
    grid += [_el("line", x1=LEFT, y1=y(s), x2=RIGHT, y2=y(s))
             + _el("text", f"{s:g}", x=LEFT - 4, y=y(s) + 3.5, text_anchor="end", stroke="none")
             for s in _ticks(sand_max)]
    axes = [_el("text", words["time_axis"], x=(LEFT + RIGHT) / 2, y=BOTTOM + 28, text_anchor="middle"),
            _el("text", words["sand_axis"], transform=f"translate(11 {(TOP + BOTTOM) / 2}) rotate(-90)",
                text_anchor="middle")]
    marks = [upright_line(x(a["t"]), stroke_dasharray="2 3")
             + _el("text", str(a["position"]), x=x(a["t"]), y=TOP - 5, text_anchor="middle", stroke="none")
             for a in show.advances if a["position"] > 0]  # the last advance, onto the button space, is the win's
    if show.outcome in ("win", "loss"):
        result = f'{words[show.outcome]} {"★" * show.stars if show.outcome == "win" else "✕"}'
        marks.append(upright_line(x(tr.end), stroke_width=2)
                     + _el("text", result, x=x(tr.end), y=TOP - 5, text_anchor="end", stroke="none"))
    # Each glass in a group of its own: its lines, its symbol where its line begins, at each turn and over each
    # run-out, so every mark says whose it is without its colour.
    drawn = {colour: _polylines(points, LOOKS[colour]["fill"], x, y) + [_glyph(
        LOOKS[colour]["symbol"], x(points[0][0]) + 6, y(points[0][1]) - 6, LOOKS[colour]["fill"], 9)]
        for colour, points in tr.points.items()}
    marks_of: dict[str, list[str]] = {}
    for t, colour, top in _thinned(tr.turns, x):  # one group per glass carries what its marks share
        marks_of.setdefault(colour, []).append(_el("text", LOOKS[colour]["symbol"], x=x(t), y=round(y(top) + 9 * 0.35, 1)))
    for colour, turned in marks_of.items():
        drawn[colour].append(_el("g", "".join(turned), text_anchor="middle", font_size=9, fill=LOOKS[colour]["fill"]))
    for r in show.runouts:
        fill = LOOKS[r["timer"]]["fill"]
        drawn[r["timer"]] += [_glyph("✕", x(r["t"]), y(0), fill, 13, bold=True),
                              _glyph(LOOKS[r["timer"]]["symbol"], x(r["t"]), y(0) - 13, fill, 10)]
    traces = [_el("g", "".join(parts), class_="glass", data_timer=colour) for colour, parts in drawn.items()]

    height = LEGEND_Y + ROW * (math.ceil(len(tr.points) / 3) + 3)
    return _el(
        "svg",
        _el("title", words["title"], id="timeline-title")
        + _el("desc", _summary(show, words), id="timeline-summary")
        + _el("g", "".join(grid), stroke="currentColor", stroke_opacity=0.25, fill="currentColor", font_size=10)
        + _el("g", "".join(axes), fill="currentColor", font_size=11)
        + _el("g", "".join(marks), stroke="currentColor", fill="currentColor", font_size=10)
        + "".join(traces)
        + _el("g", _legend(tr, words), fill="currentColor", font_size=11),
        xmlns="http://www.w3.org/2000/svg", viewBox=f"0 0 {WIDTH} {height}", class_="timeline", role="img",
        aria_labelledby="timeline-title", aria_describedby="timeline-summary")


def _summary(show: Show, words: dict) -> str:
    """The run-outs in words: what the picture's marks say, for a screen reader."""
    if not show.runouts:
        return words["no_runouts"]
    said = [fill(words["runout_at"], {"timer": words[r["timer"]], "t": f"{r['t']:g}"}) for r in show.runouts]
    return fill(words["runouts"], {"list": words["join.sep"].join(said)})


def _el(name: str, content: str = "", **attrs) -> str:
    """An SVG element; attribute names in Python spelling (text_anchor -> text-anchor, class_ -> class).

    Text content is escaped; content built by _el is passed on as it is.
    """
    spelled = " ".join(f'{k.rstrip("_").replace("_", "-")}="{escape(str(v))}"' for k, v in attrs.items())
    if name in ("text", "title", "desc"):
        content = escape(content)
    return f"<{name} {spelled}>{content}</{name}>" if content else f"<{name} {spelled}/>"


def _polylines(points, colour: str, x, y) -> list[str]:
    """One line per stretch standing up (solid) or lying (dashed), as light as the picture allows.

    A stretch too short to show its dashes (a glass laid down and stood up within a few columns, as a
    chattering sensor reports it) is drawn as part of the stretch around it.
    """
    drawn = [(x(t), y(s), upright) for t, s, upright in points]
    runs: list[list[tuple[float, float, bool]]] = []
    for point in drawn:
        if not runs or runs[-1][-1][2] != point[2]:
            runs.append([])
        runs[-1].append(point)
    merged: list[list[tuple[float, float, bool]]] = []
    for run in runs:
        if merged and (run[-1][0] - run[0][0] < BLIP or merged[-1][-1][0] - merged[-1][0][0] < BLIP):
            upright = merged[-1][0][2] if run[-1][0] - run[0][0] < BLIP else run[0][2]
            merged[-1] = [(px, py, upright) for px, py, _ in merged[-1] + run]
        else:
            merged.append(run)
    dashes = {True: {}, False: {"stroke_dasharray": "4 3"}}
    return [_el("polyline", points=" ".join(f"{px:g},{py:g}" for px, py in _compact([(px, py) for px, py, _ in run])),
                fill="none", stroke=colour, stroke_width=2, **dashes[run[0][2]]) for run in merged]


def _compact(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The points of a line that change its picture: repeats and points on a straight stretch left out,
    and, in a stretch denser than the plot's columns, each column's lowest and highest, in their order."""
    kept: list[tuple[float, float]] = []
    for point in points:
        if kept and point == kept[-1]:
            continue
        if len(kept) >= 2 and _straight(kept[-2], kept[-1], point):
            kept[-1] = point
        else:
            kept.append(point)
    if len(kept) <= 2 * (RIGHT - LEFT) / COLUMN:
        return kept
    columns: dict[int, list[tuple[float, float]]] = {}
    for point in kept:
        columns.setdefault(int(point[0] // COLUMN), []).append(point)
    drawn = []
    for column in columns.values():
        low, high = min(column, key=lambda p: p[1]), max(column, key=lambda p: p[1])
        drawn += sorted({low, high}, key=column.index)
    return drawn


def _straight(a, b, c) -> bool:
    """Whether b lies on the line from a to c (within the drawing's rounding to 0.1), between them."""
    cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (abs(cross) <= 0.1 * max(abs(c[0] - a[0]), abs(c[1] - a[1]), 1e-9)
            and a[0] <= b[0] <= c[0] and min(a[1], c[1]) <= b[1] <= max(a[1], c[1]))


def _thinned(turns, x) -> list[tuple[float, str, float]]:
    """Turn marks, at most one per glass in every MARK_COLUMNS columns (a dense run of turns reads as one)."""
    seen, kept = set(), []
    for t, colour, top in turns:
        key = (colour, int(x(t) // (COLUMN * MARK_COLUMNS)))
        if key not in seen:
            seen.add(key)
            kept.append((t, colour, top))
    return kept


def _glyph(symbol: str, cx: float, cy: float, colour: str, size: int, bold: bool = False) -> str:
    """A symbol centred on (cx, cy)."""
    return _el("text", symbol, x=cx, y=round(cy + size * 0.35, 1), text_anchor="middle", font_size=size,
               font_weight="bold" if bold else "normal", fill=colour)


def _legend(tr: Trace, words: dict) -> str:
    """Every glass in play (line, symbol, name), then what the marks mean."""
    out = []
    for i, colour in enumerate(tr.points):
        left, top = LEFT + (i % 3) * 116, LEGEND_Y + (i // 3) * ROW
        look = LOOKS[colour]
        out += [_el("line", x1=left, y1=top, x2=left + 16, y2=top, stroke=look["fill"], stroke_width=2),
                _glyph(look["symbol"], left + 24, top, look["fill"], 11),
                _el("text", words[colour], x=left + 32, y=top + 4)]
    top = LEGEND_Y + math.ceil(len(tr.points) / 3) * ROW
    out += [_el("text", words["lying"], x=LEFT, y=top + 4), _el("text", words["turned"], x=LEFT, y=top + ROW + 4)]
    top += 2 * ROW
    out += [_glyph("✕", LEFT + 4, top, "currentColor", 13, bold=True),
            _el("text", words["runout"], x=LEFT + 14, y=top + 4),
            _el("line", x1=LEFT + 200, y1=top - 6, x2=LEFT + 200, y2=top + 6, stroke="currentColor",
                stroke_dasharray="2 3"),
            _el("text", words["advance"], x=LEFT + 206, y=top + 4)]
    return "".join(out)


def _ticks(limit: float) -> list[float]:
    """Round values from 0 to `limit`, at most 8 of them."""
    step = next((s for s in (1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 1800, 3600) if limit / s <= 8), 7200)
    return [i * step for i in range(int(limit // step) + 1)]
