"""`companion geese simulate`: a 帰る雁 rules draft played many times, its figures printed for the designer.

The games are played by the pure simulator (companion.geese.simulate);
this shell reads the rule files, spreads the games over the machine's cores
(each game has its own seed, so the figures do not depend on how they were
split), draws a progress bar when stderr is a terminal, and writes the plot.
"""

import json
import multiprocessing
import os
import sys
import time
from functools import partial

from companion.cli.common import Refusal
from companion.errors import BadInput
from companion.geese.plot import plot
from companion.geese.report import lines
from companion.geese.rules import DEFAULT_RULES, Rules
from companion.geese.simulate import check_strategies, play_games, statistics
from companion.geese.strategies import STRATEGIES

MAX_GAMES = 1_000_000
CHUNK = 250  # games per piece of work handed to a process: small enough for a smooth progress bar
PARALLEL_FROM = 2_000  # fewer games finish before a second process would have started
BAR = 30
MAX_JOBS = 64

ORDER = 50  # place in `companion --help`


def read_rules(path: str | None) -> Rules:
    if path is None:
        return DEFAULT_RULES
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise Refusal(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError:
        raise Refusal(f"{path}: not UTF-8 text") from None
    try:
        return Rules.from_toml(text)
    except BadInput as e:
        raise Refusal(f"{path}: {e}") from None


def run(rules: Rules, names, *, games: int, seed: int, players: int, jobs: int, progress=None,
        parallel_from: int = PARALLEL_FROM) -> list:
    """Every game's outcome, in game order, however many processes played them."""
    pieces = [range(start, min(games, start + CHUNK)) for start in range(0, games, CHUNK)]
    work = partial(_piece, rules, names, seed, players)
    outcomes = []
    if jobs > 1 and games >= parallel_from:
        with multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork").Pool(jobs) as pool:
            for done in pool.imap(work, pieces):
                outcomes.extend(done)
                progress and progress(len(outcomes), games)
    else:
        for piece in pieces:
            outcomes.extend(work(piece))
            progress and progress(len(outcomes), games)
    return outcomes


def _piece(rules, names, seed, players, numbers):
    return play_games(rules, names, seed=seed, numbers=numbers, seats=players)


def progress_bar(label: str):
    """A progress bar on stderr, or nothing when stderr is not a terminal (a pipe, a log, a test)."""
    if not sys.stderr.isatty():
        return None

    def draw(done: int, total: int) -> None:
        filled = BAR * done // total
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (BAR - filled)}] {done}/{total}")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return draw


def cmd_simulate(args) -> int:
    rules = read_rules(args.rules)
    other = read_rules(args.compare) if args.compare else None
    try:
        names = check_strategies([n.strip() for n in args.strategies.split(",") if n.strip()])
        for r in (rules, other):
            if r is not None:
                r.hand_size(args.players)
    except BadInput as e:
        raise Refusal(str(e)) from None
    if not 1 <= args.games <= MAX_GAMES:
        raise Refusal(f"--games: expected 1–{MAX_GAMES}, got {args.games}")
    if args.jobs is not None and not 1 <= args.jobs <= MAX_JOBS:
        raise Refusal(f"--jobs: expected 1–{MAX_JOBS}, got {args.jobs}")
    jobs = args.jobs or min(2, os.cpu_count() or 1)
    series = {}
    for label, r in (("rules", rules), ("compare", other)):
        if r is None:
            continue
        started = time.perf_counter()
        outcomes = run(r, names, games=args.games, seed=args.seed, players=args.players, jobs=jobs,
                       progress=progress_bar(label))
        stats = statistics(outcomes)
        stats["seconds"] = round(time.perf_counter() - started, 3)
        stats["rules"] = r.to_json()
        stats["rules_file"] = (args.rules if label == "rules" else args.compare) or "draft 6 (built in)"
        series[label] = stats
    if args.plot:
        try:
            with open(args.plot, "w", encoding="utf-8") as f:
                f.write(plot(series))
        except OSError as e:
            raise Refusal(f"{args.plot}: cannot write ({e.strerror})") from None
    if args.json:
        print(json.dumps(series, ensure_ascii=False))
    else:
        for label, stats in series.items():
            print(f"{label}: {stats['rules_file']}; {stats['games']} games of {args.players} in "
                  f"{stats['seconds']:.1f} s, seed {args.seed}, strategies {','.join(names)}")
        print("\n".join(lines(series)))
        print("rates are shares of games (players' for strategies) with their 95 % intervals")
        if args.plot:
            print(f"plot: {args.plot}")
    return 0


def register(sub) -> None:
    geese = sub.add_parser("geese", help="帰る雁 tools for the game's designer")
    tools = geese.add_subparsers(dest="tool", required=True, metavar="TOOL")
    simulate = tools.add_parser("simulate", help="play many games between strategies and print the figures")
    simulate.add_argument("--players", type=int, metavar="N", default=4, help="players per game (default 4)")
    simulate.add_argument("--games", type=int, metavar="K", default=1000, help="games to play (default 1000)")
    simulate.add_argument("--seed", type=int, metavar="S", default=1,
                          help="the run's seed: the same seed plays the same games")
    simulate.add_argument("--rules", metavar="FILE", help="a TOML file of rule parameters (default: draft 6)")
    simulate.add_argument("--compare", metavar="FILE", help="a second rule set, played on the same seeds")
    simulate.add_argument("--strategies", metavar="NAMES", default=",".join(STRATEGIES),
                          help=f"strategies by seat, cycled and turned each game (known: {', '.join(STRATEGIES)})")
    simulate.add_argument("--plot", metavar="FILE.svg", help="write the figures as an SVG picture")
    simulate.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    simulate.add_argument("--jobs", type=int, metavar="N", help="processes to play in (default: up to 2 cores)")
    simulate.set_defaults(func=cmd_simulate)
