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


def best_group(hand, ground: WinteringGround, value: int, *, avoid_geese: bool = False) -> Group | None:
    """The highest-scoring `value` cards of `hand` usable as `value` now (None if too few).

    A rainbow (one card of each suit) scores value × value, which no suit group can beat, so
    it is taken when the hand has enough suits; otherwise the largest suit, geese joining it.
    Geese are spent only where they add to the score (`avoid_geese`: not at all, if the hand can).
    """
    usable = [card for card in hand if ground.usable(card, value)]
    if len(usable) < value:
        return None
    rules = ground.rules
    by_suit: dict[str, list[Card]] = {}
    for card in usable:
        by_suit.setdefault(card.suit, []).append(card)
    geese = by_suit.pop(GOOSE, [])
    if avoid_geese and len(usable) - len(geese) >= value:
        geese = []
    if rules.rainbow and len(by_suit) + (1 if geese else 0) >= value:
        chosen = [cards[0] for cards in by_suit.values()][:value]
        chosen += geese[:value - len(chosen)]
    else:
        suit = max(PLAIN_SUITS, key=lambda s: len(by_suit.get(s, ())))
        same = by_suit.get(suit, [])
        rest = [card for s, cards in by_suit.items() if s != suit for card in cards]
        chosen = (same + geese + rest)[:value]
    return Group(value, chosen, score_migration(chosen, value, rules))


def every_value(hand, ground: WinteringGround) -> list[Group]:
    """The best group for each value the hand can migrate as now, smallest value first."""
    top = max((ground.top(card.n) for card in hand), default=0)
    groups = (best_group(hand, ground, value) for value in range(1, top + 1))
    return [g for g in groups if g is not None]


SPLIT_BUDGET = 1500  # hands looked at when splitting a whole hand; keeps a phone's answer well under a second


def best_split(hand, ground: WinteringGround, budget: int = SPLIT_BUDGET) -> list[Group]:
    """Migrations that use up as much of `hand` as scores best, the ground staying as it is now (largest first).

    Each step tries the best group of every value the cards left can migrate as; hands met
    twice are worked out once, and the search stops after `budget` hands (then it is the best
    found, not proven best).

    >>> ground = WinteringGround([Card(2, "gull")])
    >>> [g.value for g in best_split([Card(2, "gull"), Card(2, "crane"), Card(1, "eagle"), Card(3, "eagle")], ground)]
    [3, 1]
    """
    seen: dict[tuple, tuple[int, list[Group]]] = {}

    def search(cards: tuple) -> tuple[int, list[Group]]:
        if cards in seen:
            return seen[cards]
        best: tuple[int, list[Group]] = (0, [])
        if len(seen) < budget:
            seen[cards] = best  # while this hand is being worked out
            for group in every_value(cards, ground):
                left = list(cards)
                for card in group.cards:
                    left.remove(card)
                vp, rest = search(tuple(left))
                if vp + group.vp > best[0]:
                    best = (vp + group.vp, [group, *rest])
        seen[cards] = best
        return best

    return sorted(search(tuple(sorted(hand)))[1], key=lambda g: -g.value)


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
    split = [explain(g.cards, g.value, ground.rules) for g in best_split(hand, ground)]
    return {"ranges": {str(n): [n, ground.top(n)] for n in range(1, ground.rules.max_number + 1)},
            "values": [g.value for g in groups], "groups": explained, "best": best,
            "split": {"migrations": split, "vp": sum(m["vp"] for m in split)}}
