"""Tonight's recap as a picture the share sheet can send: an SVG card of the recap's lines, its shows as squares.

The card is text and shapes alone, in the system's own fonts, so it needs no
font file and stays a few KB; a phone's share sheet sends it as an image.

>>> card = tonight_picture({"night": "2026-12-05", "shows": 0, "events": [], "games": []}, ["Tonight"], "en")
>>> card.startswith("<svg") and "Tonight" in card
True
"""

from markupsafe import escape

from companion.web.progress.charts import INK, OUTCOME, SQUARE

CARD_WIDTH = 600
LINE_HEIGHT = 30
BACKGROUND = "#12151c"  # the pages' own (site.css --bg): the card looks like the table's pages


def tonight_picture(recap: dict, lines: list[str], lang: str) -> str:
    """The card: a title line, the recap's other lines, and a square per event attempt (a win filled)."""
    texts = "".join(f'<text x="24" y="{48 + i * LINE_HEIGHT}" font-size="{26 if i == 0 else 20}"'
                    f' fill="{INK}">{escape(line)}</text>' for i, line in enumerate(lines))
    top = 48 + len(lines) * LINE_HEIGHT
    squares = []
    x = 24
    for event in recap["events"]:
        for outcome in event["strip"]:
            if outcome == "win":
                squares.append(f'<rect x="{x}" y="{top}" width="{SQUARE * 2}" height="{SQUARE * 2}"'
                               f' fill="{OUTCOME["win"]}"/>')
            else:
                squares.append(f'<rect x="{x + 1}" y="{top + 1}" width="{SQUARE * 2 - 2}" height="{SQUARE * 2 - 2}"'
                               f' fill="none" stroke="{OUTCOME["loss"]}" stroke-width="2"/>')
            x += SQUARE * 2 + 6
        x += 10
    height = top + (SQUARE * 2 + 24 if squares else 0)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" lang="{lang}" viewBox="0 0 {CARD_WIDTH} {height}"'
            f' width="{CARD_WIDTH}" height="{height}" font-family="sans-serif">'
            f'<rect width="100%" height="100%" fill="{BACKGROUND}"/>{texts}{"".join(squares)}</svg>')
