"""The table runtime: sensor edge -> published state -> phone, idle CPU during a show, memory.

Prints figures; asserts nothing. Targets: edge -> phone (mock pin -> core -> SSE
client over HTTP, debounce excluded) p99 <= 20 ms and <= 2x the floor (a bare gpiozero callback
pushing to a bare Flask SSE app) measured in the same run; idle CPU <= 0.5 % of one core during
a 6-timer show; resident memory <= 60 MB.

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
SETTLE_S = 0.01


def tilt_table(tmp: str, pins, fsync_delay_s: float = 0.0) -> Table:
    config = Config(database=Path(tmp) / "b.sqlite3", timers=default_timers("tilt"),
                    tilt=TiltConfig(settle_ms=SETTLE_S * 1000, start_window_s=0.0, remind_every_s=3600))
    store = SlowStore(config.database, fsync_delay_s) if fsync_delay_s else Store(config.database)
    return Table(config, store, pins, pin="1234").start()


def edges_to_table(edges: int, fsync_delay_s: float = 0.0, gap_s: float = 0.005) -> tuple[list[float], list[float]]:
    """Turn a glass over through its mock pins `edges` times, `gap_s` apart. Milliseconds from the pin
    edge to the table publishing the new pose, and to a phone's SSE stream delivering it, debounce
    excluded; with every journal write slowed by `fsync_delay_s` if given."""
    with tempfile.TemporaryDirectory() as tmp:
        pins = mock_pin_factory()
        table = tilt_table(tmp, pins, fsync_delay_s)
        server = ServerThread(make_server(table))
        phone = Phone(server.server.effective_port, "/api/show/events")
        try:
            switch_a, switch_b = (pins.pin(p) for p in table.rig.pins_of("red"))
            switch_a.drive_low()  # red stands end A up in its cradle
            time.sleep(0.1)
            snap = table.start_show(SIX)
            published, delivered = [], []
            for i in range(edges):
                before = snap["timers"]["red"]["pose"]
                start = time.perf_counter()
                if i % 2 == 0:  # turn it over: B up, then A up again
                    switch_a.drive_high(), switch_b.drive_low()
                else:
                    switch_b.drive_high(), switch_a.drive_low()
                while snap["timers"]["red"]["pose"] == before:
                    snap = table.wait_for_change(snap["seq"], 5)
                published.append((time.perf_counter() - start - SETTLE_S) * 1000)
                arrived = phone.arrival(snap["seq"])
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=1000)
    parser.add_argument("--idle-seconds", type=float, default=60)
    args = parser.parse_args()

    published, delivered = edges_to_table(args.edges)
    floor = edges_to_floor(args.edges)
    print(f"sensor edge -> phone over {args.edges} edges, debounce window excluded (ms):")
    for label, values in (("edge -> state published", published), ("edge -> phone's SSE stream", delivered),
                          ("floor: bare gpiozero -> bare Flask SSE", floor)):
        print(f"  {label:<40} p50 {statistics.median(values):6.2f}   p99 {p99(values):6.2f}")
    print(f"  p99 phone / floor: {p99(delivered) / p99(floor):.2f}x (target: p99 <= 20 ms and <= 2x the floor)")
    cpu, rss = daemon_idle(args.idle_seconds)
    print(f"daemon during a 6-timer show over {args.idle_seconds:g} s: {cpu:.2f} % of one core "
          f"(target <= 0.5 %), resident memory {rss:.1f} MB (target <= 60 MB)")


if __name__ == "__main__":
    main()
