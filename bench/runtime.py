"""The table runtime: sensor edge -> published state, idle CPU during a show, resident memory.

Prints figures; asserts nothing. Targets (DESIGN.md): idle CPU <= 0.5 % of one core
during a 6-timer show, resident memory <= 60 MB.

    python bench/runtime.py [--edges 1000] [--idle-seconds 60]
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.config import Config, TiltConfig, default_timers  # noqa: E402
from companion.hardware.pins import mock_pin_factory  # noqa: E402
from companion.store import Store  # noqa: E402
from companion.table import Table  # noqa: E402

SIX = {"id": "all-six", "name": "All six", "hand_size": 4, "countdown": "purple", "countdown_start": 4,
       "running": ["red", "orange", "yellow", "green", "blue", "purple"], "lying": [], "rules": ""}
SETTLE_S = 0.01


def edge_to_publish(edges: int) -> list[float]:
    """Turn a glass over through its mock pins `edges` times; time from the pin edge to the subscriber
    seeing the new pose, minus the debounce window."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(database=Path(tmp) / "b.sqlite3", timers=default_timers("tilt"),
                        tilt=TiltConfig(settle_ms=SETTLE_S * 1000, start_window_s=0.0, stuck_after_s=3600))
        pins = mock_pin_factory()
        table = Table(config, Store(config.database), pins, pin="1234").start()
        try:
            switch_a, switch_b = (pins.pin(p) for p in config.timers["red"].pins)
            switch_a.drive_low()  # red stands end A up in its cradle
            time.sleep(0.1)
            snap = table.start_show(SIX)
            latencies = []
            for i in range(edges):
                before = snap["timers"]["red"]["pose"]
                start = time.monotonic()
                if i % 2 == 0:  # turn it over: B up, then A up again
                    switch_a.drive_high(), switch_b.drive_low()
                else:
                    switch_b.drive_high(), switch_a.drive_low()
                while snap["timers"]["red"]["pose"] == before:
                    snap = table.wait_for_change(snap["seq"], 5)
                latencies.append((time.monotonic() - start - SETTLE_S) * 1000)
        finally:
            table.stop()
    return latencies


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def daemon_idle(seconds: float) -> tuple[float, float]:
    """`companion run --mock` (six tilt glasses, no strip) during a running show: % of one core, RSS MB."""
    import psutil

    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        config = Path(tmp) / "config.toml"
        config.write_text(f'[table]\ndatabase = "{Path(tmp) / "t.sqlite3"}"\n[web]\nhost = "127.0.0.1"\npin = "1234"\n'
                          f"[tilt]\nstart_window_s = 0\n")
        daemon = subprocess.Popen([sys.executable, "-m", "companion", "run", "--mock", "--config", str(config),
                                   "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            daemon.stdout.readline()  # "Open http://..." once it listens
            request = urllib.request.Request(f"http://127.0.0.1:{port}/api/show/start", method="POST",
                                             data=json.dumps({"event": SIX}).encode(),
                                             headers={"X-Table-Pin": "1234", "Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=10).read()
            process = psutil.Process(daemon.pid)
            time.sleep(1.0)  # let start-up work finish before measuring the quiet show
            before = process.cpu_times()
            time.sleep(seconds)
            after = process.cpu_times()
            cpu = (after.user + after.system - before.user - before.system) / seconds * 100
            return cpu, process.memory_info().rss / 2**20
        finally:
            daemon.terminate()
            daemon.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=1000)
    parser.add_argument("--idle-seconds", type=float, default=60)
    args = parser.parse_args()

    latencies = sorted(edge_to_publish(args.edges))
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"edge -> published state ({len(latencies)} edges, debounce window excluded): "
          f"p50 {statistics.median(latencies):.2f} ms, p99 {p99:.2f} ms")
    cpu, rss = daemon_idle(args.idle_seconds)
    print(f"daemon during a 6-timer show over {args.idle_seconds:g} s: {cpu:.2f} % of one core "
          f"(target <= 0.5 %), resident memory {rss:.1f} MB (target <= 60 MB)")


if __name__ == "__main__":
    main()
