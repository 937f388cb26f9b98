"""How each timer and each bird looks, and each moment sounds, on the pages: colour is never the only cue.

This is the one table of symbols, one shape for every area ({"symbol", "fill"}):
templates use it directly, the scripts get it as data, and the past-show
timeline draws with it. The timers' symbols come from the rules' own table
(companion.skyrockets.colours.SYMBOLS), which the printed cradles share.
"""

from companion.skyrockets.colours import SYMBOLS

# Each timer's fill on the dark pages; tests/web/test_colour_blind.py keeps them apart for colour-blind eyes.
FILLS = {"red": "#f06965", "orange": "#f8a041", "yellow": "#ffeb5c", "green": "#97d790", "blue": "#5fd1ff",
         "purple": "#c177d9"}
LOOKS: dict[str, dict[str, str]] = {colour: {"symbol": symbol.glyph, "fill": FILLS[colour]}
                                    for colour, symbol in SYMBOLS.items()}

# Über den Wolken: each species (and the neutral birds), and the two sexes.
BIRD_LOOKS: dict[str, dict[str, str]] = {
    "crane": {"symbol": "♥", "fill": "#f48fb1"},
    "kite": {"symbol": "▲", "fill": "#ffb74d"},
    "goose": {"symbol": "■", "fill": "#d7c4a3"},
    "swallow": {"symbol": "★", "fill": "#b39ddb"},
    "neutral": {"symbol": "○", "fill": "#ffffff"},
}
SEX_SYMBOLS = {"M": "♂", "F": "♀"}

# How each moment sounds on a phone that opted in, told apart by ear: the page plays the notes with Web
# Audio ((note, seconds), a None note a rest; the buzzer's own tunes, and one for an advance) and vibrates
# the pattern (ms on, off, on, ...) where the phone can.
SOUNDS: dict[str, dict] = {
    "low_sand": {"notes": [["E5", 0.12]], "vibrate": [80]},
    "runout": {"notes": [["A5", 0.15], ["E5", 0.15]] * 3, "vibrate": [300, 100, 300, 100, 300]},
    "advance": {"notes": [["C5", 0.1], ["G5", 0.25]], "vibrate": [60, 60, 60]},
    "win": {"notes": [["C4", 0.12], ["E4", 0.12], ["G4", 0.12], ["C5", 0.5]], "vibrate": [100, 50, 100, 50, 400]},
    "loss": {"notes": [["G4", 0.3], ["E4", 0.3], ["C4", 0.3], ["A3", 0.8]], "vibrate": [700]},
}
