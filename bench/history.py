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
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from companion.records import Store, show_text  # noqa: E402
from companion.records.database import iso  # noqa: E402
from companion.skyrockets import BUILTIN_EVENTS, Setup, Show, parse_event, replay  # noqa: E402
from budget import add_arguments, daemon_budget, load, mode  # noqa: E402
from replay import generate  # noqa: E402
from sse import page_weight  # noqa: E402

WALL = 1_700_000_000.0
REQUESTS = 20  # requests per series
JOURNALS = 8  # distinct played journals the stored shows take turns with
SAMPLE_S = 0.002  # the daemon's memory is looked at this often during an export


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
    journals = [generate(2, seed) for seed in range(JOURNALS)]  # played two-minute shows: about 20 lines each
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
            db.executemany("INSERT INTO journal (show_id, n, line) VALUES (?, ?, ?)",
                           [(show_id, k + 1, line) for k, line in enumerate(journals[n % JOURNALS])])
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
    with store.database.transaction() as db:  # written by hand above: their texts kept as a table keeps them
        show_text.keep_missing(db)
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
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = folder / "config.toml"
    config.write_text(f'[table]\ndatabase = "{path}"\n[web]\nhost = "127.0.0.1"\npin = "1234"\n')
    daemon = subprocess.Popen([sys.executable, "-m", "companion", "run", "--mock", "--config", str(config),
                               "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    daemon.stdout.readline()  # "Open http://..." once it listens
    base = f"http://127.0.0.1:{port}/"
    counted(base)
    return daemon, base


def counted(base: str) -> None:
    """Wait until the table has counted its shows' figures: a table counts them once, in a thread of its own, after
    it first starts on records it has not counted (10 000 shows: seconds), and an export timed meanwhile shares the
    interpreter with that count. The export's own figure is the settled table's."""
    while True:
        with urllib.request.urlopen(base + "api/progress/trouble", timeout=120) as answer:
            if json.loads(answer.read()).get("counting") is None:
                return
        time.sleep(0.2)


class Peak:
    """The most resident memory a process reaches while the block runs, above what it held as the block began."""

    def __init__(self, pid: int):
        import psutil

        self._process = psutil.Process(pid)
        self._done = threading.Event()
        self.start = self.peak = self._process.memory_info().rss

    def _watch(self) -> None:
        while not self._done.wait(SAMPLE_S):
            self.peak = max(self.peak, self._process.memory_info().rss)

    def __enter__(self):
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()
        self.peak = max(self.peak, self._process.memory_info().rss)

    @property
    def growth_mb(self) -> float:
        return (self.peak - self.start) / 2**20


def download(connect, pid: int) -> dict:
    """One whole body read from `connect()` (a file-like response): ms to its first byte and to its last, its
    size, and how far process `pid`'s memory rose meanwhile."""
    with Peak(pid) as peak:
        start = time.perf_counter()
        body = connect()
        first = body.read(1)
        first_ms = (time.perf_counter() - start) * 1000
        size = len(first)
        while chunk := body.read(1 << 16):
            size += len(chunk)
        total_ms = (time.perf_counter() - start) * 1000
        body.close()
    return {"first": first_ms, "total": total_ms, "bytes": size, "rss": peak.growth_mb}


def floor_serve(path: str, port_file: str) -> None:
    """The export's floor: on each connection, the same bytes as the table's export, sent from a file, then close.
    A few lines of the bench's own: nothing of the product is imported or run."""
    server = socket.create_server(("127.0.0.1", 0))
    Path(port_file).write_text(str(server.getsockname()[1]))
    while True:
        conn, _ = server.accept()
        with conn, open(path, "rb") as f:
            conn.sendfile(f)


def floored(path: Path, folder: Path):
    """The floor's process serving the database at `path`; (process, port)."""
    port_file = folder / "floor.port"
    port_file.unlink(missing_ok=True)
    floor = subprocess.Popen([sys.executable, __file__, "--floor-serve", str(path), str(port_file)],
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 30
    while not port_file.exists() or not port_file.read_text():
        if time.monotonic() > deadline or floor.poll() is not None:
            floor.kill()
            raise RuntimeError("the export's floor did not start")
        time.sleep(0.05)
    return floor, int(port_file.read_text())


def raw_body(port: int):
    """The floor's whole answer, as a file: it sends and closes."""
    return socket.create_connection(("127.0.0.1", port)).makefile("rb")


def export_figures(path: Path, base: str, daemon_pid: int, runs: int, pi_sized: bool, folder: Path) -> dict:
    """The export from the daemon and from the floor, taking turns, `runs` times each: the median of each figure,
    and the load average of each run."""
    export = folder / "export.jsonl"  # the table's own answer, kept as the floor's bytes
    with urllib.request.urlopen(base + "api/history", timeout=120) as answer, open(export, "wb") as f:
        while chunk := answer.read(1 << 16):
            f.write(chunk)
    floor, port = floored(export, folder)
    table, bare, loads = [], [], []
    try:
        with daemon_budget(pi_sized, daemon_pid):
            if pi_sized:
                from budget import DAEMON_CORE, pin

                pin(floor.pid, {DAEMON_CORE})
            for _ in range(runs):
                table.append(download(lambda: urllib.request.urlopen(base + "api/history", timeout=120), daemon_pid))
                bare.append(download(lambda: raw_body(port), floor.pid))
                loads.append(load())
    finally:
        floor.terminate()
        floor.wait(timeout=10)

    def median(rows: list[dict]) -> dict:
        return {key: statistics.median(row[key] for row in rows) for key in rows[0]}

    return {"table": median(table), "floor": median(bare), "loads": loads}


def measure(shows: int, runs: int, folder: Path, pi_sized: bool) -> dict:
    import psutil

    path = folder / f"h{shows}.sqlite3"
    ten, hour = stored(path, shows)
    daemon, base = served(path, folder)
    try:
        with daemon_budget(pi_sized, daemon.pid):
            figures = {"scorepad": series(base + "api/scorepad", runs),
                       "scorepad page": series(base + "scorepad", runs), "shows": series(base + "shows", runs)}
            figures["10 min page"] = page_weight(f"{base}shows/{ten}")[0]
            figures["1 h page"] = page_weight(f"{base}shows/{hour}")[0]
            figures["rss"] = psutil.Process(daemon.pid).memory_info().rss / 2**20
        figures["export"] = export_figures(path, base, daemon.pid, runs, pi_sized, folder)
        return figures
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--floor-serve"]:  # the export's floor, in a process of its own
        floor_serve(*argv[1:3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shows", type=int, nargs="+", default=[10, 100, 1000, 10_000])
    add_arguments(parser)
    parser.add_argument("--quick", action="store_true", help="10 and 1000 shows, one series each")
    args = parser.parse_args(argv)
    sizes, runs = ([10, 1000], 1) if args.quick else (sorted(args.shows), args.runs)
    print(f"history against stored shows, {mode(args.pi_sized)}: ms per request (median of {runs} series of "
          f"{REQUESTS}), pages with their assets in KB, daemon RSS after every page; load {load():.1f}")
    print(f"  {'shows':>6} {'/api/scorepad':>13} {'/ floor':>8} {'/scorepad':>10} {'/ floor':>8} {'/shows':>8}"
          f" {'/ floor':>8} {'10-min page':>12} {'1-h page':>9} {'RSS MB':>7}")
    floor, exports = None, []
    with tempfile.TemporaryDirectory() as folder:
        for shows in sizes:
            f = measure(shows, runs, Path(folder), args.pi_sized)
            floor = floor or f
            exports.append((shows, f["export"]))
            print(f"  {shows:>6} {f['scorepad']:>13.2f} {f['scorepad'] / floor['scorepad']:>7.2f}x"
                  f" {f['scorepad page']:>10.2f} {f['scorepad page'] / floor['scorepad page']:>7.2f}x"
                  f" {f['shows']:>8.2f} {f['shows'] / floor['shows']:>7.2f}x"
                  f" {f['10 min page'] / 1000:>12.1f} {f['1 h page'] / 1000:>9.1f} {f['rss']:>7.1f}")
    print("  targets: flat in the number of shows; a show's page <= 100 KB with its assets; RSS <= 60 MB at 10 000")
    print(f"the whole history (GET /api/history) beside its floor (the same bytes sent from a file), median of {runs}:")
    print(f"  {'shows':>6} {'MB':>6} {'first byte ms':>14} {'floor':>7} {'total ms':>9} {'floor':>7} {'ratio':>7}"
          f" {'RSS +MB':>8} {'floor':>6}  load of each run")
    for shows, e in exports:
        t, b = e["table"], e["floor"]
        print(f"  {shows:>6} {t['bytes'] / 2**20:>6.1f} {t['first']:>14.1f} {b['first']:>7.1f} {t['total']:>9.1f}"
              f" {b['total']:>7.1f} {t['total'] / b['total']:>6.1f}x {t['rss']:>8.1f} {b['rss']:>6.1f}"
              f"  {' '.join(f'{x:.1f}' for x in e['loads'])}")
    print("  targets: <= 10x the floor and RSS + <= 10 MB at 10 000 shows; first byte <= 100 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
