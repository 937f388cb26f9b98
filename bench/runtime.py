"""The table runtime: sensor edge -> published state -> phone, idle CPU during a show, memory.

Prints figures; asserts nothing. Targets: edge -> phone (mock pin -> core -> SSE
client over HTTP, debounce excluded) p99 <= 20 ms and <= 2x the floor (a bare gpiozero callback
pushing the table's state to a bare Flask SSE app) measured in the same run; idle CPU <= 0.5 % of one core during
a 6-timer show; 20 phones on the table page cost <= 1 % of a core more; resident memory <= 60 MB.

Within each run the table and the floor take turns in blocks of edges, so that what else runs on
the machine weighs on both alike; "published" is the instant the runtime thread publishes.

Idle CPU is that of `companion run --mock` with the LED strip fitted (a fake one, drawn on the
table page), during a running 6-timer show, with 0 and 20 phones on the table page: the phones are
a process of their own, each from its own address, reading the page's two streams (the show's and
the strip's) as the page does. Beside it, the floor: a bare server that answers the same streams
and sends nothing, with the same phones. In --pi-sized mode the daemon (and the floor) get one core
beside a busy neighbour (bench/budget.py); the phones run on the other cores.

    python bench/runtime.py [--edges 1000] [--idle-seconds 60] [--runs 3] [--blocks 100] [--deadline 600]
                            [--pi-sized]
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
from budget import add_arguments, daemon_budget, mode, other_cores, pin  # noqa: E402
from sse import Phone, floor_app, p99  # noqa: E402

SIX = {"id": "all-six", "name": "All six", "hand_size": 4, "countdown": "purple", "countdown_start": 4,
       "running": ["red", "orange", "yellow", "green", "blue", "purple"], "lying": [], "rules": ""}
ONLY_RED = {"id": "only-red", "name": "Only red", "hand_size": 4, "countdown": "purple", "countdown_start": 4,
            "running": ["red"], "lying": ["purple"], "rules": ""}
SETTLE_S = 0.01
DAEMON_START_S = 60.0  # `companion run` listens within this, or the bench gives up
PAGE_STREAMS = ("/api/show/events", "/api/strip/events")  # what the table page reads live
PHONE_COUNTS = (0, 20)
SETTLE_IDLE_S = 1.0  # start-up work (the show's start, the phones' first states) is over by then


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
        self._seq = self.table.desk.start_show(ONLY_RED)["seq"]
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
                snap = self.table.desk.snapshot()
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
    with TurnedGlass() as glass, Floor(glass.table.desk.snapshot_text(glass.table.desk.snapshot())) as floor:
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


def daemon_config(tmp: str) -> Path:
    """`companion run --mock` settings: six tilt glasses and a fake LED strip (the one the table page draws)."""
    config = Path(tmp) / "config.toml"
    config.write_text(f'[table]\ndatabase = "{Path(tmp) / "t.sqlite3"}"\n[web]\nhost = "127.0.0.1"\npin = "1234"\n'
                      f'[tilt]\nstart_window_s = 0\n[strip]\nenabled = true\ndriver = "fake"\n')
    return config


def started(command: list[str], port: int) -> subprocess.Popen:
    """A server process, once it says it listens."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    if not select.select([process.stdout], [], [], DAEMON_START_S)[0]:
        process.kill()
        raise Stalled(f"{command[2]} did not start listening within {DAEMON_START_S:g} s")
    process.stdout.readline()  # "Open http://..." (or the floor's "listening") once it listens
    return process


class Phones:
    """`count` phones on the table page, in a process of their own: each, from its own address, holds the page's
    live streams open and reads whatever comes. `received()` is the bytes read so far."""

    def __init__(self, port: int, count: int, pi_sized: bool):
        self.process = subprocess.Popen([sys.executable, __file__, "--phones", str(port), str(count)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env={**os.environ, "PYTHONPATH": str(ROOT)})
        if pi_sized:
            pin(self.process.pid, other_cores())
        if not select.select([self.process.stdout], [], [], DAEMON_START_S)[0]:
            self.close()
            raise Stalled(f"{count} phones did not connect within {DAEMON_START_S:g} s")
        self.process.stdout.readline()

    def received(self) -> int:
        self.process.stdin.write("count\n")
        self.process.stdin.flush()
        return int(self.process.stdout.readline())

    def close(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


def play_phones(port: int, count: int) -> None:
    """The phones' process: open every phone's streams, say so, then read them all, telling the bytes read so far
    whenever asked on stdin."""
    import selectors

    chooser = selectors.DefaultSelector()
    for phone in range(count):
        for path in PAGE_STREAMS:
            sock = socket.socket()
            sock.bind((f"127.0.0.{2 + phone}", 0))  # one address a phone: the server counts streams per address
            sock.connect(("127.0.0.1", port))
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
            sock.setblocking(False)
            chooser.register(sock, selectors.EVENT_READ)
    chooser.register(sys.stdin, selectors.EVENT_READ)
    print("connected", flush=True)
    received = 0
    while True:
        for key, _ in chooser.select():
            if key.fileobj is sys.stdin:
                if not sys.stdin.readline():
                    return
                print(received, flush=True)
                continue
            data = key.fileobj.recv(1 << 16)
            if not data:
                chooser.unregister(key.fileobj)
            received += len(data)


def serve_nothing(port: int) -> None:
    """The floor's server: answers every stream with the head of an event stream, then sends nothing more."""
    import selectors

    server = socket.create_server(("127.0.0.1", port))
    server.setblocking(False)
    chooser = selectors.DefaultSelector()
    chooser.register(server, selectors.EVENT_READ)
    print("listening", flush=True)
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
    while True:
        for key, _ in chooser.select():
            if key.fileobj is server:
                conn, _ = server.accept()
                conn.setblocking(False)
                chooser.register(conn, selectors.EVENT_READ)
            elif key.fileobj.recv(4096):
                key.fileobj.sendall(head)
            else:
                chooser.unregister(key.fileobj)
                key.fileobj.close()


def cpu_over(pid: int, seconds: float) -> float:
    """Percent of one core process `pid` used over the next `seconds`."""
    import psutil

    process = psutil.Process(pid)
    before = process.cpu_times()
    time.sleep(seconds)
    after = process.cpu_times()
    return max(0.0, after.user + after.system - before.user - before.system) / seconds * 100


def daemon_idle(seconds: float, phones: int = 0, pi_sized: bool = False) -> dict:
    """`companion run --mock` (six tilt glasses, the fake strip) during a running 6-timer show with `phones` on the
    table page: % of one core, RSS MB, bytes a second each phone was sent."""
    import psutil

    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        daemon = started([sys.executable, "-m", "companion", "run", "--mock", "--config", str(daemon_config(tmp)),
                          "--port", str(port)], port)
        crowd = None
        try:
            request = urllib.request.Request(f"http://127.0.0.1:{port}/api/show/start", method="POST",
                                             data=json.dumps({"event": SIX}).encode(),
                                             headers={"X-Table-Pin": "1234", "Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=10).read()
            with daemon_budget(pi_sized, daemon.pid):
                crowd = Phones(port, phones, pi_sized) if phones else None
                time.sleep(SETTLE_IDLE_S)
                opened = crowd.received() if crowd else 0
                cpu = cpu_over(daemon.pid, seconds)
                sent = (crowd.received() - opened) if crowd else 0
                opened = opened / phones if crowd else 0.0  # the page's first states and layout
            return {"cpu": cpu, "rss": psutil.Process(daemon.pid).memory_info().rss / 2**20,
                    "per_phone": sent / seconds / phones if phones else 0.0, "opened": opened}
        finally:
            if crowd:
                crowd.close()
            daemon.terminate()
            daemon.wait(timeout=10)


def floor_idle(seconds: float, phones: int, pi_sized: bool) -> float:
    """The floor beside it: a bare server holding the same phones' streams open and sending nothing; % of a core."""
    port = free_port()
    floor = started([sys.executable, __file__, "--serve-nothing", str(port)], port)
    crowd = None
    try:
        with daemon_budget(pi_sized, floor.pid):
            crowd = Phones(port, phones, pi_sized) if phones else None
            time.sleep(SETTLE_IDLE_S)
            return cpu_over(floor.pid, seconds)
    finally:
        if crowd:
            crowd.close()
        floor.kill()
        floor.wait(timeout=10)


def idle_table(seconds: float, runs: int, pi_sized: bool) -> int:
    """Print the idle figures: for each number of phones, the daemon's CPU, what each phone was sent, the floor's
    CPU; the median of `runs`, with the load average of each run."""
    print(f"daemon during a 6-timer show over {seconds:g} s, the strip fitted, phones on the table page "
          f"({mode(pi_sized)}; median of {runs}):")
    print(f"  {'phones':>6} {'% of a core':>12} {'floor %':>8} {'bytes a phone first':>20} {'then a second':>14}"
          f" {'RSS MB':>7}  load of each run")
    idle = {}
    for phones in PHONE_COUNTS:
        rows, loads = [], []
        for _ in range(runs):
            try:
                figures = daemon_idle(seconds, phones, pi_sized)
                figures["floor"] = floor_idle(seconds, phones, pi_sized)
            except Stalled as e:
                print(f"daemon: STALLED: {e}")
                return 1
            rows.append(figures)
            loads.append(os.getloadavg()[0])
        idle[phones] = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
        f = idle[phones]
        print(f"  {phones:>6} {f['cpu']:>12.2f} {f['floor']:>8.2f} {f['opened']:>20.0f} {f['per_phone']:>14.0f}"
              f" {f['rss']:>7.1f}  "
              + " ".join(f"{x:.1f}" for x in loads))
    extra = idle[PHONE_COUNTS[-1]]["cpu"] - idle[0]["cpu"]
    print(f"  {PHONE_COUNTS[-1]} phones cost {extra:.2f} % of a core (target <= 1 %); with none, "
          f"{idle[0]['cpu']:.2f} % (target <= 0.5 %); resident memory {idle[0]['rss']:.1f} MB (target <= 60 MB)")
    return 0


def main() -> int:
    if sys.argv[1:2] == ["--phones"]:  # the phones' process
        play_phones(int(sys.argv[2]), int(sys.argv[3]))
        return 0
    if sys.argv[1:2] == ["--serve-nothing"]:  # the idle floor's server
        serve_nothing(int(sys.argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=1000)
    parser.add_argument("--idle-seconds", type=float, default=60)
    add_arguments(parser)
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
            with daemon_budget(args.pi_sized):  # the table and the floor run in this process, their phones too
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
    return idle_table(args.idle_seconds, args.runs, args.pi_sized)


def figures(row) -> str:
    """One row of the table: published p50/p99, phone p50/p99, floor p50/p99 (ms), and phone p99 / floor p99."""
    return (f"{row[0]:>14.2f} {row[1]:>7.2f} {row[2]:>10.2f} {row[3]:>7.2f} {row[4]:>10.2f} {row[5]:>7.2f}"
            f" {row[6]:>11.2f}x")


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


if __name__ == "__main__":
    sys.exit(main())
