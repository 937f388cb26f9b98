"""帰る雁 simulator speed: 10 000 four-player games of the four strategies, as `companion geese simulate` plays them.

Prints figures; it asserts nothing. Target: 10 000 four-player games in under a minute on a 2-core box.

    python bench/geese_simulate.py [--games 10000] [--players 4] [--seed 1] [--jobs 2]
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.cli.geese import run  # noqa: E402
from companion.geese import DEFAULT_RULES  # noqa: E402
from companion.geese.simulate import statistics  # noqa: E402
from companion.geese.strategies import STRATEGIES  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    names = tuple(STRATEGIES)
    for jobs in sorted({1, args.jobs}):
        started = time.perf_counter()
        outcomes = run(DEFAULT_RULES, names, games=args.games, seed=args.seed, players=args.players, jobs=jobs,
                       parallel_from=1)
        seconds = time.perf_counter() - started
        stats = statistics(outcomes)
        print(f"{args.games} games of {args.players} in {seconds:.2f} s with {jobs} process(es): "
              f"{args.games / seconds:.0f} games/s, {sum(o.turns for o in outcomes) / seconds:.0f} turns/s "
              f"(mean score {stats['score']['mean']:.1f}, target: under 60 s)")


if __name__ == "__main__":
    main()
