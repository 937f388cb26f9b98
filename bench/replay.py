"""Replay speed: a generated 10-minute show log, replayed as `companion replay` does.

Prints figures; it asserts nothing. Target: <= 50 ms per replay. How replay grows with a
log's length: bench/replay_growth.py.

    python bench/replay.py [--minutes 10] [--runs 20] [--seed 1]
"""

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.skyrockets import COLOURS, Setup, Show, parse_event, replay, setup_line  # noqa: E402

MARATHON = {"id": "marathon", "name": "Marathon", "hand_size": 4, "countdown": "purple", "countdown_start": 9,
            "running": ["red", "orange", "yellow", "green", "purple"], "lying": ["blue"], "rules": ""}


def generate(minutes: float, seed: int) -> list[str]:
    """Play a show as a careful table would: turn glasses that run low, knock one over now and then,
    turn the countdown once it is empty, and let sensors chatter through `side` on some turns."""
    rng = random.Random(seed)
    setup = Setup(parse_event(MARATHON), durations={c: d * rng.uniform(0.95, 1.05) for c, d in
                                                    zip(COLOURS, (30, 40, 50, 60, 70, 80))},
                  runout_grace_s=1.0, advance_tolerance_s=1.0)
    show = Show(setup)
    lines = [setup_line(setup)]
    t, end = 0.0, minutes * 60
    while t < end and show.outcome == "running":
        t = round(t + rng.uniform(0.5, 3.0), 3)  # the next card played
        show.advance(t)
        for colour, timer in show.timers.items():
            if not timer.in_play:
                continue
            top = timer.glass.top(t)
            ready = timer.role == "countdown" and timer.state(t) == "empty" and rng.random() < 0.5
            low = timer.role == "timer" and timer.glass.pose.upright and top < rng.uniform(1, 9)
            if ready or low or (timer.state(t) == "lying" and rng.random() < 0.05):
                if rng.random() < 0.2 and timer.glass.pose.upright:  # a slow turn seen through `side`
                    lines.append({"t": t, "type": "pose", "timer": colour, "pose": "side"})
                    t = round(t + 0.05, 3)
                    pose = timer.glass.pose.turned.value
                    lines.append({"t": t, "type": "pose", "timer": colour, "pose": pose})
                    show.pose(t, colour, pose)
                else:
                    lines.append({"t": t, "type": "flip", "timer": colour})
                    show.flip(t, colour)
    lines.append({"t": t, "type": "end"})
    return [json.dumps(line) for line in lines]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    log = generate(args.minutes, args.seed)
    text = "\n".join(log) + "\n"
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        result = replay(text.splitlines()).result()
        json.dumps(result)
        times.append((time.perf_counter() - start) * 1000)
    print(f"show log: {len(log)} lines, {result['t']:.0f} s of show, outcome {result['outcome']}, "
          f"{result['crowd_tokens_turned']} tokens turned, {len(result['advances'])} advances")
    print(f"replay: median {statistics.median(times):.2f} ms, best {min(times):.2f} ms, "
          f"worst {max(times):.2f} ms over {args.runs} runs (target <= 50 ms)")


if __name__ == "__main__":
    main()
