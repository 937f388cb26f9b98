"""The two budgets a bench runs on, and what the machine was doing meanwhile.

A Raspberry Pi core is several times slower than one of this box's, and a table's Pi
is rarely idle (a kiosk browser, a desktop, an update). So every bench that times the
daemon runs in one of two modes:

- free: the daemon may use any core, as on the box;
- Pi-sized (`--pi-sized`): the daemon is pinned to one core and a busy neighbour process
  spins on that same core, so the daemon gets about half of one core; whatever plays the
  phones or the broker runs on the other cores, so it is not charged to the daemon.

Each figure is printed with the load average of the run that made it, and a figure
worth comparing is the median of several runs (`--runs`).

    >>> statistics_line([3.0, 1.0, 2.0], "ms")
    'median 2.0 ms of 3 runs (1.0-3.0)'
"""

import contextlib
import multiprocessing
import os
import statistics

DAEMON_CORE = 0  # the core the daemon gets in Pi-sized mode; the neighbour spins there too


def add_arguments(parser, runs: int = 3) -> None:
    """The flags every budget-aware bench takes."""
    parser.add_argument("--pi-sized", action="store_true",
                        help="pin the daemon to one core beside a busy neighbour process")
    parser.add_argument("--runs", type=int, default=runs, help="runs of each figure; the median is printed")


def other_cores() -> set[int]:
    """The cores left for the load generators (phones, broker) in Pi-sized mode."""
    cores = os.sched_getaffinity(0)
    rest = cores - {DAEMON_CORE}
    return rest or cores


def pin(pid: int, cores: set[int]) -> None:
    """Pin a process and every thread it has now (threads started later inherit it)."""
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except FileNotFoundError:
        tids = [pid]
    for tid in tids:
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(tid, cores)


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def neighbour(pi_sized: bool):
    """In Pi-sized mode, a process spinning on the daemon's core for as long as the block runs."""
    if not pi_sized:
        yield None
        return
    process = multiprocessing.get_context("spawn").Process(target=_spin, daemon=True)
    process.start()
    pin(process.pid, {DAEMON_CORE})
    try:
        yield process
    finally:
        process.terminate()
        process.join()


@contextlib.contextmanager
def daemon_budget(pi_sized: bool, pid: int | None = None):
    """Run the block with the daemon (this process, or `pid`) on its budget, the neighbour beside it.

    In Pi-sized mode the daemon is pinned to `DAEMON_CORE`; in free mode nothing changes.
    """
    pid = os.getpid() if pid is None else pid
    before = os.sched_getaffinity(pid)
    if pi_sized:
        pin(pid, {DAEMON_CORE})
    with neighbour(pi_sized):
        try:
            yield
        finally:
            if pi_sized:
                pin(pid, before)


def mode(pi_sized: bool) -> str:
    return "Pi-sized (one core, busy neighbour)" if pi_sized else "free"


def load() -> float:
    """The one-minute load average now: printed beside every figure."""
    return os.getloadavg()[0]


def statistics_line(values: list[float], unit: str) -> str:
    """The median of several runs with their spread."""
    return (f"median {statistics.median(values):.1f} {unit} of {len(values)} runs "
            f"({min(values):.1f}-{max(values):.1f})")
