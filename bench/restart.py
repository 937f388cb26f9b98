"""A restart timed as a process: from SIGKILL mid-show to the first answer, against the journal's length.

The product: `companion run --mock` on a database whose unfinished show has a
journal of N lines (written by the table's own journal writer, checkpoints
and all, as a live table leaves it). It is started, answers, and is killed
with SIGKILL; the clock starts at the kill and stops at the first answer of
the restarted process to `GET /api/show` (asked every RETRY_S). Both servers
read compiled bytecode, as an installed table does (bench/bytecode.py); the
first start, before the kill, compiles it.

The floor (FLOOR below, run as `python -c`) is a few lines of this bench's
own that import nothing of the product: a process that imports Flask and
waitress, reads every journal line of the same show from the same file
(`json.loads` of each), and answers. It is killed and restarted the same way.
Runs are interleaved and each figure is the median of `--runs`, printed with
the load average of each run. `--pi` repeats it with each restarted process
on one Pi 3 core's CPU (bench/pi.py). Prints figures; asserts nothing.
Target: the product <= 2x the floor at every journal length.

    python bench/restart.py [--lines 10 20000 100000] [--runs 3] [--pi] [--quick]
"""

import argparse
import contextlib
import http.client
import os
import signal
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from bytecode import compiled_env  # noqa: E402
from pi import PiBudget, add_arguments as add_pi_arguments  # noqa: E402

RETRY_S = 0.005  # how often the first answer is asked for
START_S = 120.0  # a start slower than this is a failure

CONFIG = """[table]
database = "{db}"
mock_pins = true
[web]
host = "127.0.0.1"
port = {port}
pin = "1234"
"""

# The floor: argv[1] the database, argv[2] the port.
FLOOR = r"""
import json, sqlite3, sys
from flask import Flask
from waitress import serve
db = sqlite3.connect(sys.argv[1])
show = db.execute("SELECT max(id) FROM shows").fetchone()[0]
lines = [json.loads(line) for (line,) in db.execute("SELECT line FROM journal WHERE show_id = ? ORDER BY n", (show,))]
app = Flask(__name__)
app.get("/api/show")(lambda: {"show": show, "lines": len(lines), "t": lines[-1].get("t", 0)})
serve(app, host="127.0.0.1", port=int(sys.argv[2]), threads=4)
"""


def journal_of(path: Path, lines: int) -> None:
    """An unfinished show of `lines` journal lines, written by the table's own journal (checkpoints and all)."""
    from companion.records import Store
    from companion.skyrockets import parse_event, setup_line
    from companion.skyrockets.show import Setup
    from companion.table.journal import Journal

    event = parse_event({"id": "chatter", "name": "Chatter", "hand_size": 4, "countdown": "purple",
                         "countdown_start": 4, "running": ["red"], "lying": ["purple"], "rules": ""}, "event")
    store = Store(path)
    show_id = store.begin_show(event, False, setup_line(Setup(event=event)), time.time(), 1.0)
    journal = Journal(store)
    journal.begin(show_id)
    for i in range(1, lines):  # red chatters from half sand on: it swings about half, never running out
        journal.add({"t": 15 + 0.05 * i, "type": "pose", "timer": "red", "pose": "b_up" if i % 2 else "a_up"})
        if i % 50 == 0:
            journal.flush()
    journal.flush()
    store.close()


def fresh_copy(pristine: Path, db: Path) -> None:
    """The database as the journal writer left it, its show started so long ago that its clock resumes where its
    journal ends: nothing runs out in the first life, so the restart resumes the same unfinished show."""
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.copy(pristine, db)
    with contextlib.closing(sqlite3.connect(db)) as records, records:
        last_t = records.execute("SELECT json_extract(line, '$.t') FROM journal ORDER BY show_id DESC, n DESC"
                                 " LIMIT 1").fetchone()[0] or 0
        records.execute("UPDATE shows SET started_wall = ?", (time.time() - last_t,))
    # On the disk, as a table's journal (full sync) leaves it: else the first server to sync a write of its own
    # (the product counts its boots) waits for the copy's megabytes too, and the floor, which writes nothing, never.
    with open(db, "rb+") as copied:
        os.fsync(copied.fileno())


def unfinished(db: Path) -> bool:
    with contextlib.closing(sqlite3.connect(db)) as records:
        return records.execute("SELECT outcome FROM shows ORDER BY id DESC LIMIT 1").fetchone()[0] == "running"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answered(port: int) -> bool:
    with contextlib.suppress(OSError):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("GET", "/api/show")
        status = connection.getresponse().status
        connection.close()
        return status == 200
    return False


class Restarting:
    """A server command that is started, killed with SIGKILL and started again, timed from the kill."""

    def __init__(self, name: str, command: list[str], port: int, env: dict):
        self.name, self.command, self.port, self.env = name, command, port, env
        self.process = None

    def start(self, budget: PiBudget | None = None) -> float:
        """Start the process; the seconds until its first answer."""
        started = time.monotonic()
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        env=self.env)
        if budget is not None:
            budget.add(self.process.pid)
        while not answered(self.port):
            if self.process.poll() is not None or time.monotonic() - started > START_S:
                raise SystemExit(f"{self.name} did not answer (exit {self.process.poll()})")
            time.sleep(RETRY_S)
        return time.monotonic() - started

    def restart(self, budget: PiBudget | None) -> float:
        """SIGKILL, then start again: seconds from the kill to the first answer."""
        killed = time.monotonic()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.start(budget)
        return time.monotonic() - killed

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def measure(folder: Path, lines: int, runs: int, budget: PiBudget | None) -> dict:
    pristine, db = folder / f"journal-{lines}.sqlite3", folder / "table.sqlite3"
    journal_of(pristine, lines)
    port = free_port()
    config = folder / f"config-{lines}.toml"
    config.write_text(CONFIG.format(db=db, port=port))
    env = compiled_env(folder, ROOT)
    servers = [Restarting("product", [sys.executable, "-m", "companion", "run", "--mock", "--config", str(config),
                                      "--no-mdns"], port, env),
               Restarting("floor", [sys.executable, "-c", FLOOR, str(db), str(port)], port, env)]
    got = {server.name: [] for server in servers}
    loads = []
    for _ in range(runs):
        for server in servers:  # interleaved: one port, one server at a time
            fresh_copy(pristine, db)
            try:
                server.start()
                got[server.name].append(server.restart(budget))
            finally:
                server.stop()
            if server.name == "product" and not unfinished(db):
                print(f"  (the show ended in the product's first life: its restart replayed nothing)")
        loads.append(os.getloadavg()[0])
    return {name: statistics.median(times) for name, times in got.items()} | {"loads": loads}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[10, 20_000, 100_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="CI's smoke: 10 and 20 000 lines, one run")
    add_pi_arguments(parser)
    args = parser.parse_args()
    if args.quick:
        args.lines, args.runs = [10, 20_000], 1
    modes = [None] + ([PiBudget(args.pi_factor)] if args.pi else [])
    try:
        for budget in modes:
            label = budget.describe() if budget else "free"
            print(f"\n{label}: SIGKILL -> first answer (s), median of {args.runs} runs, interleaved")
            print(f"{'journal lines':>13} | {'product':>8} {'floor':>8} {'ratio':>6} | loads")
            with tempfile.TemporaryDirectory() as tmp:
                for lines in args.lines:
                    got = measure(Path(tmp), lines, args.runs, budget)
                    print(f"{lines:>13} | {got['product']:>8.3f} {got['floor']:>8.3f} "
                          f"{got['product'] / got['floor']:>5.2f}x | "
                          + " ".join(f"{load:.1f}" for load in got["loads"]), flush=True)
            print("target: product <= 2x the floor at every journal length")
    finally:
        for budget in modes:
            if budget is not None:
                budget.close()


if __name__ == "__main__":
    main()
