"""Live-update latency of the web layer, and the weight of the table page.

Prints figures; it asserts nothing. Targets: 20 phones on SSE with
p99 update latency <= 50 ms while plain requests are still answered; the table
page <= 100 KB in all with 0 external requests.

Latency is from the call that changes the table (a flip on a demo table,
journaled and published by its runtime thread) to each client's receipt of
the new state, over a real waitress server on 127.0.0.1 with every client
reading its stream in a thread of its own. The floor, measured in the same
run, is a bare Flask app on the same server pushing the same payload from a
queue.

    python bench/sse.py [--samples 200] [--clients 1 20]
    python bench/sse.py --growth [--phones 1 10 50 100 200] [--runs 3] [--quick]

`--growth` prints the curve against the number of phones instead: for each
count, the table's and the floor's p99 (median of --runs), their ratio, the
ratio to the one-phone figure, and the server's work to turn one change into
every phone's event (one shared serialisation, against one per phone as the
streams did before).
"""

import argparse
import http.client
import itertools
import json
import os
import queue
import re
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask import Flask, Response  # noqa: E402

from companion.errors import Conflict  # noqa: E402
from companion.table import demo_table  # noqa: E402
from companion.web import PAGE_BUDGET  # noqa: E402
from companion.web.server import ServerThread, make_server  # noqa: E402

# Purple runs and is flipped over and over; nothing else runs. Flipped at half sand (40 s) every few
# wall milliseconds, it swings between 40 s and 40 s on top minus a step: the show never ends by itself.
BENCH_EVENT = {"id": "bench", "name": "Bench", "countdown": "blue", "running": ["purple"], "lying": ["blue"]}
SPEED = 100.0  # show seconds per wall second: the glass reaches half sand in 0.4 s


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


def page_weight(base: str) -> tuple[int, list[str], list[str]]:
    """Bytes of the table page and everything it loads (stylesheet, scripts and the modules they import,
    the message catalog), and the addresses outside this server."""
    seen, external, total, todo = set(), [], 0, [base]
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        if urlsplit(url).netloc != urlsplit(base).netloc:
            external.append(url)
            continue
        with urllib.request.urlopen(url, timeout=10) as response:
            body = response.read()
        total += len(body)
        if url == base:
            links = Links()
            links.feed(body.decode())
            todo += [urljoin(base, u) for u in links.urls]
        elif url.endswith(".js"):
            todo += [urljoin(url, u) for u in re.findall(r'from\s+"([^"]+)"', body.decode())]
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


def render_us(table, phones: int, rounds: int = 20) -> tuple[float, float]:
    """Microseconds of server work to turn one change into `phones` phones' events: shared, and one per phone."""
    from companion.skyrockets.snapshot import carried
    from companion.table.publisher import Publisher
    from companion.web.live import compact

    snapshot = table.snapshot()
    start = time.perf_counter()
    for _ in range(rounds):
        publisher = Publisher(1)  # a new change: nothing serialised yet
        fresh = publisher.publish(dict(snapshot))
        for _ in range(phones):
            publisher.text(fresh, fresh.get("t", 0.0))
    shared = (time.perf_counter() - start) / rounds * 1e6
    start = time.perf_counter()
    for _ in range(rounds):
        for _ in range(phones):
            compact(carried(snapshot, table.show_time()))
    each = (time.perf_counter() - start) / rounds * 1e6
    return shared, each


def growth(args) -> int:
    """p99 change -> phone against the number of phones, with the floor at the same count, in one run."""
    counts = [1, 20, 50] if args.quick else sorted(args.phones)
    runs, samples = (1, min(args.samples, 20)) if args.quick else (args.runs, args.samples)
    most = max(counts)
    with tempfile.TemporaryDirectory() as folder:
        table = demo_table(Path(folder) / "bench.sqlite3", pin="1234", speed=SPEED).start()
        server = ServerThread(make_server(table, "127.0.0.1", 0, threads=most + 8))
        port = urlsplit(server.url).port

        def fresh_show():
            table.abort()
            table.start_show(BENCH_EVENT)
            time.sleep(40 / SPEED)

        def flip() -> int:
            """A flip of purple; a show lost while the box was too busy to flip in time is started again."""
            try:
                return table.flip("purple")["seq"]
            except Conflict:
                fresh_show()
                return table.flip("purple")["seq"]

        fresh_show()
        payload = json.dumps(table.snapshot(), separators=(",", ":"))
        floor, publish_floor, stop_floor = floor_app(payload)
        floor_server = ServerThread(make_server(None, "127.0.0.1", 0, threads=most + 8, app=floor))
        floor_port = urlsplit(floor_server.url).port
        counter = iter(range(1, 10**9))
        print(f"SSE growth: change -> every phone's receipt, p99 ms, median of {runs} runs of {samples} changes; "
              f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        print(f"  {'phones':>6} {'table p99':>10} {'floor p99':>10} {'table/floor':>12} {'/ 1 phone':>10}"
              f" {'render shared us':>17} {'one per phone us':>17}")
        first = None
        for phones in counts:
            table_p99, floor_p99 = [], []
            for _ in range(runs):
                table_p99.append(p99(measure(port, "/api/show/events", phones, samples, flip, fresh_show)))
                floor_p99.append(p99(measure(floor_port, "/events", phones, samples,
                                             lambda: publish_floor(next(counter)))))
                stop_floor()  # the floor's streams of the phones just gone end now, freeing their threads
            t99, f99 = statistics.median(table_p99), statistics.median(floor_p99)
            first = first or t99
            shared, each = render_us(table, phones)
            print(f"  {phones:>6} {t99:>10.2f} {f99:>10.2f} {t99 / f99:>11.2f}x {t99 / first:>9.2f}x"
                  f" {shared:>17.1f} {each:>17.1f}")
        stop_floor()
        floor_server.close()
        server.close()
        table.stop()
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="changes published per measurement")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 20], help="phones reading the stream")
    parser.add_argument("--growth", action="store_true", help="the curve against the number of phones")
    parser.add_argument("--phones", type=int, nargs="+", default=[1, 10, 50, 100, 200])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="with --growth: 1, 20 and 50 phones, one short run")
    args = parser.parse_args(argv)
    if args.growth:
        return growth(args)

    with tempfile.TemporaryDirectory() as folder:
        table = demo_table(Path(folder) / "bench.sqlite3", pin="1234", speed=SPEED).start()
        server = ServerThread(make_server(table, "127.0.0.1", 0))
        port = urlsplit(server.url).port
        def fresh_show():
            table.abort()
            table.start_show(BENCH_EVENT)
            time.sleep(40 / SPEED)

        fresh_show()
        payload = json.dumps(table.snapshot(), separators=(",", ":"))
        floor, publish_floor, stop_floor = floor_app(payload)
        floor_server = ServerThread(make_server(None, "127.0.0.1", 0, app=floor))
        floor_port = urlsplit(floor_server.url).port
        counter = iter(range(1, 10**9))

        print(f"SSE update latency, change -> every client's receipt, ms ({args.samples} changes each)")
        fresh_show()
        change_ms = timed(lambda: table.flip("purple"), args.samples)
        print(summary("the flip call (publish, then journal)", change_ms))
        for clients in args.clients:
            table_ms = measure(port, "/api/show/events", clients, args.samples,
                               lambda: table.flip("purple")["seq"], fresh_show)
            floor_ms = measure(floor_port, "/events", clients, args.samples, lambda: publish_floor(next(counter)))
            stop_floor()
            print(summary(f"table, {clients} client(s)", table_ms))
            print(summary(f"floor (bare Flask SSE), {clients} client(s)", floor_ms))
            print(f"  {'p99 table / floor':<40} {p99(table_ms) / p99(floor_ms):6.2f}x")
        most = max(args.clients)
        print(f"Plain requests while {most} streams are open (GET /api/show), ms")
        print(summary(f"{most} streams open", plain_requests(port, most)))

        total, assets, external = page_weight(server.url)
        print(f"Table page: {total} bytes in {len(assets)} files (target <= {PAGE_BUDGET}); "
              f"external addresses: {len(external)} {external or ''}")
        seen = browser_requests(server.url)
        if seen is None:
            print("Requests seen by Chromium: not measured (no /usr/bin/chromium or playwright)")
        else:
            outside = [u for u in seen if urlsplit(u).netloc != urlsplit(server.url).netloc]
            print(f"Requests seen by Chromium: {len(seen)}, external: {len(outside)} {outside or ''}")

        stop_floor()
        floor_server.close()
        server.close()
        table.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
