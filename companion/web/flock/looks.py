"""How each species is drawn: a colour and a symbol, so no bird is told apart by colour alone."""

LOOKS = {
    "crane": {"colour": "#f48fb1", "symbol": "♥"},
    "kite": {"colour": "#ffb74d", "symbol": "▲"},
    "goose": {"colour": "#d7c4a3", "symbol": "■"},
    "swallow": {"colour": "#b39ddb", "symbol": "★"},
    "neutral": {"colour": "#ffffff", "symbol": "○"},
}
SEX_SYMBOLS = {"M": "♂", "F": "♀"}
