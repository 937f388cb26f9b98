"""Replay growth: `companion replay` of chattery show logs from 10 k to 1 M lines, against its floor.

The floor is what no replay can beat: reading the same file and a bare
`json.loads` of each line, a few lines of this bench's own, measured in the
same run. For each size the table gives the median of the runs: the floor,
the replay as `companion replay` does it (in this process, its output thrown
away), the command itself as a process (wall time, start-up and all) against
the floor run as a process too, the ratios, the peak RSS of the command, and
the load average of each run. Both commands read compiled bytecode, as on a
table (bench/bytecode.py). Prints figures; it asserts nothing. Targets:
the replay <= 2x the floor; 1 M lines <= 64 MB.

    python bench/replay_growth.py [--lines 10000,30000,100000,200000,1000000] [--runs 3] [--seed 1]
"""

import argparse
import contextlib
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bytecode import compiled_env  # noqa: E402
from companion.cli.replay import cmd_replay  # noqa: E402
from companion.skyrockets import COLOURS, Setup, Show, parse_event, setup_line  # noqa: E402

# A long show nobody wins: the countdown is never turned, so the table plays on until the log is long enough.
ENDLESS = {"id": "endless", "name": "Endless", "hand_size": 4, "countdown": "purple", "countdown_start": 9,
           "running": ["red", "orange", "yellow", "green", "purple"], "lying": ["blue"], "rules": ""}


def chattery_log(n_lines: int, seed: int):
    """Yield the lines of a careful table's show seen through chattering ball switches, about `n_lines` of them.

    Every turn is seen through a burst of `side` readings before the glass
    settles; between turns a knocked cradle chatters between `side` and the
    pose its glass stands in. Every line is also fed to a show, so the table
    turns each glass before it runs out, as a careful table would.
    """
    rng = random.Random(seed)
    setup = Setup(parse_event(ENDLESS), durations={c: d * rng.uniform(0.95, 1.05) for c, d in
                                                   zip(COLOURS, (30, 40, 50, 60, 70, 80))},
                  runout_grace_s=1.0, advance_tolerance_s=1.0)
    show = Show(setup)
    yield json.dumps(setup_line(setup))
    written, t = 1, 0.0
    players = [c for c, timer in show.timers.items() if timer.role == "timer"]

    def pose(colour, value):
        nonlocal written
        show.pose(t, colour, value)
        written += 1
        return json.dumps({"t": t, "type": "pose", "timer": colour, "pose": value})

    while written < n_lines - 1:
        t = round(t + rng.uniform(0.5, 3.0), 3)  # the next card played
        show.advance(t)
        show.drain_notices()  # nobody hears them here: they must not pile up
        for colour in players:
            glass = show.timers[colour].glass
            if glass.pose.upright and glass.top(t) < rng.uniform(2, 9):  # turn it, through a chattering burst
                old, new = glass.pose.value, glass.pose.turned.value
                for i in range(rng.randint(8, 60)):
                    t = round(t + rng.uniform(0.002, 0.02), 3)
                    yield pose(colour, "side" if i % 2 == 0 else rng.choice((old, new)))
                t = round(t + 0.01, 3)
                yield pose(colour, new)
            elif not glass.pose.upright and rng.random() < 0.3:  # the lying glass is stood up
                t = round(t + 0.01, 3)
                written += 1
                show.flip(t, colour)
                yield json.dumps({"t": t, "type": "flip", "timer": colour})
        knocked = rng.choice(players)
        glass = show.timers[knocked].glass
        if glass.pose.upright and rng.random() < 0.8:  # a knock: its switch chatters, the glass stays up
            for i in range(rng.randint(4, 50)):
                t = round(t + rng.uniform(0.002, 0.02), 3)
                yield pose(knocked, "side" if i % 2 == 0 else glass.pose.value)
            t = round(t + 0.01, 3)
            yield pose(knocked, glass.pose.value)
    assert show.outcome == "running", "the bench's table lost its show: fix the generator"
    yield json.dumps({"t": t, "type": "end"})


def write_log(path: Path, n_lines: int, seed: int) -> int:
    count = 0
    with open(path, "w", encoding="utf-8") as f:
        for line in chattery_log(n_lines, seed):
            f.write(line + "\n")
            count += 1
    return count


def floor_s(path: Path) -> float:
    """Reading the file and a bare json.loads of each line."""
    start = time.perf_counter()
    with open(path, "rb") as f:
        for line in f:
            json.loads(line)
    return time.perf_counter() - start


def replay_s(path: Path) -> float:
    """`companion replay PATH` in this process, its printed result thrown away."""
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        status = cmd_replay(argparse.Namespace(log=str(path)))
    elapsed = time.perf_counter() - start
    assert status == 0
    return elapsed


# The command's own peak, read by the command's process as it ends. Not the child's ru_maxrss: Linux
# carries the parent's high-water mark over a fork and exec into it, so a big parent would show there.
PEAK_OF_COMMAND = """
import contextlib, os, resource, sys
from companion.cli import main
with open(os.devnull, "w") as out, contextlib.redirect_stdout(out):
    status = main(["replay", sys.argv[1]])
try:
    with open("/proc/self/status") as f:
        peak_kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
except OSError:
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak_kb, file=sys.stderr)
sys.exit(status)
"""


def command_peak_mb(path: Path) -> float:
    """Peak RSS of `companion replay PATH` in a fresh interpreter (MB)."""
    done = subprocess.run([sys.executable, "-c", PEAK_OF_COMMAND, str(path)], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return int(done.stderr.split()[-1]) / 1024


FLOOR_COMMAND = "import json, sys\nfor line in open(sys.argv[1], 'rb'):\n    json.loads(line)\n"


def process_s(command: list[str], env: dict) -> float:
    """Wall seconds of a process from its start to its exit."""
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


def floor_command(path: Path) -> list[str]:
    return [sys.executable, "-c", FLOOR_COMMAND, str(path)]


def replay_command(path: Path) -> list[str]:
    return [sys.executable, "-m", "companion", "replay", str(path)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", default="10000,30000,100000,200000,1000000",
                        help="comma-separated log sizes (lines)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes = [int(n) for n in args.lines.split(",")]

    print(f"companion replay of a chattery show log, median of {args.runs} runs "
          f"(floor: read + bare json.loads of each line, same run; 'process': each as a command)")
    print(f"{'lines':>9} {'floor ms':>9} {'replay ms':>10} {'µs/line':>8} {'x floor':>8} | {'floor proc':>10} "
          f"{'command':>8} {'x floor':>8} | {'peak MB':>8} | loads")
    with tempfile.TemporaryDirectory() as tmp:
        env = compiled_env(Path(tmp), ROOT)  # both commands on compiled bytecode, as on a table
        warm_up = Path(tmp) / "warm-up.jsonl"
        write_log(warm_up, 10, args.seed)
        for command in (floor_command(warm_up), replay_command(warm_up)):
            process_s(command, env)  # the first start compiles
        for size in sizes:
            path = Path(tmp) / f"log-{size}.jsonl"
            lines = write_log(path, size, args.seed)
            floors, replays, peaks, ratios, floor_procs, commands, command_ratios, loads = ([] for _ in range(8))
            for _ in range(args.runs):
                floors.append(floor_s(path))
                replays.append(replay_s(path))
                ratios.append(replays[-1] / floors[-1])
                floor_procs.append(process_s(floor_command(path), env))
                commands.append(process_s(replay_command(path), env))
                command_ratios.append(commands[-1] / floor_procs[-1])
                peaks.append(command_peak_mb(path))
                loads.append(os.getloadavg()[0])
            replay_med = statistics.median(replays)
            print(f"{lines:>9} {statistics.median(floors) * 1000:>9.1f} {replay_med * 1000:>10.1f} "
                  f"{replay_med / lines * 1e6:>8.2f} {statistics.median(ratios):>8.2f} | "
                  f"{statistics.median(floor_procs) * 1000:>10.1f} {statistics.median(commands) * 1000:>8.1f} "
                  f"{statistics.median(command_ratios):>8.2f} | {statistics.median(peaks):>8.1f} | "
                  + " ".join(f"{load:.1f}" for load in loads), flush=True)
            path.unlink()
    print("targets: the replay <= 2x the floor (in process and as a command); 1 000 000 lines <= 64 MB peak")


if __name__ == "__main__":
    main()
