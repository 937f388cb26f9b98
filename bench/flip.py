"""A flip over HTTP to every phone, and the CPU it costs the server, against the contract floor.

The product runs as shipped, in a process of its own: `companion run --mock`
on a config of the bench's (red is an LED glass with a flip button, so a
phone may flip it; no strip). A phone process posts each flip over HTTP (one
keep-alive connection, as a page's fetch) and the phones follow the show's
stream in a process of their own, each from its own address
(bench/phones.py). Past the stream cap the product tells a phone to poll; the
final state's receipt is counted by path, so every phone is seen.

The contract floor (FLOOR below, run as `python -c`) is a few lines of this
bench's own that import nothing of the product: one thread on `selectors`
that, for each flip POSTed to it, builds a fresh state of the product's size
and shape (its template is the product's own `/api/show` answer, taken as
data), serialises it with `json.dumps`, writes it as an event to every
phone, and answers the POST with it. Its `--raw` twin writes one prepared
frame instead (no build, no serialise): a reference, not a target. So is the
framework floor (FLOOR_FRAMEWORK): the contract floor's work in a bare Flask
app on waitress, as the product is built, which shows how much of the
product's CPU the framework alone takes.

Latency is from the flip's POST being sent to each streaming phone's receipt
of its state; CPU per flip is the server process's CPU time (summed over its
threads from /proc) over the flips. Runs are interleaved (product, floor, raw; then
again) and each figure is the median of `--runs`, with the load average of
each run. `--pi` repeats everything with both servers on one Pi 3 core's
CPU (bench/pi.py). Prints figures; it asserts nothing. Targets: p50 <= 1.5x
the contract floor from 1 to 40 phones; CPU per flip <= 3x the floor's.

    python bench/flip.py [--phones 1 20 40] [--flips 100] [--runs 3] [--pi] [--quick]
"""

import argparse
import contextlib
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from phones import Phones  # noqa: E402
from pi import PiBudget, add_arguments as add_pi_arguments  # noqa: E402

PIN = "1234"
# Red runs and is flipped over and over; nothing else runs. Flipped from half sand on, it swings about
# half sand: the show never ends by itself.
BENCH_EVENT = {"id": "bench", "name": "Bench", "countdown": "blue", "running": ["red"], "lying": ["blue"]}
GAP_S = 0.01  # between two flips: one at a time, as a table makes them
RECEIPT_S = 5.0
READY_S = 20.0

CONFIG = """[table]
database = "{db}"
mock_pins = true
[timers.red]
source = "emulated"
[web]
host = "127.0.0.1"
port = {port}
pin = "{pin}"
"""

# The contract floor: argv[1] the port, argv[2] the template state (JSON), argv[3] "raw" or "contract".
FLOOR = r"""
import json, selectors, socket, sys
port, state, raw = int(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3] == "raw"
sel, phones, seq = selectors.DefaultSelector(), [], state["seq"]
server = socket.create_server(("127.0.0.1", port), backlog=256)
sel.register(server, selectors.EVENT_READ)
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
prepared = json.dumps(state, separators=(",", ":")).encode()
def chunk(data):
    return b"%x\r\n%s\r\n" % (len(data), data)
last = chunk(b"id: %d\nevent: state\ndata: %s\n\n" % (seq, prepared))
def flip(timer):
    global seq
    seq += 1
    if raw:  # only the number changes
        return prepared.replace(b'"seq":%d' % state["seq"], b'"seq":%d' % seq, 1)
    glass = state["timers"][timer]
    turned = {**glass, "pose": "b_up" if glass["pose"] == "a_up" else "a_up", "top_s": glass["duration"] - glass["top_s"]}
    whole = {**state, "seq": seq, "t": state["t"] + 0.01, "timers": {**{c: {**g} for c, g in state["timers"].items()}, timer: turned}}
    state.update(whole)
    return json.dumps(whole, separators=(",", ":")).encode()
def request(conn):
    global last
    data = conn.recv(65536)
    if not data:
        sel.unregister(conn); conn.close(); return
    head, _, body = data.partition(b"\r\n\r\n")
    if head.startswith(b"GET"):
        sel.unregister(conn); conn.sendall(HEAD + chunk(b"retry: 3000\n\n") + last); phones.append(conn); return
    length = int(next(l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")))
    while len(body) < length:
        body += conn.recv(65536)
    body = flip(json.loads(body)["timer"])
    last = chunk(b"id: %d\nevent: state\ndata: %s\n\n" % (seq, body))
    for phone in list(phones):
        try:
            phone.sendall(last)
        except OSError:
            phones.remove(phone)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
while True:
    for key, _ in sel.select():
        if key.fileobj is server:
            conn, _ = server.accept(); conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sel.register(conn, selectors.EVENT_READ)
        else:
            request(key.fileobj)
"""


# The framework floor, for reference: the contract floor's work done the way the product is built, a bare Flask app
# on waitress (a thread for each phone's stream, fed by a queue; the POST read by Flask). argv as FLOOR's.
FLOOR_FRAMEWORK = r"""
import json, queue, sys
from flask import Flask, Response, request
from waitress import serve
port, state = int(sys.argv[1]), json.loads(sys.argv[2])
app, phones = Flask("floor"), []
def event(text):
    return "id: %d\nevent: state\ndata: %s\n\n" % (state["seq"], text)
@app.get("/events")
def events():
    mine = queue.SimpleQueue()
    phones.append(mine)
    def stream():
        try:
            yield "retry: 3000\n\n" + event(json.dumps(state, separators=(",", ":")))
            while True:
                yield mine.get()
        finally:  # the phone left (waitress saw it at the next write)
            phones.remove(mine)
    return Response(stream(), mimetype="text/event-stream")
@app.post("/flip")
def flip():
    timer = request.get_json()["timer"]
    glass = state["timers"][timer]
    turned = {**glass, "pose": "b_up" if glass["pose"] == "a_up" else "a_up", "top_s": glass["duration"] - glass["top_s"]}
    whole = {**state, "seq": state["seq"] + 1, "t": state["t"] + 0.01,
             "timers": {**{c: {**g} for c, g in state["timers"].items()}, timer: turned}}
    state.update(whole)
    text = json.dumps(whole, separators=(",", ":"))
    for phone in phones:
        phone.put(event(text))
    return Response(text, mimetype="application/json")
serve(app, host="127.0.0.1", port=port, threads=256, _quiet=True)  # a left phone holds its thread until the next flip
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_s(pid: int) -> float:
    """The process's CPU time so far, summed over its threads (schedstat: nanoseconds, not 10 ms ticks).
    A thread that ended meanwhile is missed: the servers measured keep theirs."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


def wait_for(port: int, path: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", path)
            connection.getresponse()  # its head: a stream's body never ends
            connection.close()
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"nothing answered on port {port}")
        time.sleep(0.1)


class Server:
    """A server process, its port, and the path its flips and stream take."""

    def __init__(self, name: str, command: list[str], port: int, flip: str, stream: str, ready: str):
        self.name, self.port, self.flip_path, self.stream = name, port, flip, stream
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            wait_for(port, ready)
        except BaseException:
            self.close()
            raise

    def post(self, connection, path: str, body: dict) -> dict:
        connection.request("POST", path, body=json.dumps(body),
                           headers={"Content-Type": "application/json", "X-Table-Pin": PIN})
        answer = connection.getresponse()
        data = answer.read()
        if answer.status not in (200, 201):
            raise RuntimeError(f"{self.name}: {path} answered {answer.status}: {data[:200]!r}")
        return json.loads(data)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def product(tmp: Path) -> Server:
    port = free_port()
    config = tmp / "config.toml"
    config.write_text(CONFIG.format(db=tmp / "table.sqlite3", port=port, pin=PIN))
    server = Server("product", [sys.executable, "-m", "companion", "run", "--mock", "--config", str(config),
                                "--no-mdns"], port, "/api/show/flip", "/api/show/events", "/api/show")
    start_show(server)
    return server


def start_show(server: Server) -> None:
    """The bench's show started, red left to run down to half sand (from there a flip keeps it swinging)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    server.post(connection, "/api/show/start", {"event": BENCH_EVENT})
    connection.close()
    red = json.loads(urllib_get(server.port, "/api/show"))["timers"]["red"]
    time.sleep(max(0.0, red["top_s"] - red["duration"] / 2))  # the show time runs at the wall's


def keep_red_running(server: Server, connection) -> None:
    """Red ran on while the floors had their turn: turned to keep at least half its sand on top, or, where it ran
    out (a very busy machine makes a turn of the floors longer than a glass), a new show started."""
    shown = json.loads(urllib_get(server.port, "/api/show"))
    if shown["outcome"] != "running":
        start_show(server)
        shown = json.loads(urllib_get(server.port, "/api/show"))
    red = shown["timers"]["red"]
    if red["top_s"] < red["duration"] / 2:
        server.post(connection, server.flip_path, {"timer": "red"})


def floor(name: str, template: dict) -> Server:
    port = free_port()
    if name == "framework":
        return Server(name, [sys.executable, "-c", FLOOR_FRAMEWORK, str(port), json.dumps(template)], port, "/flip",
                      "/events", "/events")
    mode = "raw" if name == "raw floor" else "contract"
    return Server(name, [sys.executable, "-c", FLOOR, str(port), json.dumps(template), mode], port, "/flip",
                  "/events", "/events")


def run(server: Server, phones: int, flips: int) -> dict:
    """`flips` flips posted over HTTP with `phones` following: latencies (ms), CPU per flip (ms), final counts."""
    with Phones(server.port, server.stream, phones) as followers:
        followers.ready(READY_S)
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        if server.name == "product":
            keep_red_running(server, connection)
        connection.sock = socket.create_connection(("127.0.0.1", server.port))
        connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        latencies, cpu_before = [], cpu_s(server.process.pid)
        for _ in range(flips):
            sent = time.monotonic()
            seq = server.post(connection, server.flip_path, {"timer": "red"})["seq"]
            latencies += [(t - sent) * 1000 for t in followers.receipt(seq, RECEIPT_S)]
            time.sleep(GAP_S)
        cpu = (cpu_s(server.process.pid) - cpu_before) * 1000 / flips
        final = followers.final(seq, RECEIPT_S * 4)
        connection.close()
    return {"p50": statistics.median(latencies) if latencies else float("nan"), "cpu": cpu, "final": final,
            "load": os.getloadavg()[0]}


def table(servers: list[Server], counts: list[int], flips: int, runs: int, label: str) -> None:
    print(f"\n{label}: flip over HTTP -> every phone, median of {runs} runs, interleaved")
    print(f"{'phones':>6} | {'server':<15} {'p50 ms':>7} {'CPU/flip ms':>11} | {'loads':<17} | final (stream+poll, missing)")
    for count in counts:
        got = {server.name: [] for server in servers}
        for _ in range(runs):
            for server in servers:
                got[server.name].append(run(server, count, flips))
        medians = {}
        for server in servers:
            ran = got[server.name]
            p50, cpu = statistics.median(r["p50"] for r in ran), statistics.median(r["cpu"] for r in ran)
            medians[server.name] = p50, cpu
            final = ran[-1]["final"]
            loads = " ".join(f"{r['load']:.1f}" for r in ran)
            print(f"{count:>6} | {server.name:<15} {p50:>7.2f} {cpu:>11.3f} | {loads:<17} | "
                  f"{final['stream']}+{final['polling']}, {final['missing']}")
        (p, pc), (f, fc), (w, wc) = medians["product"], medians["contract floor"], medians["framework"]
        print(f"{'':>6} | product / contract floor: p50 {p / f:.2f}x (target <= 1.5x), "
              f"CPU {pc / fc:.2f}x (target <= 3x); framework / contract floor: p50 {w / f:.2f}x, CPU {wc / fc:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, nargs="+", default=[1, 20, 40])
    parser.add_argument("--flips", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="CI's smoke: 1 and 20 phones, 30 flips, one run")
    add_pi_arguments(parser)
    args = parser.parse_args()
    if args.quick:
        args.phones, args.flips, args.runs = [1, 20], 30, 1
    with tempfile.TemporaryDirectory() as tmp:
        servers = [product(Path(tmp))]
        try:
            template = json.loads(urllib_get(servers[0].port, "/api/show"))
            servers += [floor("contract floor", template), floor("raw floor", template), floor("framework", template)]
            table(servers, args.phones, args.flips, args.runs, "free")
            if args.pi:
                with PiBudget(args.pi_factor) as budget:
                    for server in servers:
                        budget.add(server.process.pid)
                    table(servers, args.phones, args.flips, args.runs, budget.describe())
        finally:
            for server in servers:
                server.close()


def urllib_get(port: int, path: str) -> bytes:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path)
    data = connection.getresponse().read()
    connection.close()
    return data


if __name__ == "__main__":
    main()
