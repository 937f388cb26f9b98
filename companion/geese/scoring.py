"""Final scoring: each migration by its largest suit (geese wild) or as a rainbow, the no-goose bonus, ranking.

>>> m = score_migration([Card(3, "gull"), Card(3, "gull"), Card(4, "goose"), Card(5, "crane"), Card(5, "eagle")], 5)
>>> (m.largest_suit, m.rainbow, m.vp)
(3, False, 15)
>>> score_migration([Card(2, "gull"), Card(2, "goose"), Card(3, "crane")], 3).vp
9
"""

from dataclasses import dataclass

from companion.geese.cards import GOOSE, Card
from companion.geese.rules import DEFAULT_RULES, Rules


@dataclass(frozen=True)
class MigrationScore:
    """One migration's reading: `vp` = cards × the better of its largest suit group and (rainbow) its size."""

    cards: int
    value: int
    largest_suit: int
    rainbow: bool  # two or more cards, each of a different suit (geese too): the rainbow reading applies
    vp: int
    geese: int

    def to_json(self) -> dict:
        return {"cards": self.cards, "value": self.value, "largest_suit": self.largest_suit,
                "rainbow": self.rainbow, "vp": self.vp}


def largest_suit(cards) -> int:
    """The largest group of one suit, geese joining it."""
    suits: dict[str, int] = {}
    for card in cards:
        suits[card.suit] = suits.get(card.suit, 0) + 1
    geese = suits.pop(GOOSE, 0)
    return max(suits.values(), default=0) + geese


def is_rainbow(cards) -> bool:
    """Two or more cards, every one of a different suit (geese included)."""
    suits = [card.suit for card in cards]
    return len(suits) > 1 and len(set(suits)) == len(suits)


def score_migration(cards, value: int, rules: Rules = DEFAULT_RULES) -> MigrationScore:
    cards = list(cards)
    size, largest = len(cards), largest_suit(cards)
    rainbow = rules.rainbow and is_rainbow(cards)
    group = max(largest, size) if rainbow else largest
    return MigrationScore(size, value, largest, rainbow, size * group, sum(c.suit == GOOSE for c in cards))


def no_goose_bonus(migrations: list[MigrationScore], rules: Rules = DEFAULT_RULES) -> int:
    """(number of migrations) ** 2 for a player none of whose migrations holds a goose."""
    if not rules.no_goose_bonus or any(m.geese for m in migrations):
        return 0
    return len(migrations) ** rules.bonus_power


def player_score(migrations: list[MigrationScore], wintering_vp: int, rules: Rules = DEFAULT_RULES) -> dict:
    bonus = no_goose_bonus(migrations, rules)
    return {"migrations": [m.to_json() for m in migrations], "no_goose_bonus": bonus, "wintering_vp": wintering_vp,
            "total": sum(m.vp for m in migrations) + bonus + wintering_vp}


def ranking(players: list[str], totals: dict[str, int]) -> list[str]:
    """Most VP first; a tie goes to the player earlier in turn order (from the start player).

    >>> ranking(["ann", "ben", "cho"], {"ann": 10, "ben": 12, "cho": 12})
    ['ben', 'cho', 'ann']
    """
    seat = {name: i for i, name in enumerate(players)}
    return sorted(players, key=lambda name: (-totals[name], seat[name]))


def final_scores(players: list[str], migrations: dict[str, list[tuple[int, list[Card]]]],
                 wintering_vp: dict[str, int], rules: Rules = DEFAULT_RULES) -> dict:
    """The contract's result: each player's migrations, bonus, wintering VP and total; ranking; winner."""
    result = {name: player_score([score_migration(cards, value, rules) for value, cards in migrations.get(name, [])],
                                 wintering_vp.get(name, 0), rules) for name in players}
    order = ranking(players, {name: result[name]["total"] for name in players})
    return {"players": result, "ranking": order, "winner": order[0]}
