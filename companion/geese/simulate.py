"""Playtesting a draft: many complete games between strategies, and the figures a designer tunes by.

Each game is played from its own seed (derived from the run's seed and the
game's number), so any game replays alone and a run split across processes
gives the same figures. Strategies rotate through the seats game by game,
so a strategy's win rate is not its seat's.

>>> outcome = play_game(DEFAULT_RULES, ("greedy", "hoard", "wintering", "random"), seed=7, number=0)
>>> outcome.seats, sum(outcome.cards_left) == 0 or outcome.ended_by_round
(4, True)
"""

import math
import random
from dataclasses import dataclass, replace

from companion.errors import BadInput
from companion.geese.game import Game
from companion.geese.rules import DEFAULT_RULES, Rules  # noqa: F401  (DEFAULT_RULES: the doctest plays with it)
from companion.geese.scoring import final_scores
from companion.geese.strategies import STRATEGIES, play

Z95 = 1.959964  # two-sided 95 % normal quantile


@dataclass(frozen=True)
class Outcome:
    """One simulated game, reduced to what the statistics need."""

    seats: int
    strategies: tuple[str, ...]  # by seat
    totals: tuple[int, ...]  # by seat
    winner: int  # seat
    turns: int
    rainbow_decided: bool  # without the rainbow reading another player would have won
    bonus_decided: bool  # without the no-goose bonus another player would have won
    cards_left: tuple[int, ...]
    ended_by_round: bool


def check_strategies(names) -> tuple[str, ...]:
    for i, name in enumerate(names):
        if name not in STRATEGIES:
            raise BadInput(f"strategies[{i}]", f"unknown strategy {name!r} (known: {', '.join(sorted(STRATEGIES))})",
                           code="errors.choice")
    if not names:
        raise BadInput("strategies", "name at least one strategy", code="errors.geese.no_strategy")
    return tuple(names)


def seat_strategies(names: tuple[str, ...], seats: int, number: int) -> tuple[str, ...]:
    """Which strategy plays each seat in game `number`: the list cycled, turned one seat per game."""
    return tuple(names[(seat + number) % len(names)] for seat in range(seats))


def play_game(rules: Rules, names: tuple[str, ...], *, seed: int, number: int, seats: int = 4,
              keep: list | None = None) -> Outcome:
    """Play game `number` of the run seeded `seed`; `keep`, if given, receives the Game."""
    rng = random.Random(f"geese:{seed}:{number}")
    game = Game(seats, rng, rules)
    by_seat = seat_strategies(names, seats, number)
    players = [STRATEGIES[name] for name in by_seat]
    while not game.over:
        play(game, players[game.seat](game, rng))
    if keep is not None:
        keep.append(game)
    names_by_seat = [str(s) for s in range(seats)]
    migrations = {str(s): game.migrations[s] for s in range(seats)}
    vp = {str(s): game.wintering_vp[s] for s in range(seats)}
    result = final_scores(names_by_seat, migrations, vp, rules)
    winner = result["winner"]
    without = {}
    for rule in ("rainbow", "no_goose_bonus"):
        if getattr(rules, rule):
            without[rule] = final_scores(names_by_seat, migrations, vp, replace(rules, **{rule: False}))["winner"]
    return Outcome(seats, by_seat, tuple(result["players"][s]["total"] for s in names_by_seat), int(winner),
                   game.turns, without.get("rainbow", winner) != winner,
                   without.get("no_goose_bonus", winner) != winner, tuple(map(len, game.hands)),
                   game.ending)


def play_games(rules: Rules, names: tuple[str, ...], *, seed: int, numbers: range, seats: int) -> list[Outcome]:
    return [play_game(rules, names, seed=seed, number=n, seats=seats) for n in numbers]


def proportion(hits: int, n: int) -> dict:
    """A rate with its 95 % Wilson interval."""
    if n == 0:
        return {"rate": 0.0, "low": 0.0, "high": 0.0, "n": 0}
    p = hits / n
    centre = (p + Z95 ** 2 / (2 * n)) / (1 + Z95 ** 2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / (1 + Z95 ** 2 / n)
    return {"rate": p, "low": max(0.0, centre - half), "high": min(1.0, centre + half), "n": n}


def spread(values: list[int]) -> dict:
    """Mean, standard deviation and quartiles of a list of whole numbers."""
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        return {"mean": 0.0, "sd": 0.0, "min": 0, "q1": 0, "median": 0, "q3": 0, "max": 0}
    mean = sum(ordered) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in ordered) / n)
    at = lambda q: ordered[min(n - 1, int(q * n))]  # noqa: E731  (a nearest-rank quantile)
    return {"mean": mean, "sd": sd, "min": ordered[0], "q1": at(0.25), "median": at(0.5), "q3": at(0.75),
            "max": ordered[-1]}


def statistics(outcomes: list[Outcome]) -> dict:
    """The figures of a run: scores, game length, win rates by seat and strategy, what decided the winners."""
    games = len(outcomes)
    seats = outcomes[0].seats if outcomes else 0
    scores = [t for o in outcomes for t in o.totals]
    winning = [o.totals[o.winner] for o in outcomes]
    by_seat = [proportion(sum(o.winner == s for o in outcomes), games) for s in range(seats)]
    played, won, points = {}, {}, {}
    for o in outcomes:
        for seat, name in enumerate(o.strategies):
            played[name] = played.get(name, 0) + 1
            won[name] = won.get(name, 0) + (o.winner == seat)
            points[name] = points.get(name, 0) + o.totals[seat]
    by_strategy = {name: {**proportion(won[name], played[name]), "mean_score": points[name] / played[name]}
                   for name in sorted(played)}
    first = by_seat[0] if seats else proportion(0, 0)
    fair = 1 / seats if seats else 0.0
    histogram = {}
    for s in scores:
        histogram[s] = histogram.get(s, 0) + 1
    return {
        "games": games, "players": seats,
        "score": spread(scores), "winning_score": spread(winning),
        "score_histogram": dict(sorted(histogram.items())),
        "turns": spread([o.turns for o in outcomes]),
        "rounds": spread([math.ceil(o.turns / o.seats) for o in outcomes]),
        "win_rate_by_seat": by_seat, "win_rate_by_strategy": by_strategy,
        "rainbow_decided": proportion(sum(o.rainbow_decided for o in outcomes), games),
        "no_goose_bonus_decided": proportion(sum(o.bonus_decided for o in outcomes), games),
        "first_player_advantage": {"rate": first["rate"] - fair, "low": first["low"] - fair,
                                   "high": first["high"] - fair, "fair_share": fair},
    }
