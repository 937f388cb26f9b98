"""How each timer looks on the pages: its own symbol and its colour, so colour is never the only cue.

This is the one table of symbols: templates use it directly, the scripts get it
as a data attribute, and the past-show timeline draws with it.
"""

LOOKS: dict[str, dict[str, str]] = {
    "red": {"symbol": "●", "fill": "#ef5350"},
    "orange": {"symbol": "▲", "fill": "#ffa040"},
    "yellow": {"symbol": "■", "fill": "#ffe45c"},
    "green": {"symbol": "◆", "fill": "#5cc460"},
    "blue": {"symbol": "★", "fill": "#4aa8ff"},
    "purple": {"symbol": "✚", "fill": "#c070e0"},
}
