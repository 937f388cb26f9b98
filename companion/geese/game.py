"""A game of 帰る雁 from a seeded deal to its end: hands, the wintering ground, each move checked.

Every move is checked against the rules before it changes anything (a
wrong one raises BadInput naming the move), and the game keeps its record
in the same form `score()` reads, so a played game can be scored again.

>>> import random
>>> game = Game(4, random.Random(1))
>>> [len(hand) for hand in game.hands], len(game.ground)
([18, 18, 18, 18], 8)
>>> vp = game.arrive([game.hands[0][0]]); game.seat, len(game.hands[0])
(1, 17)
"""

import random

from companion.errors import BadInput
from companion.geese.cards import Card, deck
from companion.geese.ground import WinteringGround
from companion.geese.rules import DEFAULT_RULES, Rules


class Game:
    """The table during one game: whose turn, every hand, the ground, VP and migrations so far."""

    def __init__(self, players: int, rng: random.Random, rules: Rules = DEFAULT_RULES):
        hand = rules.hand_size(players)
        cards = deck(rules, players)
        rng.shuffle(cards)
        self.rules, self.players = rules, players
        self.hands: list[list[Card]] = [cards[i * hand:(i + 1) * hand] for i in range(players)]
        self.setup = cards[players * hand:]
        self.dealt = [list(h) for h in self.hands]  # the deal, as a record carries it
        self.ground = WinteringGround(self.setup, rules)
        self.migrations: list[list[tuple[int, list[Card]]]] = [[] for _ in range(players)]
        self.wintering_vp = [0] * players
        self.seat = 0  # whose turn: seats count from the start player
        self.turns = 0
        self.ending = False  # a hand has emptied: this round is the last
        self.over = False
        self.actions: list[dict] = []

    def usable_counts(self, seat: int) -> dict[int, int]:
        """For each value some card of the hand can be used as now, how many of its cards can."""
        w = self.ground.w
        by_number = [0] * len(w)
        for card in self.hands[seat]:
            by_number[card.n] += 1
        counts: dict[int, int] = {}
        for n, held in enumerate(by_number):
            if held:
                for value in range(n, n + w[n] + 1):
                    counts[value] = counts.get(value, 0) + held
        return counts

    def migratable(self, seat: int) -> list[int]:
        """Every value the hand at `seat` can migrate as now (enough usable cards), smallest first."""
        return sorted(v for v, count in self.usable_counts(seat).items() if count >= v)

    def arrive(self, cards: list[Card], take: Card | None = None) -> int:
        """Birds arrive: 1 card, or 2 with 1 taken back; returns the VP earned."""
        self._check_playing()
        hand = self.hands[self.seat]
        if len(cards) not in (1, 2):
            raise BadInput("arrive", "birds arrive as 1 card, or 2 cards with 1 taken back",
                           code="geese.refused.arrive_count")
        if (take is None) != (len(cards) == 1):
            raise BadInput("take", "a card is taken back exactly when 2 cards arrive", code="geese.refused.take_one")
        _check_in_hand(hand, cards, "arrive")
        if take is not None and not (self.ground.holds(take) or take in cards):
            raise BadInput("take", f"no {take.suit} {take.n} lies in the wintering ground",
                           code="geese.refused.take_missing", params={"n": take.n, "suit": take.suit})
        earned = 0
        for card in cards:
            hand.remove(card)
            earned += self.ground.put(card)
        if take is not None:
            self.ground.take(take)
            hand.append(take)
        self.wintering_vp[self.seat] += earned
        action = {"player": self.seat, "arrive": [c.to_json() for c in cards]}
        if take is not None:
            action["take"] = take.to_json()
        self._done(action)
        return earned

    def migrate(self, value: int, cards: list[Card]) -> None:
        """Birds migrate: exactly `value` cards from hand, each usable as `value` now."""
        self._check_playing()
        hand = self.hands[self.seat]
        if len(cards) != value:
            raise BadInput("migrate.cards", f"migrating as {value} takes exactly {value} cards, not {len(cards)}",
                           code="geese.refused.migrate_count", params={"value": value, "cards": len(cards)})
        _check_in_hand(hand, cards, "migrate.cards")
        for i, card in enumerate(cards):
            if not self.ground.usable(card, value):
                raise BadInput(f"migrate.cards[{i}]", f"a {card.n} cannot be used as {value} now",
                               code="geese.refused.not_usable_as", params={"n": card.n, "value": value})
        for card in cards:
            hand.remove(card)
        self.migrations[self.seat].append((value, list(cards)))
        self._done({"player": self.seat, "migrate": {"value": value, "cards": [c.to_json() for c in cards]}})

    def _check_playing(self) -> None:
        if self.over:
            raise BadInput("move", "the game is over", code="geese.refused.over")

    def _done(self, action: dict) -> None:
        self.actions.append(action)
        self.turns += 1
        if not self.hands[self.seat]:
            self.ending = True
        if self.ending and self.seat == self.players - 1:
            self.over = True  # the round is finished: up to the player before the start player
        else:
            self.seat = (self.seat + 1) % self.players

    def record(self, names: list[str], *, deal: bool = False) -> dict:
        """The game as a record `score()` replays (seats named by `names`; `deal`: with every dealt hand)."""
        actions = [{**a, "player": names[a["player"]]} for a in self.actions]
        record = {"players": list(names), "wintering": [c.to_json() for c in self.setup], "actions": actions}
        if deal:
            record["hands"] = {name: [c.to_json() for c in hand] for name, hand in zip(names, self.dealt)}
        return record

    def cards_in_play(self) -> int:
        """Every card still counted: hands, the ground and migrations (the deck's size, always)."""
        migrated = sum(len(cards) for seat in self.migrations for _, cards in seat)
        return sum(map(len, self.hands)) + len(self.ground) + migrated


def _check_in_hand(hand: list[Card], cards: list[Card], field: str) -> None:
    left = list(hand)
    for i, card in enumerate(cards):
        if card not in left:
            raise BadInput(f"{field}[{i}]", f"no {card.suit} {card.n} in the hand",
                           code="geese.refused.not_in_hand_card", params={"n": card.n, "suit": card.suit})
        left.remove(card)
