"""A Pi-class CPU budget: a server process given one Raspberry Pi 3 core's worth of this machine's CPU.

A Pi 3's Cortex-A53 runs at 1.2 GHz and executes in order; this box's cores
(run `grep 'model name\\|MHz' /proc/cpuinfo`) are out-of-order x86 cores at
2-3 GHz. For CPython's interpreter loop that is roughly 2-2.5x in clock and
3-4x in work per clock, so a Pi 3 core does about one eighth of what one of
this box's cores does: PI3_FACTOR = 8 (the range that reasoning allows is
6-10). The factor is an estimate until measured: `python bench/pi.py` prints
the score of a small fixed workload (dicts, strings and json, as the daemon
does); run it on a Pi 3 and here, and give the ratio to any bench as
`--pi-factor` (or COMPANION_PI_FACTOR).

The budget is 1/PI3_FACTOR of one core, enforced by the kernel: a cgroup
(cgroup v2 `cpu.max`, or v1 `cpu.cfs_quota_us` where v1 is mounted) giving
the kernel's smallest quota, 1 ms, in every PI3_FACTOR ms. Where no cgroup
can be made (not root, a read-only /sys/fs/cgroup), the same share is given
from user space: a thread lets the process run for its quota of every
period and stops it (SIGSTOP, SIGCONT) for the rest. The bench's own
processes (phones, the flipper) are never throttled.

What it models is a Pi's share of CPU (throughput: many phones, a busy
table), not a Pi's slower step: a burst of work shorter than the 1 ms quota
still runs at this box's speed, so a latency measured in this mode is a
lower bound; the CPU a request costs here, times the factor, is what a Pi
core spends on it.

    >>> period_us(8.0)
    8000
"""

import contextlib
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

PI3_FACTOR = 8.0  # this box's core / a Pi 3 core, for the interpreter's work (see above)
MIN_QUOTA_US = 1_000  # the kernel's smallest quota: the period is as short as the share allows
CGROUPS = Path("/sys/fs/cgroup")


def factor(given: float | None = None) -> float:
    """The Pi factor: as given (`--pi-factor`), else COMPANION_PI_FACTOR, else PI3_FACTOR."""
    return given or float(os.environ.get("COMPANION_PI_FACTOR") or PI3_FACTOR)


def period_us(pi_factor: float) -> int:
    """The period in which a process may use MIN_QUOTA_US of CPU: one core divided by the factor."""
    return round(MIN_QUOTA_US * pi_factor)


def add_arguments(parser) -> None:
    parser.add_argument("--pi", action="store_true",
                        help="also run with the server given one Pi 3 core's CPU (bench/pi.py)")
    parser.add_argument("--pi-factor", type=float, default=None,
                        help=f"this box's core / a Pi 3 core (default {PI3_FACTOR:g}, or COMPANION_PI_FACTOR)")


def _cgroup(name: str) -> tuple[Path, str] | None:
    """A fresh cgroup and how it is limited (v2 or v1), or None where none can be made."""
    v2 = CGROUPS / "cgroup.controllers"
    candidates = [(CGROUPS, "v2")] if v2.exists() and "cpu" in v2.read_text().split() else []
    candidates.append((CGROUPS / "cpu", "v1"))
    for parent, kind in candidates:
        group = parent / name
        with contextlib.suppress(OSError):
            group.mkdir(exist_ok=True)
            return group, kind
    return None


class PiBudget:
    """The processes given to `add` run on one Pi 3 core's CPU until `close`."""

    def __init__(self, pi_factor: float | None = None):
        self.factor = factor(pi_factor)
        self.quota, self.period = MIN_QUOTA_US, period_us(self.factor)
        made = _cgroup(f"companion-bench-{os.getpid()}")
        self.group, self.kind = made if made else (None, "SIGSTOP/SIGCONT from user space")
        if self.kind == "v2":
            (self.group / "cpu.max").write_text(f"{self.quota} {self.period}")
        elif self.kind == "v1":
            (self.group / "cpu.cfs_period_us").write_text(str(self.period))
            (self.group / "cpu.cfs_quota_us").write_text(str(self.quota))
        self._pids: list[int] = []
        self._stop = threading.Event()
        self._thread = None

    def describe(self) -> str:
        how = f"cgroup {self.kind}" if self.group else self.kind
        return f"Pi-class: {self.quota / self.period:.1%} of a core (factor {self.factor:g}, {how})"

    def add(self, pid: int) -> None:
        if self.group is not None:
            (self.group / "cgroup.procs").write_text(str(pid))  # every thread of the process moves with it
        else:
            self._pids.append(pid)
            if self._thread is None:
                self._thread = threading.Thread(target=self._duty, daemon=True)
                self._thread.start()

    def _duty(self) -> None:
        run_s, period_s = self.quota / 1e6, self.period / 1e6
        while not self._stop.is_set():
            self._signal(signal.SIGCONT)
            time.sleep(run_s)
            self._signal(signal.SIGSTOP)
            time.sleep(period_s - run_s)
        self._signal(signal.SIGCONT)

    def _signal(self, sig) -> None:
        for pid in self._pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.group is not None:
            root = self.group.parent / "cgroup.procs"
            for pid in (self.group / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):
                    root.write_text(pid)
            with contextlib.suppress(OSError):
                self.group.rmdir()

    def __enter__(self) -> "PiBudget":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def workload() -> None:
    """A fixed piece of the daemon's kind of work: build a state of dicts and strings, serialise, parse it."""
    for n in range(2000):
        state = {"seq": n, "timers": {c: {"pose": "a_up", "top_s": n * 0.5, "state": "running"}
                                      for c in ("red", "orange", "yellow", "green", "blue", "purple")}}
        json.loads(json.dumps(state))


def score(repeat: int = 7) -> float:
    """Workloads per second on one core, the best of `repeat` (the best is the least disturbed by others)."""
    best = min(_timed() for _ in range(repeat))
    return 1 / best


def _timed() -> float:
    start = time.process_time()
    workload()
    return time.process_time() - start


if __name__ == "__main__":
    print(f"{score():.1f} workloads/s on one core of {sys.platform} "
          f"(a Pi 3's score divided into this box's is the Pi factor; PI3_FACTOR = {PI3_FACTOR:g})")
