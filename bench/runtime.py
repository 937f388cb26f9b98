"""The table runtime: sensor edge -> published state -> phone, idle CPU during a show, memory.

Prints figures; asserts nothing. Targets: edge -> phone (mock pin -> core -> SSE
client over HTTP, debounce excluded) p99 <= 20 ms and <= 2x the floor (a bare gpiozero callback
pushing the table's state to a bare Flask SSE app) measured in the same run; idle CPU <= 0.5 % of one core during
a 6-timer show; resident memory <= 60 MB.

Within each run the table and the floor take turns in blocks of edges, so that what else runs on
the machine weighs on both alike; "published" is the instant the runtime thread publishes.

    python bench/runtime.py [--edges 1000] [--idle-seconds 60] [--runs 3] [--blocks 100] [--deadline 600]
"""

import argparse
import json
import os
import select
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
DAEMON_START_S = 60.0  # `companion run` listens within this, or the bench gives up


def tilt_table(tmp: str, pins, fsync_delay_s: float = 0.0) -> Table:
    config = Config(database=Path(tmp) / "b.sqlite3", timers=default_timers("tilt"),
                    tilt=TiltConfig(settle_ms=SETTLE_S * 1000, start_window_s=0.0, remind_every_s=3600))
    store = SlowStore(config.database, fsync_delay_s) if fsync_delay_s else Store(config.database)
    return Table(config, store, pins, pin="1234").start()


class Stalled(RuntimeError):
    """A measurement did not finish within its deadline: how far it got, and what it saw instead."""


class TurnedGlass:
    """A served tilt table with only red running, one phone on its live stream, and red turned over on demand.

    The instant of publishing is noted on the runtime thread itself (a publisher listener), and the
    measuring thread waits for the phone alone, as the floor's does: no second reader wakes at each
    change to compete with the phone's stream for the interpreter. Every journal write is slowed by
    `fsync_delay_s` if given.
    """

    def __init__(self, fsync_delay_s: float = 0.0):
        self._folder = tempfile.TemporaryDirectory()
        pins = mock_pin_factory()
        self.table = tilt_table(self._folder.name, pins, fsync_delay_s)
        self._noted = threading.Condition()
        self._published_at: dict[int, float] = {}
        self.table.publisher.listen(self._note)
        self._server = ServerThread(make_server(self.table))
        self._phone = Phone(self._server.server.effective_port, "/api/show/events")
        self._switch_a, self._switch_b = (pins.pin(p) for p in self.table.rig.pins_of("red"))
        self._switch_a.drive_low()  # red stands end A up in its cradle
        time.sleep(0.1)
        self._seq = self.table.start_show(ONLY_RED)["seq"]
        self._turns = 0

    def _note(self, snapshot: dict) -> None:
        with self._noted:
            self._published_at[snapshot["seq"]] = time.perf_counter()
            self._noted.notify_all()

    def turn(self, edges: int, gap_s: float = 0.005, *, edge_deadline_s: float = 5.0,
             deadline_s: float = 600.0) -> tuple[list[float], list[float]]:
        """Turn red over `edges` times, `gap_s` apart. Milliseconds from the pin edge to the table publishing
        the new pose, and to the phone having it, debounce excluded.

        Each edge waits for the pose its pins now say (a passing "side", seen when this thread is held up
        between its two pin writes for longer than the settle window, is skipped), so the next edge never
        comes before the last turn settled, which would undo it unseen. Only red runs, so the show cannot
        end while it is turned. An edge not delivered within `edge_deadline_s`, or a run past `deadline_s`,
        raises Stalled naming the edge and what the table showed.
        """
        published, delivered = [], []
        ends = time.monotonic() + deadline_s
        for i in range(edges):
            target = "b_up" if self._turns % 2 == 0 else "a_up"  # turn it over: B up, then A up again
            leaving, arriving = (self._switch_a, self._switch_b) if self._turns % 2 == 0 else \
                (self._switch_b, self._switch_a)
            leaving.drive_high()
            start = time.perf_counter()  # the pair's last edge: the settle window starts here
            arriving.drive_low()
            self._turns += 1
            give_up = min(ends, time.monotonic() + edge_deadline_s)
            seq = self._phone.first(lambda data: json.loads(data)["timers"]["red"]["pose"] == target, self._seq,
                                    max(0.0, give_up - time.monotonic()))
            if seq is None:
                snap = self.table.snapshot()
                raise Stalled(f"edge {i + 1} of {edges}: red's turn to {target} not on the phone within "
                              f"{edge_deadline_s:g} s (table shows {snap['timers']['red']['pose']}, outcome "
                              f"{snap['outcome']}; {len(published)} edges measured)")
            with self._noted:  # noted as the runtime thread published it, before the stream could send it
                if not self._noted.wait_for(lambda: seq in self._published_at, max(0.0, give_up - time.monotonic())):
                    raise Stalled(f"edge {i + 1} of {edges}: the phone has state {seq}, never published")
            self._seq = seq
            published.append((self._published_at[seq] - start - SETTLE_S) * 1000)
            delivered.append((self._phone.arrived[seq] - start - SETTLE_S) * 1000)
            time.sleep(gap_s)
        return published, delivered

    def close(self) -> None:
        self._phone.close()
        self._server.close()
        self.table.stop()
        self._folder.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Floor:
    """The floor: a bare gpiozero callback pushing straight into a bare Flask SSE stream, one phone reading it.

    It sends `payload`, the table's own state as the phones get it, so that both carry the same bytes
    (as bench/sse.py's floor does).
    """

    def __init__(self, payload: str):
        from gpiozero import DigitalInputDevice

        app, publish, self._stop = floor_app(payload)
        self._server = ServerThread(make_server(None, app=app))
        self._phone = Phone(self._server.server.effective_port, "/events")
        self._pins = mock_pin_factory()
        self._switch = DigitalInputDevice(4, pull_up=True, pin_factory=self._pins)
        self._seq, self._edges = 0, 0

        def edge():
            self._seq += 1
            publish(self._seq)

        self._switch.when_activated = self._switch.when_deactivated = edge
        time.sleep(0.3)

    def push(self, edges: int, *, edge_deadline_s: float = 5.0, deadline_s: float = 600.0) -> list[float]:
        """Milliseconds from each of `edges` pin edges to the phone; Stalled past either deadline."""
        latencies = []
        ends = time.monotonic() + deadline_s
        for i in range(edges):
            start = time.perf_counter()
            pin = self._pins.pin(4)
            pin.drive_low() if self._edges % 2 == 0 else pin.drive_high()
            self._edges += 1
            arrived = self._phone.arrival(self._seq, timeout=max(0.0, min(ends - time.monotonic(), edge_deadline_s)))
            if arrived is None:
                raise Stalled(f"floor edge {i + 1} of {edges}: not delivered within {edge_deadline_s:g} s "
                              f"or the run's deadline ({len(latencies)} edges measured)")
            latencies.append((arrived - start) * 1000)
            time.sleep(0.005)
        return latencies

    def close(self) -> None:
        self._stop()
        self._phone.close()
        self._server.close()
        self._switch.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def edges_to_table(edges: int, fsync_delay_s: float = 0.0, gap_s: float = 0.005, *, edge_deadline_s: float = 5.0,
                   deadline_s: float = 600.0) -> tuple[list[float], list[float]]:
    """TurnedGlass.turn on a table of its own: published and delivered milliseconds for `edges` turns."""
    with TurnedGlass(fsync_delay_s) as glass:
        return glass.turn(edges, gap_s, edge_deadline_s=edge_deadline_s, deadline_s=deadline_s)


def edges_in_turn(edges: int, blocks: int, deadline_s: float) -> tuple[list[float], list[float], list[float]]:
    """Published, delivered and floor milliseconds, the table and the floor taking turns in `blocks` blocks,
    so that load from elsewhere on the machine weighs on both alike."""
    ends = time.monotonic() + deadline_s
    published, delivered, bare = [], [], []
    with TurnedGlass() as glass, Floor(glass.table.snapshot_text(glass.table.snapshot())) as floor:
        for block in range(blocks):
            count = edges * (block + 1) // blocks - edges * block // blocks
            p, d = glass.turn(count, deadline_s=max(1.0, ends - time.monotonic()))
            published += p
            delivered += d
            bare += floor.push(count, deadline_s=max(1.0, ends - time.monotonic()))
    return published, delivered, bare


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
            if not select.select([daemon.stdout], [], [], DAEMON_START_S)[0]:
                raise Stalled(f"the daemon did not start listening within {DAEMON_START_S:g} s")
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
            cpu = max(0.0, after.user + after.system - before.user - before.system) / seconds * 100
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
    parser.add_argument("--blocks", type=int, default=100,
                        help="blocks of edges per run, the table and the floor taking turns")
    args = parser.parse_args()

    ends = time.monotonic() + args.deadline
    rows = []
    print(f"sensor edge -> phone over {args.edges} edges, debounce window excluded (ms); load {load()}")
    print(f"  {'run':>3} {'published p50':>14} {'p99':>7} {'phone p50':>10} {'p99':>7} {'floor p50':>10} {'p99':>7}"
          f" {'phone/floor':>12}")
    for run in range(1, args.runs + 1):
        try:
            published, delivered, floor = edges_in_turn(args.edges, min(args.blocks, args.edges),
                                                         max(1.0, ends - time.monotonic()))
        except Stalled as e:
            print(f"  run {run}: STALLED: {e}")
            return 1
        row = (statistics.median(published), p99(published), statistics.median(delivered), p99(delivered),
               statistics.median(floor), p99(floor))
        rows.append(row + (row[3] / row[5],))
        print(f"  {run:>3} " + figures(rows[-1]))
    columns = list(zip(*rows))
    for label, pick in (("min", min), ("med", statistics.median), ("max", max)):
        print(f"  {label:>3} " + figures([pick(column) for column in columns]))
    print(f"  load {load()}")
    print("  targets: published p99 <= 1 ms; phone p99 <= 20 ms and <= 2x the floor (median of the runs)")
    try:
        cpu, rss = daemon_idle(args.idle_seconds)
    except Stalled as e:
        print(f"daemon: STALLED: {e}")
        return 1
    print(f"daemon during a 6-timer show over {args.idle_seconds:g} s: {cpu:.2f} % of one core "
          f"(target <= 0.5 %), resident memory {rss:.1f} MB (target <= 60 MB)")
    return 0


def figures(row) -> str:
    """One row of the table: published p50/p99, phone p50/p99, floor p50/p99 (ms), and phone p99 / floor p99."""
    return (f"{row[0]:>14.2f} {row[1]:>7.2f} {row[2]:>10.2f} {row[3]:>7.2f} {row[4]:>10.2f} {row[5]:>7.2f}"
            f" {row[6]:>11.2f}x")


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


if __name__ == "__main__":
    sys.exit(main())
