"""Live-update latency of the web layer against floors that are floors, and the weight of the table page.

Prints figures beside their floors; it asserts nothing. Targets: flip -> every
phone p50 within 1.5x the one-thread floor from 1 to 40 phones, free and
Pi-sized; every phone past the stream cap served (by polling), none refused;
the table page <= 100 KB in all with 0 external requests.

The product is measured as shipped: the daemon's own `make_server` with its
defaults (the SSE_MAX_STREAMS stream cap and its thread count). Latency is
from the call that changes the table (a flip on a demo table, journaled and
published by its runtime thread) to each phone's receipt of the new state.
The phones run in a process of their own, each from its own loopback address
(bench/phones.py), so they neither compete with the server for its
interpreter nor look like one client to it. Two floors are measured in the
same run, each serving the same payload bytes in the same SSE and chunked
framing:

- the one-thread floor: a server written from scratch on `selectors`, whose
  publishing thread writes each event, framed once, to every socket;
- the queue floor: a bare Flask app on waitress (started by the bench, not
  by the product's server) with a queue and a thread per stream;
- the contract floor: the one-thread floor doing the least the JSON API's
  contract asks of a flip: the flipped glass's sand turns in a fresh state
  of the product's size and shape (the product's own state, taken as data),
  which is serialised whole and written. No server that keeps the contract
  can be faster in this language on this box, so a target below it cannot
  be met without changing the contract.

Every floor is the bench's own code and imports nothing of the product
(tests/house/test_bench_floors.py), so no cost both pay can cancel out.

For each phone count the runs are interleaved (table, one-thread floor, queue
floor, contract floor, then again), so a change in the machine's load hits all alike; a run
that fails (the box too busy to flip in time) is run again once. Each figure
is the median of --runs, printed with the load average of each run. CPU per
flip is the bench process's CPU time (the table, its server or the floor;
never the phones) over the flips. Past the stream cap the table's phones are
told to poll: the final state's receipt is counted by path (stream, polling),
with the phones it never reached and the refusals.

    python bench/sse.py [--samples 200] [--clients 1 20] [--pi-sized]
    python bench/sse.py --growth [--phones 1 20 40 100 200] [--runs 3] [--quick] [--pi-sized]
    python bench/sse.py --profile [--samples 200]      # where a flip's CPU goes with 20 phones; its path with 1 and 20
    python bench/sse.py --growth --before REV           # the product of git revision REV, same bench

`--before REV` runs this bench on the product as it was at REV (a git
worktree of it, removed afterwards); the floors and the phones are today's.
"""

import argparse
import contextlib
import cProfile
import gzip
import http.client
import itertools
import json
import os
import pstats
import queue
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


def _product_root(argv) -> Path:
    """The product this run measures: this tree, or the tree named by --product (a worktree of --before)."""
    if "--product" in argv:
        return Path(argv[argv.index("--product") + 1])
    return ROOT


sys.path.insert(0, str(_product_root(sys.argv)))
sys.path.insert(0, str(BENCH))

import budget  # noqa: E402
import waitress  # noqa: E402
from flask import Flask, Response  # noqa: E402
from phones import Phones  # noqa: E402

from companion.errors import Conflict, RecordsBusy  # noqa: E402
from companion.table import demo_table  # noqa: E402
from companion.web import PAGE_BUDGET  # noqa: E402
from companion.web.server import ServerThread, make_server  # noqa: E402

# Purple runs and is flipped over and over; nothing else runs. Flipped at half sand (40 s) every few
# wall milliseconds, it swings between 40 s and 40 s on top minus a step: the show never ends by itself.
BENCH_EVENT = {"id": "bench", "name": "Bench", "countdown": "blue", "running": ["purple"], "lying": ["blue"]}
SPEED = 100.0  # show seconds per wall second: the glass reaches half sand in 0.4 s
GAP_S = 0.01  # between two changes: one at a time, as a table makes them
READY_S = 20.0  # every phone has its first state within this (200 phones connecting at once on a busy box)
RECEIPT_S = 5.0  # a change reaches every streaming phone within this, or is counted as not reaching some
FINAL_S = 20.0  # every phone, polling ones too, holds the last change within this
PROFILE_PHONES = 20
BUSY_TRIES = 5  # a show started on a box too busy for the store's busy wait is tried this often
PROFILE_TOP = 12

PHONE_NUMBERS = itertools.count()


class Phone(threading.Thread):
    """One client reading an event stream, noting when each event id arrives, and what it said."""

    def __init__(self, port: int, path: str):
        super().__init__(daemon=True)
        # Each phone from a loopback address of its own, as phones on the Wi-Fi have (one address may hold few streams).
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60,
                                                     source_address=(f"127.0.1.{next(PHONE_NUMBERS) % 250 + 1}", 0))
        self.connection.request("GET", path)
        self.socket = self.connection.sock  # the response's reader keeps it open past connection.close()
        self.response = self.connection.getresponse()
        self.arrived: dict[int, float] = {}
        self.data: dict[int, bytes] = {}  # each event's data line, as sent (parsed only by whoever asks)
        self.changed = threading.Condition()
        self.start()

    def run(self):
        event_id = None
        try:
            for raw in self.response:
                if raw.startswith(b"id: "):
                    event_id = int(raw[4:])
                    now = time.perf_counter()
                    with self.changed:
                        self.arrived[event_id] = now
                        self.changed.notify_all()
                elif raw.startswith(b"data: ") and event_id is not None:
                    with self.changed:
                        self.data[event_id] = raw[6:]
                        self.changed.notify_all()
        except (OSError, ValueError):
            pass  # the connection was closed

    def arrival(self, event_id: int, timeout: float = 5.0) -> float | None:
        """When this phone first had state `event_id` or a newer one (a stream sends only the newest)."""
        def seen():
            return [at for i, at in self.arrived.items() if i >= event_id]

        with self.changed:
            self.changed.wait_for(seen, timeout)
            return min(seen(), default=None)

    def first(self, wanted, after: int, timeout: float) -> int | None:
        """The id of the first event after id `after` whose data `wanted(data)` accepts, waiting up to `timeout` s."""
        def found():
            return next((i for i, data in self.data.items() if i > after and wanted(data)), None)

        with self.changed:
            return self.changed.wait_for(found, timeout)

    def close(self):
        """Hang up: the server sees the connection end (closing the connection alone leaves the socket open
        while this phone's reader holds the response, so the server would keep streaming to it)."""
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.connection.close()


def measure(port: int, path: str, clients: int, samples: int, publish, prepare=lambda: None) -> list[float]:
    """Milliseconds from each publish() (returning the event id) to its arrival at every client."""
    phones = [Phone(port, path) for _ in range(clients)]
    time.sleep(0.3)  # let every stream open and send its first state
    prepare()
    latencies = []
    for _ in range(samples):
        start = time.perf_counter()
        event_id = publish()
        for phone in phones:
            arrived = phone.arrival(event_id)
            if arrived is not None:
                latencies.append((arrived - start) * 1000)
        time.sleep(0.01)  # one change at a time, as a table makes them
    for phone in phones:
        phone.close()
    return latencies


def timed(call, count: int) -> list[float]:
    """Milliseconds each call takes."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
        time.sleep(0.01)
    return times


def plain_requests(port: int, clients: int, count: int = 50) -> list[float]:
    """Milliseconds for GET /api/show while `clients` streams are open."""
    phones = [Phone(port, "/api/show/events") for _ in range(clients)]
    time.sleep(0.3)
    url = f"http://127.0.0.1:{port}/api/show"
    times = timed(lambda: urllib.request.urlopen(url, timeout=10).read(), count)
    for phone in phones:
        phone.close()
    return times


def floor_app(payload: str):
    """The least an SSE server can do: a bare Flask app pushing a payload from a queue per client."""
    app = Flask("floor")
    queues: list[queue.SimpleQueue] = []

    @app.get("/events")
    def events():
        mine: queue.SimpleQueue = queue.SimpleQueue()
        queues.append(mine)

        def stream():
            yield "retry: 3000\n\n"
            while (seq := mine.get()) is not None:
                yield f"id: {seq}\nevent: state\ndata: {payload}\n\n"

        return Response(stream(), mimetype="text/event-stream")

    def publish(seq: int) -> int:
        for q in queues:
            q.put(seq)
        return seq

    def stop():
        """End every stream open now (a stream whose phone left ends only when it is next sent something)."""
        for q in queues:
            q.put(None)
        queues.clear()

    return app, publish, stop


def summary(label: str, values: list[float]) -> str:
    if not values:
        return f"  {label:<40} no samples arrived"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"  {label:<40} p50 {statistics.median(ordered):6.2f}   p99 {p99:6.2f}   max {ordered[-1]:6.2f}"
            f"   (n={len(ordered)})")


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else float("nan")


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("src", "href", "data-catalog"):
            if attrs.get(name) and (tag != "a" or name != "href"):
                self.urls.append(attrs[name])


PHONE_ACCEPTS = {"Accept-Encoding": "gzip, deflate, br"}  # as a phone's browser asks: what it downloads is counted


def page_weight(base: str) -> tuple[int, list[str], list[str]]:
    """Bytes a phone downloads for the table page and everything it loads (stylesheet, scripts and the modules they
    import, the message catalog), asking as a browser does (compressed where the server compresses), and the
    addresses outside this server."""
    seen, external, total, todo = set(), [], 0, [base]
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        if urlsplit(url).netloc != urlsplit(base).netloc:
            external.append(url)
            continue
        with urllib.request.urlopen(urllib.request.Request(url, headers=PHONE_ACCEPTS), timeout=10) as response:
            body = response.read()
            packed = response.headers.get("Content-Encoding") == "gzip"
        total += len(body)
        text = (gzip.decompress(body) if packed else body).decode()
        if url == base:
            links = Links()
            links.feed(text)
            todo += [urljoin(base, u) for u in links.urls]
        elif url.endswith(".js"):
            todo += [urljoin(url, u) for u in re.findall(r'from\s+"([^"]+)"', text)]
    return total, sorted(seen), external


def browser_requests(base: str) -> list[str] | None:
    """Every address Chromium asks for while showing the table page, or None without a browser."""
    if not Path("/usr/bin/chromium").exists():
        return None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    urls: list[str] = []
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        context = p.chromium.launch_persistent_context(
            profile, executable_path="/usr/bin/chromium", headless=True, viewport={"width": 390, "height": 844},
            args=["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        context.on("request", lambda request: urls.append(request.url))
        page = context.new_page()
        page.goto(base)
        page.wait_for_selector("#show-status:not(:empty)")
        page.wait_for_timeout(1000)
        context.close()
    return urls




# ---- the one-thread floor ------------------------------------------------------------------------------------

def chunk(data: bytes) -> bytes:
    """`data` as one piece of a chunked HTTP/1.1 answer (as waitress frames a stream's events)."""
    return b"%X\r\n%b\r\n" % (len(data), data)


def event(seq: int, payload: str) -> bytes:
    return f"id: {seq}\nevent: state\ndata: {payload}\n\n".encode()


class OneThreadFloor:
    """The least a server can do for SSE: one loop accepts and reads, the publishing thread writes each event,
    framed once, to every socket (whatever a socket does not take at once is left to the loop)."""

    HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nCache-Control: no-cache\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n") + chunk(b"retry: 3000\n\n")

    def __init__(self, payload: str):
        self.payload, self.seq = payload, 0
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=1024)
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, None)
        self.lock = threading.Lock()
        self.streams: dict[socket.socket, bytearray] = {}  # each open stream, and what it has not taken yet
        self.requests: dict[socket.socket, bytes] = {}  # connections whose request head is still arriving
        self.running = True
        self.thread = threading.Thread(target=self._loop, name="floor", daemon=True)
        self.thread.start()

    def _loop(self):
        while self.running:
            for key, mask in self.selector.select(0.1):
                with self.lock:
                    if key.data is None:
                        self._accept()
                    elif mask & selectors.EVENT_READ:
                        self._read(key.fileobj)
                    if mask & selectors.EVENT_WRITE:
                        self._flush(key.fileobj)

    def _accept(self):
        with contextlib.suppress(BlockingIOError):
            while True:
                sock, _ = self.listener.accept()
                sock.setblocking(False)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.requests[sock] = b""
                self.selector.register(sock, selectors.EVENT_READ, "phone")

    def _read(self, sock):
        try:
            data = sock.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._drop(sock)
            return
        if sock in self.requests:
            head = self.requests[sock] + data
            if b"\r\n\r\n" not in head:
                self.requests[sock] = head
                return
            del self.requests[sock]
            self.streams[sock] = bytearray()
            self._send(sock, self.HEAD + chunk(event(self.seq, self.payload)))

    def _send(self, sock, data: bytes):
        pending = self.streams[sock]
        if pending:
            pending += data
            return
        try:
            sent = sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:
            self._drop(sock)
            return
        if sent < len(data):
            pending += data[sent:]
            self.selector.modify(sock, selectors.EVENT_READ | selectors.EVENT_WRITE, "phone")

    def _flush(self, sock):
        pending = self.streams.get(sock)
        if not pending:
            return
        try:
            sent = sock.send(pending)
        except BlockingIOError:
            return
        except OSError:
            self._drop(sock)
            return
        del pending[:sent]
        if not pending:
            self.selector.modify(sock, selectors.EVENT_READ, "phone")

    def _drop(self, sock):
        self.streams.pop(sock, None)
        self.requests.pop(sock, None)
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(sock)
        sock.close()

    def publish(self, seq: int) -> int:
        data = chunk(event(seq, self.payload))
        with self.lock:
            self.seq = seq
            for sock in list(self.streams):
                self._send(sock, data)
        return seq

    def stop(self):
        """Hang up every stream (the next run's phones connect afresh)."""
        with self.lock:
            for sock in list(self.streams) + list(self.requests):
                self._drop(sock)

    def close(self):
        self.stop()
        self.running = False
        self.thread.join(timeout=2)
        self.selector.close()
        self.listener.close()


class ContractFloor(OneThreadFloor):
    """The one-thread floor doing what the contract asks of every flip, and nothing else: the flipped glass's
    sand turns and the whole state, a fresh object of the product's size and shape (the product's own state,
    taken as data), is serialised and written to every phone."""

    def __init__(self, template: dict):
        self.state = template
        super().__init__(json.dumps(template, ensure_ascii=False, separators=(",", ":")))

    def publish(self, seq: int) -> int:
        glass = self.state["timers"]["purple"]
        turned = {**glass, "top_s": glass["duration"] - glass["top_s"]}
        self.state = {**self.state, "seq": seq, "t": self.state["t"] + 0.01,
                      "timers": {**{c: {**g} for c, g in self.state["timers"].items()}, "purple": turned}}
        self.payload = json.dumps(self.state, ensure_ascii=False, separators=(",", ":"))
        return super().publish(seq)


class QueueFloor:
    """The queue floor served by waitress itself (not the product's server), on its own thread."""

    def __init__(self, app, threads: int):
        self.server = waitress.create_server(app, host="127.0.0.1", port=0, threads=threads)
        self.port = int(self.server.effective_port)  # waitress gives it as text
        self.thread = threading.Thread(target=self.server.run, name="queue floor", daemon=True)
        self.thread.start()

    def close(self):
        self.server.close()
        self.thread.join(timeout=2)


# ---- one run ---------------------------------------------------------------------------------------------------

def run_once(port: int, path: str, count: int, samples: int, publish, pi_sized: bool, prepare=lambda: None) -> dict:
    """`count` phones on `path` (another process, their own addresses), `samples` changes after `prepare()`:
    latencies (ms), CPU per change (ms of this process), how the last change reached the phones, the load average."""
    cores = budget.other_cores() if pi_sized else None
    with Phones(port, path, count, cores=cores) as phones:
        ready = phones.ready(READY_S)
        prepare()  # once the phones are in: a show started before would have run out meanwhile
        latencies, number = [], None
        cpu = time.process_time()
        for _ in range(samples):
            start = time.monotonic()
            number = publish()
            latencies += [(at - start) * 1000 for at in phones.receipt(number, RECEIPT_S)]
            time.sleep(GAP_S)
        cpu_ms = (time.process_time() - cpu) / samples * 1000
        final = phones.final(number, FINAL_S)
    return {"ms": latencies, "cpu": cpu_ms, "final": final, "ready": ready, "load": budget.load()}


def retried(call):
    """A run, and once more if it failed (the box too busy for the show, a phone's process lost)."""
    try:
        return call()
    except Exception as error:  # noqa: BLE001 - any failure of a run on a loaded box is worth a second try
        print(f"    (a run failed: {error!r}; run again)", flush=True)
        return call()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


class Bench:
    """The table as shipped and both floors, served at once; runs on each, interleaved."""

    def __init__(self, folder: str, most: int):
        self.table = demo_table(Path(folder) / "bench.sqlite3", pin="1234", speed=SPEED).start()
        self.server = ServerThread(make_server(self.table, "127.0.0.1", 0))  # the daemon's own configuration
        self.port = urlsplit(self.server.url).port
        self.fresh_show()
        payload = self.table.desk.snapshot_text(self.table.desk.snapshot())  # the product's own bytes of a state
        self.one = OneThreadFloor(payload)
        floor, self.publish_queue, self.stop_queue = floor_app(payload)
        self.queue_server = QueueFloor(floor, threads=most + 8)
        self.queue_port = self.queue_server.port
        self.contract = ContractFloor(json.loads(payload))
        self.counter = itertools.count(1)

    def fresh_show(self):
        for attempt in range(BUSY_TRIES):
            try:
                self.table.desk.abort()
                self.table.desk.start_show(BENCH_EVENT)
                break
            except RecordsBusy:  # the box so busy that a commit outlasted the store's busy wait: as a phone would, again
                if attempt == BUSY_TRIES - 1:
                    raise
                time.sleep(1.0)
        time.sleep(40 / SPEED)

    def flip(self) -> int:
        """A flip of purple; a show lost while the box was too busy to flip in time is started again."""
        try:
            return self.table.desk.flip("purple")["seq"]
        except Conflict:
            self.fresh_show()
            return self.table.desk.flip("purple")["seq"]

    def table_run(self, count, samples, pi_sized):
        return retried(lambda: run_once(self.port, "/api/show/events", count, samples, self.flip, pi_sized,
                                        self.fresh_show))

    def one_run(self, count, samples, pi_sized):
        self.table.desk.abort()  # the table idle meanwhile: its show's work is not charged to the floor
        try:
            return retried(lambda: run_once(self.one.port, "/events", count, samples,
                                            lambda: self.one.publish(next(self.counter)), pi_sized))
        finally:
            self.one.stop()

    def queue_run(self, count, samples, pi_sized):
        self.table.desk.abort()
        try:
            return retried(lambda: run_once(self.queue_port, "/events", count, samples,
                                            lambda: self.publish_queue(next(self.counter)), pi_sized))
        finally:
            self.stop_queue()  # the streams of the phones just gone end now, freeing their threads

    def contract_run(self, count, samples, pi_sized):
        self.table.desk.abort()
        try:
            return retried(lambda: run_once(self.contract.port, "/events", count, samples,
                                            lambda: self.contract.publish(next(self.counter)), pi_sized))
        finally:
            self.contract.stop()

    def close(self):
        self.stop_queue()
        self.one.close()
        self.contract.close()
        self.queue_server.close()
        self.server.close()
        self.table.stop()


def median_of(runs: list[dict], figure) -> float:
    return statistics.median(figure(run) for run in runs)


def loads(runs: list[dict]) -> str:
    return "/".join(f"{run['load']:.1f}" for run in runs)


def growth(args) -> int:
    """Flip -> phone against the number of phones, the table beside the three floors, interleaved, in one run."""
    counts = [1, 20, 50] if args.quick else sorted(args.phones)
    runs, samples = (1, min(args.samples, 20)) if args.quick else (args.runs, args.samples)
    with tempfile.TemporaryDirectory() as folder, budget.daemon_budget(args.pi_sized):
        bench = Bench(folder, max(counts))
        print(f"SSE growth ({budget.mode(args.pi_sized)}): flip -> every streaming phone, ms, median of {runs} "
              f"runs of {samples} changes; phones in another process, each from its own address", flush=True)
        print(f"  {'phones':>6} | {'table p50':>9} {'p99':>7} {'CPU/flip':>8} | {'1-thread p50':>12} {'p99':>7}"
              f" {'CPU/flip':>8} | {'queue p50':>9} {'p99':>7} | {'contract p50':>12} {'p99':>7} |"
              f" {'p50 table/1-thr':>15} {'contract/1-thr':>14} {'table/contract':>14} |"
              f" {'final: stream+poll, missing, refused':>36} |"
              f" load per run (table)")
        for count in counts:
            table, one, queued, contract = [], [], [], []
            for _ in range(runs):  # interleaved: load drift hits every server alike
                table.append(bench.table_run(count, samples, args.pi_sized))
                one.append(bench.one_run(count, samples, args.pi_sized))
                queued.append(bench.queue_run(count, samples, args.pi_sized))
                contract.append(bench.contract_run(count, samples, args.pi_sized))
            (t50, t99), (o50, o99), (q50, q99), (c50, c99) = (
                (median_of(ran, lambda r: percentile(r["ms"], 0.5)), median_of(ran, lambda r: p99(r["ms"])))
                for ran in (table, one, queued, contract))
            final = table[-1]["final"]
            got = f"{final['stream']}+{final['polling']}, {final['missing']}, {final['refused']}"
            print(f"  {count:>6} | {t50:>9.2f} {t99:>7.2f} {median_of(table, lambda r: r['cpu']):>8.2f} |"
                  f" {o50:>12.2f} {o99:>7.2f} {median_of(one, lambda r: r['cpu']):>8.2f} |"
                  f" {q50:>9.2f} {q99:>7.2f} | {c50:>12.2f} {c99:>7.2f} | {t50 / o50:>14.2f}x {c50 / o50:>13.2f}x"
                  f" {t50 / c50:>13.2f}x |"
                  f" {got:>36} | {loads(table)}", flush=True)
        bench.close()
    return 0


# ---- where a flip's CPU goes -------------------------------------------------------------------------------------

WAITS = {"acquire", "get", "poll", "sleep", "wait", "select"}  # blocking calls: a profile's time there is waiting


def thread_cpu() -> dict[str, float]:
    """CPU seconds each thread of this process has used, by name (numbers dropped: waitress's workers are one)."""
    names = {t.native_id: re.sub(r"[-_ ]?\d+", "", t.name) for t in threading.enumerate()}
    tick = os.sysconf("SC_CLK_TCK")
    used: dict[str, float] = {}
    for tid in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
            name = names.get(int(tid), "other")
            used[name] = used.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return used


def called(function: str) -> str:
    """A profile entry's bare name: "<method 'acquire' of '_thread.lock' objects>" -> "acquire".

    >>> called("<built-in method time.sleep>"), called("<method 'get' of '_queue.SimpleQueue' objects>")
    ('sleep', 'get')
    """
    quoted = re.search(r"'(\w+)'", function)
    return quoted[1] if quoted else re.split(r"[ .]", function.rstrip(">"))[-1]


@contextlib.contextmanager
def profiled_threads():
    """Every thread started in the block profiled on its own (cProfile sees one thread); yields the profiles by
    thread name (numbers dropped: waitress's workers count as one)."""
    by_name: dict[str, list[cProfile.Profile]] = {}
    original = threading.Thread.run

    def run(thread):
        profile = cProfile.Profile()
        by_name.setdefault(re.sub(r"[-_ ]?\d+", "", thread.name), []).append(profile)
        profile.enable()
        try:
            original(thread)
        finally:
            profile.disable()

    threading.Thread.run = run
    try:
        yield by_name
    finally:
        threading.Thread.run = original


PATH_PHONES = (1, PROFILE_PHONES)  # the flip's path is followed with one phone, then with many
PATH_STEPS = ("the flip taken", "snapshot built", "serialised", "writes begin", "written to every phone")


def flip_path(bench: "Bench", samples: int, phones: int = 1) -> dict[str, float]:
    """With `phones` phones: the median microseconds from the flip call to each step on its way to the phone's socket.

    The steps are noted by wrapping the table's publisher in this process (a measurement of where the time goes,
    beside the growth figures, which are taken unwrapped)."""
    publisher, marks, rows = bench.table.publisher, {}, []
    real_publish, real_text = publisher.publish, publisher.text

    def note(step):
        marks.setdefault(step, time.perf_counter())

    def publish(snapshot):
        note("snapshot built")
        return real_publish(snapshot)

    def text(*args):
        serialised = real_text(*args)
        note("serialised")
        return serialised

    publisher.publish, publisher.text = publish, text
    bench.table.live.input = lambda *args, real=bench.table.live.input: real(*args) and (note("the flip taken") or True)
    publisher.write_to(lambda seq, text: note("writes begin"))  # before the phones' (they join as they connect)
    publisher.listen(lambda snapshot: note("written to every phone"))  # listeners run once every write is done

    def flip():
        marks.clear()
        start = time.perf_counter()
        number = bench.flip()
        rows.append({step: (at - start) * 1e6 for step, at in marks.items()})
        return number

    run = run_once(bench.port, "/api/show/events", phones, samples, flip, False, bench.fresh_show)
    medians = {step: statistics.median(r[step] for r in rows if step in r) for step in PATH_STEPS}
    medians["the phone has it (p50)"] = percentile(run["ms"], 0.5) * 1000
    return medians


def profile(args) -> int:
    """A flip with PROFILE_PHONES phones: CPU per flip, each thread's share (unprofiled); the flip's path step by
    step with each of PATH_PHONES phones, beside the floor's; then the top entries of the busy threads (profiled:
    the run is slower, the shares are what count)."""
    samples = args.samples
    with tempfile.TemporaryDirectory() as folder:
        bench = Bench(folder, PROFILE_PHONES)
        bench.table_run(PROFILE_PHONES, 20, pi_sized=False)  # warmed up
        before, run = thread_cpu(), bench.table_run(PROFILE_PHONES, samples, pi_sized=False)
        after = thread_cpu()
        print(f"A flip with {PROFILE_PHONES} phones: CPU {run['cpu']:.2f} ms per flip, "
              f"p50 {percentile(run['ms'], 0.5):.2f} ms; load {run['load']:.1f}. CPU per flip by thread:")
        shares = {name: (after[name] - before.get(name, 0.0)) * 1000 / samples for name in after}
        for name, ms in sorted(shares.items(), key=lambda item: -item[1]):
            if ms >= 0.01:
                print(f"  {ms:7.3f} ms  {name}")
        floors = {count: bench.one_run(count, samples, pi_sized=False) for count in PATH_PHONES}
        bench.close()
    paths = {}
    for count in PATH_PHONES:  # a table of its own for each count: the steps are noted by wrapping its publisher
        with tempfile.TemporaryDirectory() as folder:
            bench = Bench(folder, count)
            paths[count] = flip_path(bench, samples, count)
            bench.close()
    print("\nFrom the flip call (in the caller's thread) to each step, median µs, by the number of phones. The same "
          "path runs slower with one phone: the box idles between flips, and its caches and clock cool (the "
          "floor's one write slows as much)")
    print("  " + "".join(f"{count:>8} ph" for count in PATH_PHONES))
    floor_row = {count: percentile(floors[count]["ms"], 0.5) * 1000 for count in PATH_PHONES}
    for step, row in [*((step, {c: paths[c][step] for c in PATH_PHONES}) for step in paths[PATH_PHONES[0]]),
                      ("the one-thread floor's phone has it (p50)", floor_row)]:
        print("  " + "".join(f"{row[count]:8.0f} µs" for count in PATH_PHONES) + f"  {step}")
    with tempfile.TemporaryDirectory() as folder, profiled_threads() as by_name:
        bench = Bench(folder, PROFILE_PHONES)
        caller = cProfile.Profile()  # a flip runs in its caller's thread, holding the table: this one's
        caller.enable()
        bench.table_run(PROFILE_PHONES, samples, pi_sized=False)
        caller.disable()
        by_name["MainThread"] = [caller]
        for name, profiles in by_name.items():
            if name not in ("MainThread", "table", "led-show", "journal", "waitress"):
                continue
            stats = pstats.Stats(profiles[0])
            for other in profiles[1:]:
                stats.add(other)
            rows = [(key, row) for key, row in stats.stats.items() if called(key[2]) not in WAITS]
            total = sum(row[2] for _, row in rows)  # tottime: each function's own time, waits left out
            print(f"\nthread {name} (profiled): {total * 1000 / samples:.3f} ms per flip outside waits; top entries")
            for (file, line, function), (_, calls, own, _, _) in sorted(rows, key=lambda r: -r[1][2])[:PROFILE_TOP]:
                where = f"{Path(file).name}:{line} {function}" if line else function
                print(f"  {own * 1000 / samples:7.3f} ms {100 * own / total:5.1f} %  {calls / samples:7.1f} calls  "
                      f"{where}")
        bench.close()
    return 0


# ---- the product of another revision ------------------------------------------------------------------------------

def before(args, argv) -> int:
    """This bench on the product as it was at `args.before` (a git worktree of it, removed afterwards)."""
    rest = [a for i, a in enumerate(argv) if a != "--before" and (i == 0 or argv[i - 1] != "--before")]
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "product"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(tree), args.before], cwd=ROOT, check=True)
        try:
            print(f"The product at {args.before}:", flush=True)
            return subprocess.run([sys.executable, str(Path(__file__).resolve()), *rest, "--product", str(tree)]).returncode
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="changes published per measurement")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 20], help="phones reading the stream")
    parser.add_argument("--growth", action="store_true", help="the curve against the number of phones")
    parser.add_argument("--phones", type=int, nargs="+", default=[1, 20, 40, 100, 200])
    parser.add_argument("--quick", action="store_true", help="with --growth: 1, 20 and 50 phones, one short run")
    parser.add_argument("--profile", action="store_true",
                        help=f"where a flip's CPU goes, with {PROFILE_PHONES} phones: the top entries of each thread")
    parser.add_argument("--before", metavar="REV", help="run this bench on the product of git revision REV")
    parser.add_argument("--product", help=argparse.SUPPRESS)  # the tree whose product is measured (--before's)
    budget.add_arguments(parser, runs=3)
    args = parser.parse_args(argv)
    if args.before:
        return before(args, argv)
    if args.profile:
        return profile(args)
    if args.growth:
        return growth(args)

    with tempfile.TemporaryDirectory() as folder, budget.daemon_budget(args.pi_sized):
        bench = Bench(folder, max(args.clients))
        table, port = bench.table, bench.port
        print(f"SSE update latency ({budget.mode(args.pi_sized)}), flip -> every phone's receipt, ms "
              f"({args.samples} changes each; phones in another process, each from its own address)")
        bench.fresh_show()
        change_ms = timed(lambda: table.desk.flip("purple"), args.samples)
        print(summary("the flip call (publish, then journal)", change_ms))
        for clients in args.clients:
            ran = {"table": bench.table_run(clients, args.samples, args.pi_sized),  # interleaved, one after another
                   "one-thread floor": bench.one_run(clients, args.samples, args.pi_sized),
                   "queue floor (Flask)": bench.queue_run(clients, args.samples, args.pi_sized),
                   "contract floor": bench.contract_run(clients, args.samples, args.pi_sized)}
            for label, run in ran.items():
                print(summary(f"{label}, {clients} phone(s)", run["ms"])
                      + f"   CPU/flip {run['cpu']:.2f} ms   load {run['load']:.1f}")
            final = ran["table"]["final"]
            print(f"  {'p50 table / one-thread floor':<40} "
                  f"{percentile(ran['table']['ms'], 0.5) / percentile(ran['one-thread floor']['ms'], 0.5):6.2f}x"
                  f"   (target <= 1.5x; the contract floor's: "
                  f"{percentile(ran['contract floor']['ms'], 0.5) / percentile(ran['one-thread floor']['ms'], 0.5):.2f}"
                  f"x)"
                  f"   last state: {final['stream']} by stream, {final['polling']} by polling, "
                  f"{final['missing']} missing, {final['refused']} refused")
        most = max(args.clients)
        print(f"Plain requests while {most} streams are open (GET /api/show), ms")
        print(summary(f"{most} streams open", plain_requests(port, most)))

        total, assets, external = page_weight(bench.server.url)
        print(f"Table page: {total} bytes downloaded in {len(assets)} files (target <= {PAGE_BUDGET}); "
              f"external addresses: {len(external)} {external or ''}")
        seen = browser_requests(bench.server.url)
        if seen is None:
            print("Requests seen by Chromium: not measured (no /usr/bin/chromium or playwright)")
        else:
            outside = [u for u in seen if urlsplit(u).netloc != urlsplit(bench.server.url).netloc]
            print(f"Requests seen by Chromium: {len(seen)}, external: {len(outside)} {outside or ''}")
        bench.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
