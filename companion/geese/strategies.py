"""Players for the simulator: each looks at the table and picks one legal move.

A strategy is a function `(game, rng) -> Move` for the player whose turn it
is; `rng` is the game's seeded random.Random, so a game replays exactly.
They play in good faith: none looks at another player's hand.

>>> sorted(STRATEGIES)
['greedy', 'hoard', 'random', 'wintering']
"""

import random
from collections import Counter
from typing import NamedTuple

from companion.geese.cards import GOOSE, Card
from companion.geese.game import Game
from companion.geese.grouping import best_group

HOARD_TARGET = 5  # the hoarder migrates only groups this large (or when the game is ending)


class Move(NamedTuple):
    """What a player does on a turn: `kind` "arrive" (cards, take) or "migrate" (value, cards)."""

    kind: str
    cards: tuple[Card, ...]
    value: int = 0
    take: Card | None = None


def play(game: Game, move: Move) -> None:
    if move.kind == "arrive":
        game.arrive(list(move.cards), move.take)
    else:
        game.migrate(move.value, list(move.cards))


def _arrival_vp(game: Game, card: Card) -> int:
    """What putting `card` in the ground now would earn."""
    ground = game.ground
    ground.w[card.n] += 1
    vp = ground.arrival_vp(card.n)
    ground.w[card.n] -= 1
    return vp


def _spare(hand: list[Card]) -> Card:
    """The card the hand misses least: of the rarest number in it, not a goose, the highest such number."""
    numbers = Counter(c.n for c in hand)
    return min(hand, key=lambda c: (c.suit == GOOSE, numbers[c.n], -c.n))


def random_player(game: Game, rng: random.Random) -> Move:
    """A baseline: any legal move, each kind of move equally likely."""
    hand = game.hands[game.seat]
    kinds = ["one"] + (["two"] if len(hand) >= 2 else [])
    values = game.migratable(game.seat)
    if values:
        kinds.append("migrate")
    kind = rng.choice(kinds)
    if kind == "one":
        return Move("arrive", (rng.choice(hand),))
    if kind == "two":
        put = tuple(rng.sample(hand, 2))
        lying = sorted(set(game.ground.cards) | set(put))
        return Move("arrive", put, take=rng.choice(lying))
    value = rng.choice(values)
    usable = [c for c in hand if game.ground.usable(c, value)]
    return Move("migrate", tuple(rng.sample(usable, value)), value)


def greedy(game: Game, rng: random.Random) -> Move:
    """Migrate the largest value the hand can, at once; otherwise lay down the least useful card."""
    hand = game.hands[game.seat]
    values = game.migratable(game.seat)
    if values:
        group = best_group(hand, game.ground, values[-1])
        return Move("migrate", tuple(group.cards), group.value)
    return Move("arrive", (_spare(hand),))


def hoard(game: Game, rng: random.Random) -> Move:
    """Build toward big one-suit migrations: swap spare cards for useful ones, migrate only large groups."""
    hand = game.hands[game.seat]
    values = game.migratable(game.seat)
    big = [v for v in values if v >= HOARD_TARGET]
    if values and (big or game.ending or len(hand) <= values[-1] + 1):
        group = max((best_group(hand, game.ground, v, avoid_geese=True) for v in (big or values)),
                    key=lambda g: g.vp)
        return Move("migrate", tuple(group.cards), group.value)
    if len(hand) < 2 or game.ending:
        return Move("arrive", (_spare(hand),))
    suits = Counter(c.suit for c in hand if c.suit != GOOSE)
    suit = suits.most_common(1)[0][0] if suits else GOOSE
    first = _spare(hand)
    rest = list(hand)
    rest.remove(first)
    second = _spare(rest)
    lying = set(game.ground.cards) | {first, second}
    take = max(lying, key=lambda c: (c.suit == suit, c.n))
    return Move("arrive", (first, second), take=take)


def wintering(game: Game, rng: random.Random) -> Move:
    """Hunt the wintering ground's VP: lay the card that scores most, migrate when nothing scores."""
    hand = game.hands[game.seat]
    best = max(hand, key=lambda c: (_arrival_vp(game, c), game.ground.top(c.n)))
    if _arrival_vp(game, best) > 0:
        return Move("arrive", (best,))
    values = game.migratable(game.seat)
    if values and values[-1] >= 3 or values and game.ending:
        group = best_group(hand, game.ground, values[-1])
        return Move("migrate", tuple(group.cards), group.value)
    return Move("arrive", (best,))


STRATEGIES = {"greedy": greedy, "hoard": hoard, "wintering": wintering, "random": random_player}
