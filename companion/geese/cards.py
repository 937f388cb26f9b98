"""The bird cards of 帰る雁: a number (head count) 1–6 and one of five suits, geese being wild.

A card is a small immutable value; the deck is built from the rule
parameters, so a designer's draft with other counts builds its own deck.

>>> Card(3, "gull")
Card(n=3, suit='gull')
>>> len(deck(DEFAULT_RULES, 4)), len(deck(DEFAULT_RULES, 3))
(80, 68)
"""

from collections import Counter
from typing import NamedTuple

from companion.errors import BadInput
from companion.geese.rules import DEFAULT_RULES, GOOSE, PLAIN_SUITS, SUITS, Rules

__all__ = ["CARD_FIELDS", "Card", "GOOSE", "PLAIN_SUITS", "SUITS", "copies", "deck", "parse_card"]
CARD_FIELDS = frozenset({"n", "suit"})


class Card(NamedTuple):
    """One bird card: its number `n` and its `suit`."""

    n: int
    suit: str

    def to_json(self) -> dict:
        return {"n": self.n, "suit": self.suit}


def copies(rules: Rules, players: int) -> Counter:
    """How many of each card the deck for `players` holds."""
    removed = set(rules.removed_numbers(players))
    count = Counter()
    for n in range(1, rules.max_number + 1):
        if n in removed:
            continue
        for suit in PLAIN_SUITS:
            count[Card(n, suit)] = rules.copies_per_suit
        if rules.geese.get(n, 0):
            count[Card(n, GOOSE)] = rules.geese[n]
    return count


def deck(rules: Rules, players: int) -> list[Card]:
    """The cards played with `players`, sorted (shuffle them with a seeded random.Random)."""
    return sorted(copies(rules, players).elements())


def parse_card(value, field: str, rules: Rules = DEFAULT_RULES, players: int | None = None) -> Card:
    """A card from its JSON form {"n": 1..6, "suit": ...}, or BadInput naming `field`.

    With `players`, the card must also be in that game's deck (no goose 5, no 6 with 3 players).
    """
    if not isinstance(value, dict):
        raise BadInput(field, 'expected a card like {"n": 3, "suit": "gull"}', code="errors.shape")
    unknown = sorted(set(value) - CARD_FIELDS)
    if unknown:
        raise BadInput(f"{field}.{unknown[0]}", "unknown field (a card has n and suit)", code="errors.unknown_field")
    n, suit = value.get("n"), value.get("suit")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= rules.max_number:
        raise BadInput(f"{field}.n", f"expected a number 1–{rules.max_number}, got {_show(n)}",
                       code="errors.range", params={"low": 1, "high": rules.max_number})
    if suit not in SUITS:
        raise BadInput(f"{field}.suit", f"expected one of {', '.join(SUITS)}, got {_show(suit)}", code="errors.choice")
    card = Card(n, suit)
    if players is None:
        return card
    if suit == GOOSE and not rules.geese.get(n, 0):
        raise BadInput(field, f"there is no goose {n} in the deck", code="geese.refused.no_goose", params={"n": n})
    if n in rules.removed_numbers(players):
        raise BadInput(field, f"the {n}s are taken out of the deck for {players} players",
                       code="geese.refused.removed", params={"n": n, "players": players})
    return card


def _show(value) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return "nothing" if value is None else text[:40]
