"""The table runtime: sensor edge -> published state -> phone, idle CPU during a show, memory.

Prints figures; asserts nothing. Targets: edge -> phone (mock pin -> core -> SSE
client over HTTP, debounce excluded) p99 <= 20 ms and <= 2x the floor (a bare gpiozero callback
pushing to a bare Flask SSE app) measured in the same run; idle CPU <= 0.5 % of one core during
a 6-timer show; resident memory <= 60 MB.

    python bench/runtime.py [--edges 1000] [--idle-seconds 60] [--runs 3] [--deadline 600]
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.config import Config, TiltConfig, default_timers  # noqa: E402
from companion.hardware.mock import mock_pin_factory  # noqa: E402
from companion.records import SlowStore, Store  # noqa: E402
from companion.table import Table  # noqa: E402
from companion.web.server import ServerThread, make_server  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from sse import Phone, floor_app, p99  # noqa: E402

SIX = {"id": "all-six", "name": "All six", "hand_size": 4, "countdown": "purple", "countdown_start": 4,
       "running": ["red", "orange", "yellow", "green", "blue", "purple"], "lying": [], "rules": ""}
ONLY_RED = {"id": "only-red", "name": "Only red", "hand_size": 4, "countdown": "purple", "countdown_start": 4,
            "running": ["red"], "lying": ["purple"], "rules": ""}
SETTLE_S = 0.01


def tilt_table(tmp: str, pins, fsync_delay_s: float = 0.0) -> Table:
    config = Config(database=Path(tmp) / "b.sqlite3", timers=default_timers("tilt"),
                    tilt=TiltConfig(settle_ms=SETTLE_S * 1000, start_window_s=0.0, remind_every_s=3600))
    store = SlowStore(config.database, fsync_delay_s) if fsync_delay_s else Store(config.database)
    return Table(config, store, pins, pin="1234").start()


class Stalled(RuntimeError):
    """The table did not publish a turn within the deadline: the figures so far, and what it showed instead."""


def edges_to_table(edges: int, fsync_delay_s: float = 0.0, gap_s: float = 0.005, *, edge_deadline_s: float = 5.0,
                   deadline_s: float = 600.0) -> tuple[list[float], list[float]]:
    """Turn a glass over through its mock pins `edges` times, `gap_s` apart. Milliseconds from the pin
    edge to the table publishing the new pose, and to a phone's SSE stream delivering it, debounce
    excluded; with every journal write slowed by `fsync_delay_s` if given.

    Each edge waits for the pose its pins now say (a passing "side", seen when this thread is held up
    between its two pin writes for longer than the settle window, is skipped), so the next edge never
    comes before the last turn settled, which would undo it unseen. Only red runs, so the show cannot
    end while it is turned. An edge not published within `edge_deadline_s`, or a run past `deadline_s`,
    raises Stalled naming the edge and what the table showed.
    """
    with tempfile.TemporaryDirectory() as tmp:
        pins = mock_pin_factory()
        table = tilt_table(tmp, pins, fsync_delay_s)
        server = ServerThread(make_server(table))
        phone = Phone(server.server.effective_port, "/api/show/events")
        try:
            switch_a, switch_b = (pins.pin(p) for p in table.rig.pins_of("red"))
            switch_a.drive_low()  # red stands end A up in its cradle
            time.sleep(0.1)
            snap = table.start_show(ONLY_RED)
            published, delivered = [], []
            ends = time.monotonic() + deadline_s
            for i in range(edges):
                target = "b_up" if i % 2 == 0 else "a_up"  # turn it over: B up, then A up again
                start = time.perf_counter()
                if i % 2 == 0:
                    switch_a.drive_high(), switch_b.drive_low()
                else:
                    switch_b.drive_high(), switch_a.drive_low()
                give_up = min(ends, time.monotonic() + edge_deadline_s)
                while snap["timers"]["red"]["pose"] != target:
                    if time.monotonic() > give_up:
                        raise Stalled(f"edge {i + 1} of {edges}: red's turn to {target} not published within "
                                      f"{edge_deadline_s:g} s (table shows {snap['timers']['red']['pose']}, outcome "
                                      f"{snap['outcome']}; {len(published)} edges measured)")
                    snap = table.wait_for_change(snap["seq"], max(0.0, give_up - time.monotonic()))
                published.append((time.perf_counter() - start - SETTLE_S) * 1000)
                arrived = phone.arrival(snap["seq"], timeout=max(0.0, give_up - time.monotonic()))
                if arrived is None:
                    raise Stalled(f"edge {i + 1} of {edges}: published, but the phone did not have it within "
                                  f"{edge_deadline_s:g} s")
                delivered.append((arrived - start - SETTLE_S) * 1000)
                time.sleep(gap_s)
            return published, delivered
        finally:
            phone.close()
            server.close()
            table.stop()


def edges_to_floor(edges: int) -> list[float]:
    """The floor: a bare gpiozero callback pushing straight into a bare Flask SSE stream."""
    from gpiozero import DigitalInputDevice

    app, publish, stop = floor_app(json.dumps({"pose": "a_up"}))
    server = ServerThread(make_server(None, app=app))
    phone = Phone(server.server.effective_port, "/events")
    pins = mock_pin_factory()
    switch = DigitalInputDevice(4, pull_up=True, pin_factory=pins)
    seq = [0]

    def edge():
        seq[0] += 1
        publish(seq[0])

    switch.when_activated = switch.when_deactivated = edge
    time.sleep(0.3)
    latencies = []
    try:
        for i in range(edges):
            start = time.perf_counter()
            pins.pin(4).drive_low() if i % 2 == 0 else pins.pin(4).drive_high()
            latencies.append((phone.arrival(seq[0]) - start) * 1000)
            time.sleep(0.005)
        return latencies
    finally:
        stop()
        phone.close()
        server.close()
        switch.close()


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=1000)
    parser.add_argument("--idle-seconds", type=float, default=60)
    parser.add_argument("--runs", type=int, default=3, help="runs of the edge measurements (the median is shown)")
    parser.add_argument("--deadline", type=float, default=600, help="seconds the whole edge measurement may take")
    args = parser.parse_args()

    ends = time.monotonic() + args.deadline
    rows = []
    print(f"sensor edge -> phone over {args.edges} edges, debounce window excluded (ms); load {load()}")
    print(f"  {'run':>3} {'published p50':>14} {'p99':>7} {'phone p50':>10} {'p99':>7} {'floor p50':>10} {'p99':>7}"
          f" {'phone/floor':>12}")
    for run in range(1, args.runs + 1):
        try:
            published, delivered = edges_to_table(args.edges, deadline_s=max(1.0, ends - time.monotonic()))
        except Stalled as e:
            print(f"  run {run}: STALLED: {e}")
            return 1
        floor = edges_to_floor(args.edges)
        row = (statistics.median(published), p99(published), statistics.median(delivered), p99(delivered),
               statistics.median(floor), p99(floor))
        rows.append(row + (row[3] / row[5],))
        print(f"  {run:>3} {row[0]:>14.2f} {row[1]:>7.2f} {row[2]:>10.2f} {row[3]:>7.2f} {row[4]:>10.2f} {row[5]:>7.2f}"
              f" {row[3] / row[5]:>11.2f}x")
    middle = [statistics.median(column) for column in zip(*rows)]
    print(f"  {'med':>3} {middle[0]:>14.2f} {middle[1]:>7.2f} {middle[2]:>10.2f} {middle[3]:>7.2f} {middle[4]:>10.2f}"
          f" {middle[5]:>7.2f} {middle[6]:>11.2f}x")
    print("  targets: published p99 <= 1 ms; phone p99 <= 20 ms and <= 2x the floor (median of the runs)")
    cpu, rss = daemon_idle(args.idle_seconds)
    print(f"daemon during a 6-timer show over {args.idle_seconds:g} s: {cpu:.2f} % of one core "
          f"(target <= 0.5 %), resident memory {rss:.1f} MB (target <= 60 MB)")
    return 0


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


if __name__ == "__main__":
    sys.exit(main())
