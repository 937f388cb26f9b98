"""The table's history against its size: the score pad, the past shows, a long show's page, memory.

A database holding N finished shows (spread over the built-in events, a
few journal lines each, and last of all one generated 10-minute show and
one chattering hour-long show) is served by `companion run --mock` in a
process of its own. For each N: the score pad (GET /api/scorepad) and the
past-shows list (GET /shows), median of --runs series of requests; the
10-minute and the hour-long show's pages with everything they load; and the
daemon's resident memory after it has served every page. Each time is
shown with its ratio to the smallest N (the floor). Prints figures; asserts
nothing. Targets: flat in N; a show page <= 100 KB with its assets whatever
the show's length; <= 60 MB resident with 10 000 shows.

    python bench/history.py [--shows 10 100 1000 10000] [--runs 3] [--quick]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from companion.records import Store  # noqa: E402
from companion.records.database import iso  # noqa: E402
from companion.skyrockets import BUILTIN_EVENTS, Setup, Show, parse_event, replay  # noqa: E402
from replay import generate  # noqa: E402
from sse import page_weight  # noqa: E402

WALL = 1_700_000_000.0
REQUESTS = 20  # requests per series


CHATTER = {"id": "chatter", "name": "Chatter", "hand_size": 4, "countdown": "purple", "countdown_start": 9,
           "running": ["red", "orange", "yellow", "green"], "lying": ["purple"], "rules": ""}


def chattering(minutes: float) -> list[str]:
    """A long show that never ends by itself, with a sensor chattering all along: every 0.7 s one running
    glass is turned if its top is below half, else it wobbles through `side` and back."""
    show = Show(Setup(parse_event(CHATTER)))
    lines = [json.dumps({"t": 0, "type": "setup", "event": CHATTER})]
    t, i = 0.0, 0
    while t < minutes * 60 and show.outcome == "running":
        t = round(t + 0.7, 3)
        colour = CHATTER["running"][i % 4]
        glass = show.timers[colour].glass
        if glass.top(t) < glass.duration / 2:
            show.flip(t, colour)
            lines.append(json.dumps({"t": t, "type": "flip", "timer": colour}))
        else:
            pose = glass.pose.value
            show.pose(t, colour, "side")
            show.pose(round(t + 0.05, 3), colour, pose)
            lines += [json.dumps({"t": t, "type": "pose", "timer": colour, "pose": "side"}),
                      json.dumps({"t": round(t + 0.05, 3), "type": "pose", "timer": colour, "pose": pose})]
            t = round(t + 0.05, 3)
        i += 1
    lines.append(json.dumps({"t": t, "type": "end"}))
    return lines


def stored(path: Path, shows: int) -> tuple[int, int]:
    """A table's database with `shows` finished shows; the ids of the 10-minute and the hour-long one."""
    store = Store(path)
    events = list(BUILTIN_EVENTS.values())
    with store.database.transaction() as db:
        for n in range(shows):
            event = events[n % len(events)]
            outcome = ("win", "loss", "aborted")[n % 3]
            started = WALL + n * 900
            show_id = db.execute(
                "INSERT INTO shows (event_id, event_name, challenge, started, started_wall, speed, outcome, stars,"
                " ended) VALUES (?, ?, 0, ?, ?, 1.0, ?, ?, ?)",
                (event.id, event.name, iso(started), started, outcome, n % 4 if outcome == "win" else 0,
                 iso(started + 600))).lastrowid
            lines = [{"t": 0, "type": "setup", "event": event.id}, {"t": 12.5, "type": "flip", "timer": "red"},
                     {"t": 30.0, "type": "flip", "timer": "orange"}, {"t": 61.0, "type": "end"}]
            db.executemany("INSERT INTO journal (show_id, n, line) VALUES (?, ?, ?)",
                           [(show_id, k + 1, json.dumps(line)) for k, line in enumerate(lines)])
    ids = []
    for log in (generate(10, 1), chattering(60)):
        result = replay(log).result()
        with store.database.transaction() as db:
            show_id = db.execute(
                "INSERT INTO shows (event_id, event_name, challenge, started, started_wall, speed, outcome, stars,"
                " ended) VALUES (?, ?, 0, ?, ?, 1.0, ?, ?, ?)",
                ("training", "Training", iso(WALL), WALL, result["outcome"] if result["outcome"] != "running"
                 else "aborted", result["stars"], iso(WALL + result["t"]))).lastrowid
            db.executemany("INSERT INTO journal (show_id, n, line) VALUES (?, ?, ?)",
                           [(show_id, k + 1, line) for k, line in enumerate(log)])
        ids.append(show_id)
    store.close()
    return ids[0], ids[1]


def series(url: str, runs: int) -> float:
    """Milliseconds per request: the median over `runs` series of the median of REQUESTS requests."""
    medians = []
    for _ in range(runs):
        times = []
        for _ in range(REQUESTS):
            start = time.perf_counter()
            urllib.request.urlopen(url, timeout=30).read()
            times.append((time.perf_counter() - start) * 1000)
        medians.append(statistics.median(times))
    return statistics.median(medians)


def served(path: Path, folder: Path):
    """`companion run --mock` on the database at `path`; (process, base url)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = folder / "config.toml"
    config.write_text(f'[table]\ndatabase = "{path}"\n[web]\nhost = "127.0.0.1"\npin = "1234"\n')
    daemon = subprocess.Popen([sys.executable, "-m", "companion", "run", "--mock", "--config", str(config),
                               "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    daemon.stdout.readline()  # "Open http://..." once it listens
    return daemon, f"http://127.0.0.1:{port}/"


def measure(shows: int, runs: int, folder: Path) -> dict:
    import psutil

    path = folder / f"h{shows}.sqlite3"
    ten, hour = stored(path, shows)
    daemon, base = served(path, folder)
    try:
        figures = {"scorepad": series(base + "api/scorepad", runs), "scorepad page": series(base + "scorepad", runs),
                   "shows": series(base + "shows", runs)}
        figures["10 min page"] = page_weight(f"{base}shows/{ten}")[0]
        figures["1 h page"] = page_weight(f"{base}shows/{hour}")[0]
        figures["rss"] = psutil.Process(daemon.pid).memory_info().rss / 2**20
        return figures
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shows", type=int, nargs="+", default=[10, 100, 1000, 10_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="10 and 1000 shows, one series each")
    args = parser.parse_args(argv)
    sizes, runs = ([10, 1000], 1) if args.quick else (sorted(args.shows), args.runs)
    print(f"history against stored shows: ms per request (median of {runs} series of {REQUESTS}), "
          f"pages with their assets in KB, daemon RSS after every page; load "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"  {'shows':>6} {'/api/scorepad':>13} {'/ floor':>8} {'/scorepad':>10} {'/ floor':>8} {'/shows':>8}"
          f" {'/ floor':>8} {'10-min page':>12} {'1-h page':>9} {'RSS MB':>7}")
    floor = None
    with tempfile.TemporaryDirectory() as folder:
        for shows in sizes:
            f = measure(shows, runs, Path(folder))
            floor = floor or f
            print(f"  {shows:>6} {f['scorepad']:>13.2f} {f['scorepad'] / floor['scorepad']:>7.2f}x"
                  f" {f['scorepad page']:>10.2f} {f['scorepad page'] / floor['scorepad page']:>7.2f}x"
                  f" {f['shows']:>8.2f} {f['shows'] / floor['shows']:>7.2f}x"
                  f" {f['10 min page'] / 1000:>12.1f} {f['1 h page'] / 1000:>9.1f} {f['rss']:>7.1f}")
    print("  targets: flat in the number of shows; a show's page <= 100 KB with its assets; RSS <= 60 MB at 10 000")
    return 0


if __name__ == "__main__":
    sys.exit(main())
