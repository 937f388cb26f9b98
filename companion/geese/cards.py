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
from companion.fields import choice, record, whole
from companion.geese.rules import DEFAULT_RULES, GOOSE, PLAIN_SUITS, SUITS, Rules

__all__ = ["CARD_FIELDS", "Card", "GOOSE", "PLAIN_SUITS", "SUITS", "copies", "deck", "parse_card"]
CARD_FIELDS = ("n", "suit")


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
    record(value, field, CARD_FIELDS)
    n = whole(value.get("n"), f"{field}.n", 1, rules.max_number)
    suit = choice(value.get("suit"), f"{field}.suit", SUITS)
    card = Card(n, suit)
    if players is None:
        return card
    if suit == GOOSE and not rules.geese.get(n, 0):
        raise BadInput(field, f"there is no goose {n} in the deck", code="geese.refused.no_goose", params={"n": n})
    if n in rules.removed_numbers(players):
        raise BadInput(field, f"the {n}s are taken out of the deck for {players} players",
                       code="geese.refused.removed", params={"n": n, "players": players})
    return card

