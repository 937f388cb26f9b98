"""How long the daemon takes to exit on SIGTERM with live views open.

Starts `companion demo` in a process of its own, opens 0, 1 and 20 show
streams (each from a loopback address of its own, as phones on the Wi-Fi
have), sends SIGTERM and times the exit. Prints milliseconds per case.

    .venv/bin/python bench/stop.py [--streams 0 1 20] [--repeat 3]
"""

import argparse
import http.client
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READY = re.compile(r"Open http://[^:]+:(\d+)/")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_demo(db: Path) -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--port", str(free_port()), "--db", str(db)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    for line in process.stdout:
        found = READY.search(line)
        if found:
            return process, int(found[1])
    raise SystemExit("the demo did not start")


def open_stream(port: int, n: int) -> http.client.HTTPConnection:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(f"127.0.2.{n + 1}", 0))
    connection.request("GET", "/api/show/events")
    response = connection.getresponse()
    assert response.status == 200, response.status
    response.readline()  # the stream is running
    return connection


def answered(port: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/api/show")
    connection.getresponse().read()
    connection.close()


def stop_ms(streams: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        process, port = start_demo(Path(folder) / "bench.sqlite3")
        answered(port)  # the server loop runs, so the SIGTERM handler is in place
        phones = [open_stream(port, n) for n in range(streams)]
        started = time.perf_counter()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        elapsed = (time.perf_counter() - started) * 1000
        for phone in phones:
            phone.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, nargs="+", default=[0, 1, 20])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("SIGTERM to exit, ms (median of", args.repeat, "runs)")
    for streams in args.streams:
        times = [stop_ms(streams) for _ in range(args.repeat)]
        print(f"  {streams:3d} streams open: {statistics.median(times):7.0f}  (max {max(times):.0f})")


if __name__ == "__main__":
    main()
