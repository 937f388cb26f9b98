"""The progress pages against the size of the history: each page at 10 shows and at 10 000 shows with 1 000 games.

Two databases are built (shows spread over the campaign's events and many
nights, every pattern of run-outs in turn, journals copied from a few played
shows; finished 帰る雁 and Über den Wolken games) and each is served by
`companion run --mock` in a process of its own. For each: the first page, as
after the upgrade that brought the figures (journals replayed and games scored
for the page's budget, the rest by the table's own thread), and how long until
every journal is replayed and every game scored (kept in the file from then
on), then
each progress page and its JSON, median of --runs series
of requests, then a page right after one more show ended (the records read
afresh, the kept figures not recomputed). The floor is this file's own few
lines: a bare HTTP server of the standard library answering the 10-show
page's bytes, so what a request costs on this machine with nothing behind it.
Target: a page at 10 000 shows within 100 ms of the same page at 10. Prints
figures; asserts nothing.

    python bench/progress.py [--runs 3] [--quick]
"""

import argparse
import http.server
import json
import random
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from companion.flock.kind import FLOCK  # noqa: E402
from companion.geese.game import Game as GeeseGame  # noqa: E402
from companion.geese.kind import GEESE  # noqa: E402
from companion.geese.strategies import STRATEGIES  # noqa: E402
from companion.records.database import iso  # noqa: E402
from companion.records.fakes import RUN_OUT_GLASSES, show_with_runouts  # noqa: E402
from companion.records.shows import Store  # noqa: E402
from companion.skyrockets.festivals import event_id  # noqa: E402
from history import served  # noqa: E402

WALL = 1_767_290_400.0  # 2026-01-01 18:00 UTC
PAGES = ["/progress", "/progress/trouble", "/progress/flock", "/progress/geese", "/progress/tonight",
         "/api/progress/campaign", "/api/progress/trouble"]
REQUESTS = 10  # requests per series
SIZES = ((10, 2), (10_000, 1_000))  # (shows, games)
PATTERNS = [tuple(g for i, g in enumerate(RUN_OUT_GLASSES) if mask >> i & 1) for mask in range(16)
            if bin(mask).count("1") <= 3]
NEST = {"points": [3, 7, 11, 14, 16], "pair": 3}


def template_shows() -> list[tuple[dict, list[str]]]:
    """One played show of each run-out pattern: its row's values and its journal's lines."""
    store = Store(":memory:")
    made = []
    for pattern in PATTERNS:
        show = show_with_runouts(store, "event-02", pattern, wall=WALL)
        row = dict(store.database.read("SELECT outcome, stars FROM shows WHERE id = ?", (show,))[0])
        made.append((row, store.show_log(show)))
    store.close()
    return made


def finished_states() -> list[tuple[str, dict]]:
    """A finished 帰る雁 game of three and a finished Über den Wolken game of two, as the shelf keeps them."""
    rng = random.Random(1)
    game = GeeseGame(3, rng)
    while not game.over:
        move = STRATEGIES["greedy"](game, rng)
        if move.kind == "arrive":
            game.arrive(list(move.cards), move.take)
        else:
            game.migrate(move.value, list(move.cards))
    geese = game.record(["ann", "ben", "cho"])
    flock = FLOCK.new("moves", ["crane", "kite"], 5)
    while not FLOCK.view(flock)["over"]:
        turn = FLOCK.view(flock)["turn"]
        flock = FLOCK.play(flock, {"do": "pass"} if turn is not None else {"do": "land", "nest": NEST})
    return [("geese", GEESE.check(geese)), ("flock", FLOCK.check(flock))]


def build(path: Path, shows: int, games: int) -> None:
    store = Store(path)
    templates, states = template_shows(), finished_states()
    with store.database.transaction() as db:
        for n in range(shows):
            row, lines = templates[n % len(templates)]
            event = event_id(2 + n % 29)
            started = WALL + (n // 8) * 86400 + (n % 8) * 600
            show_id = db.execute(
                "INSERT INTO shows (event_id, event_name, challenge, started, started_wall, speed, outcome, stars,"
                " ended) VALUES (?, ?, 0, ?, ?, 1.0, ?, ?, ?)",
                (event, event, iso(started), started, row["outcome"], row["stars"], iso(started + 120))).lastrowid
            db.executemany("INSERT INTO journal (show_id, n, line) VALUES (?, ?, ?)",
                           [(show_id, k + 1, line) for k, line in enumerate(lines)])
        for n in range(games):
            kind, state = states[n % len(states)]
            at = WALL + n * 3600.0
            db.execute("INSERT INTO games (kind, version, state, created, updated) VALUES (?, 1, ?, ?, ?)",
                       (kind, json.dumps(state), at, at))
    store.close()


def timed(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as answer:
        answer.read()
    return (time.perf_counter() - start) * 1000


def series(url: str, runs: int) -> float:
    """Milliseconds a request: the median over `runs` series of each series' median of REQUESTS requests."""
    return statistics.median(statistics.median(timed(url) for _ in range(REQUESTS)) for _ in range(runs))


def floor_ms(body: bytes, runs: int) -> float:
    """The floor: the standard library's HTTP server answering `body`, nothing behind it."""
    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        return series(f"http://127.0.0.1:{server.server_address[1]}/", runs)
    finally:
        server.shutdown()


def counted_s(url: str) -> float:
    """Seconds from the daemon's answer to its first page until every show's journal is replayed and every game
    scored (the figures no longer `counting` or `scoring`), asked every tenth of a second."""
    start = time.perf_counter()
    while True:
        with urllib.request.urlopen(url + "api/progress/trouble", timeout=600) as shows, \
                urllib.request.urlopen(url + "api/progress/geese", timeout=600) as games:
            if json.loads(shows.read())["counting"] is None and json.loads(games.read())["scoring"] is None:
                return time.perf_counter() - start
        time.sleep(0.1)


def one_more_show(path: Path) -> None:
    """A show ends while the daemon serves: written by a second writer, as the table's journal writes one."""
    store = Store(path)
    show_with_runouts(store, "event-02", ("red",), wall=WALL)
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1 000 shows and 100 games instead of 10 000 and 1 000")
    args = parser.parse_args()
    sizes = ((10, 2), (1_000, 100)) if args.quick else SIZES
    found: dict[tuple, dict] = {}
    with tempfile.TemporaryDirectory() as folder:
        for shows, games in sizes:
            path = Path(folder) / f"progress-{shows}.sqlite3"
            began = time.perf_counter()
            build(path, shows, games)
            print(f"{shows} shows, {games} games: built in {time.perf_counter() - began:.1f} s", flush=True)
            daemon, url = served(path, Path(folder))
            try:
                first = timed(url + "progress/trouble")
                counted = counted_s(url)
                times = {page: series(url + page.lstrip("/"), args.runs) for page in PAGES}
                one_more_show(path)
                after = timed(url + "progress")
                if shows == sizes[0][0]:
                    with urllib.request.urlopen(url + "progress") as answer:
                        body = answer.read()
            finally:
                daemon.terminate()
                daemon.wait()
            found[(shows, games)] = times
            print(f"  first page (journals replayed and games scored for the page's budget): {first:.0f} ms")
            print(f"  every journal replayed and game scored by the table's own thread: {counted:.1f} s")
            print(f"  a page right after one more show ended: {after:.0f} ms")
            for page, ms in times.items():
                print(f"  {page:28} {ms:7.1f} ms")
    floor = floor_ms(body, args.runs)
    small, large = (found[s] for s in sizes)
    print(f"floor (a bare HTTP server answering the 10-show campaign page's {len(body)} bytes): {floor:.1f} ms")
    worst = max(large[p] - small[p] for p in PAGES)
    for page in PAGES:
        print(f"  {page:28} {small[page]:7.1f} -> {large[page]:7.1f} ms (+{large[page] - small[page]:.1f} ms;"
              f" {small[page] / floor:.1f}x and {large[page] / floor:.1f}x the floor)")
    print(f"largest difference {worst:.1f} ms (target: within 100 ms)")


if __name__ == "__main__":
    main()
