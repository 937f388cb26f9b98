"""The wintering ground: the cards every player has put down, by number, widening each number's range.

w(n) is how many cards of number n lie there; a card of number n may then
be used as any value n … n + w(n). A card put there scores on its own, just
after it lies there: reaching the threshold (9) scores w(n), past it a
fixed 1.

>>> ground = WinteringGround()
>>> [ground.put(Card(6, "gull")) for _ in range(4)]
[0, 0, 3, 1]
>>> ground.top(6), ground.usable(Card(5, "crane"), 5)
(10, True)
"""

from collections import Counter

from companion.geese.cards import Card
from companion.geese.rules import DEFAULT_RULES, Rules


class WinteringGround:
    """The shared cards in the middle of the table, and the VP each arrival earns."""

    def __init__(self, cards=(), rules: Rules = DEFAULT_RULES):
        self.rules = rules
        self.cards: Counter = Counter(cards)  # laid out at setup: they score nothing
        self.w = [0] * (rules.max_number + 1)
        for card in self.cards.elements():
            self.w[card.n] += 1

    def top(self, n: int) -> int:
        """The largest value a card of number n may be used as now."""
        return n + self.w[n]

    def usable(self, card: Card, value: int) -> bool:
        return card.n <= value <= card.n + self.w[card.n]

    def values(self, n: int) -> range:
        return range(n, self.top(n) + 1)

    def put(self, card: Card) -> int:
        """Lay `card` here; the VP it earns."""
        self.cards[card] += 1
        self.w[card.n] += 1
        return self.arrival_vp(card.n)

    def arrival_vp(self, n: int) -> int:
        """What a card of number n that has just arrived earns (w(n) already counts it)."""
        reach = n + self.w[n]
        if reach == self.rules.threshold:
            return self.w[n]
        return self.rules.beyond_vp if reach > self.rules.threshold else 0

    def take(self, card: Card) -> None:
        """Take `card` back into a hand (the caller has checked it lies here)."""
        self.cards[card] -= 1
        if not self.cards[card]:
            del self.cards[card]
        self.w[card.n] -= 1

    def holds(self, card: Card) -> bool:
        return self.cards[card] > 0

    def counts(self) -> dict[str, int]:
        """w(n) for every number, keyed as JSON keys are ("1" … "6")."""
        return {str(n): self.w[n] for n in range(1, self.rules.max_number + 1)}

    def __len__(self) -> int:
        return sum(self.w)
