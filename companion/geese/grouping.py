"""The best way to migrate from a hand: for a value, which cards make the highest-scoring group.

Used by the migration checker (a person's hand) and by the simulator's
strategies alike.

>>> ground = WinteringGround([Card(3, "gull"), Card(3, "crane")])
>>> hand = [Card(3, "gull"), Card(3, "thrush"), Card(5, "gull"), Card(5, "gull"), Card(5, "eagle")]
>>> best_group(hand, ground, 5).vp
15
"""

from dataclasses import dataclass

from companion.geese.cards import GOOSE, PLAIN_SUITS, Card
from companion.geese.ground import WinteringGround
from companion.geese.scoring import MigrationScore, score_migration


@dataclass(frozen=True)
class Group:
    """A migration that could be made: its cards and how they would score."""

    value: int
    cards: list[Card]
    score: MigrationScore

    @property
    def vp(self) -> int:
        return self.score.vp


def usable_cards(hand, ground: WinteringGround, value: int) -> list[Card]:
    return [card for card in hand if ground.usable(card, value)]


def best_group(hand, ground: WinteringGround, value: int, *, avoid_geese: bool = False) -> Group | None:
    """The highest-scoring `value` cards of `hand` usable as `value` now (None if too few)."""
    usable = usable_cards(hand, ground, value)
    if len(usable) < value:
        return None
    rules = ground.rules
    geese = [c for c in usable if c.suit == GOOSE]
    if avoid_geese and len(usable) - len(geese) >= value:
        usable, geese = [c for c in usable if c.suit != GOOSE], []
    candidates = []
    if rules.rainbow:
        one_each = {}
        for card in usable:
            one_each.setdefault(card.suit, card)
        if len(one_each) >= value:
            firsts = sorted(one_each.values(), key=lambda c: c.suit == GOOSE)  # plain suits first
            candidates.append(firsts[:value])
    for suit in PLAIN_SUITS:
        same = [c for c in usable if c.suit == suit]
        rest = [c for c in usable if c.suit != suit and c.suit != GOOSE]
        candidates.append((same + geese + rest)[:value] if len(same) + len(geese) <= value
                          else (same + geese)[:value])
    scored = [Group(value, cards, score_migration(cards, value, rules)) for cards in candidates]
    return max(scored, key=lambda g: (g.vp, -g.score.geese))


def every_value(hand, ground: WinteringGround) -> list[Group]:
    """The best group for each value the hand can migrate as now, smallest value first."""
    top = max((ground.top(card.n) for card in hand), default=0)
    groups = (best_group(hand, ground, value) for value in range(1, top + 1))
    return [g for g in groups if g is not None]


def check_hand(hand: list[Card], w: dict[int, int], rules=None) -> dict:
    """The migration checker: each value the hand can migrate as with w(n) as given, its best group explained.

    >>> hand = [Card(3, "gull"), Card(3, "crane"), Card(5, "gull"), Card(5, "gull"), Card(5, "eagle")]
    >>> found = check_hand(hand, {3: 2})
    >>> found["values"], found["best"]["value"], found["best"]["vp"]
    ([5], 5, 15)
    """
    from companion.geese.rules import DEFAULT_RULES
    from companion.geese.sheet import explain

    ground = WinteringGround(rules=rules or DEFAULT_RULES)
    for n, count in w.items():
        ground.w[n] = count
    groups = every_value(hand, ground)
    explained = [explain(g.cards, g.value, ground.rules) for g in groups]
    best = max(explained, key=lambda g: (g["vp"], g["value"]), default=None)
    return {"ranges": {str(n): [n, ground.top(n)] for n in range(1, ground.rules.max_number + 1)},
            "values": [g.value for g in groups], "groups": explained, "best": best}
