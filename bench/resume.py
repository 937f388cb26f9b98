"""Resume after a restart against the journal's length: a chattering sensor must not slow every restart.

A show whose one running glass chatters (a pose line every 50 ms of show
time) is journaled through the table's own journal writer, which keeps its
checkpoints as on a live table. Then, as a restarting daemon does, the
database is opened and the unfinished show resumed (recovery.resume): from
the newest checkpoint, and for comparison by replaying the whole journal.
Each figure is the median of --runs. Prints figures; asserts nothing.
Target: resume with a 100 000-line journal <= 2x resume with a 100-line one.

    python bench/resume.py [--lines 100 1000 10000 100000] [--runs 3] [--quick]
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.records import Store  # noqa: E402
from companion.skyrockets import parse_event, setup_line  # noqa: E402
from companion.skyrockets.show import Setup  # noqa: E402
from companion.table.journal import Journal  # noqa: E402
from companion.table.recovery import resume  # noqa: E402
from companion.skyrockets import replay  # noqa: E402

CHATTER = parse_event({"id": "chatter", "name": "Chatter", "hand_size": 4, "countdown": "purple",
                       "countdown_start": 4, "running": ["red"], "lying": ["purple"], "rules": ""}, "event")
WALL = 1_700_000_000.0
BATCH = 50  # lines per group commit, as a busy table writes them


def journal_of(path: Path, lines: int) -> None:
    """A running show of `lines` journal lines (the setup line included), written by the table's journal."""
    store = Store(path)
    show_id = store.begin_show(CHATTER, False, setup_line(Setup(event=CHATTER)), WALL, 1.0)
    journal = Journal(store)
    journal.begin(show_id)
    for i in range(1, lines):
        journal.add({"t": 0.05 * i, "type": "pose", "timer": "red", "pose": "b_up" if i % 2 else "a_up"})
        if i % BATCH == 0:
            journal.flush()
    journal.flush()
    store.close()


def timed_resume(path: Path, runs: int) -> tuple[float, float, int]:
    """Milliseconds to open the records and resume the show: from its checkpoint, and by a whole replay."""
    checkpointed, whole = [], []
    for _ in range(runs):
        start = time.perf_counter()
        store = Store(path)
        resumed = resume(store, WALL)
        checkpointed.append((time.perf_counter() - start) * 1000)
        store.close()
        start = time.perf_counter()
        store = Store(path)
        row = store.unfinished_show(whole=False)
        replay(store.show_log(row["id"]), store.events())
        whole.append((time.perf_counter() - start) * 1000)
        store.close()
    kept = Store(path)
    tail = len(kept.show_log(resumed.show_id)) - (kept.checkpoint(resumed.show_id) or {"lines": 0})["lines"]
    kept.close()
    return statistics.median(checkpointed), statistics.median(whole), tail


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[100, 1000, 10_000, 100_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="100 and 10 000 lines, one run each")
    args = parser.parse_args(argv)
    sizes, runs = ([100, 10_000], 1) if args.quick else (sorted(args.lines), args.runs)
    print(f"resume of an unfinished show after a restart, median of {runs} (ms); floor = the shortest journal")
    print(f"  {'journal lines':>13} {'tail read':>9} {'resume':>9} {'/ floor':>8} {'whole replay':>13} {'/ floor':>8}")
    floor = None
    with tempfile.TemporaryDirectory() as folder:
        for lines in sizes:
            path = Path(folder) / f"j{lines}.sqlite3"
            journal_of(path, lines)
            ms, whole_ms, tail = timed_resume(path, runs)
            floor = floor or (ms, whole_ms)
            print(f"  {lines:>13} {tail:>9} {ms:>9.2f} {ms / floor[0]:>7.2f}x {whole_ms:>13.2f} "
                  f"{whole_ms / floor[1]:>7.2f}x")
    print("  target: resume at 100 000 lines <= 2x the floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
