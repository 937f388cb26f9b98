"""Many tables on one broker: the hall page's latency from a table's change to a browser, beside a floor.

Prints figures; it asserts nothing. Each run has the same tables on one local
Mosquitto, in two phases one after the other: the product (`companion hall`
as shipped, its own process) and the floor (a bare paho subscriber that
frames each state it hears as the hall's SSE event and writes it at once to
every browser, one thread, no checks of budgets, no coalescing). The same
headless Chromium page (the hall's own page, its scripts reading the stream)
notes when each change appears in a card (reading only the cards a change
touched); a plain HTTP reader in a process of its own notes when it came on
the stream, which tells the server's share of the time from the browser's.
The page also notes each time its stream opens again, fails or is told to
poll: a browser that fell back to polling shows changes seconds late, and
the line says so.

The tables, each a simulated table behind the bridge as shipped (its thread,
its pacing, paho), play one of two workloads, each printed on its own line:

- "play", the figure the hall is held to: every table is in play and timed,
  changing as a table changes when people turn glasses: a flip every second
  or two (exponential gaps, mean PLAY_MEAN_GAP_S, a fixed seed), and now and
  then a burst of two or three changes within the bridge's pacing interval
  (a turn, the run-out it causes, the countdown's advance: BURST_SHARE of
  the changes, BURST_WITHIN_S apart). A hall of 200 such tables hears about
  150 states a second;
- "stress", printed beside it and named so: STRESS_PROBES timed tables
  change every STRESS_MEAN_GAP_S on average, and every other table is busy,
  changing every BUSY_EVERY_S, which its bridge paces to its most (ten
  messages a second): the worst every table can send at once, 1 600 states
  a second at 200 tables. No hall of tables in play sees that; it shows how
  the hall bears it (and the harness's 160 busy bridges take a good part of
  a core of their own, beside the hall).

A change counts as shown at the first instant its card shows it or a newer
state (the newest state wins on the whole path, so a change overtaken by the
next is shown by it). A change is never shown when its card never showed it
although it stood alone on its table for LOST_AFTER_S (or it was the last):
that is a change lost, and must be 0. A percentile is printed only over
enough samples to be one (at least MIN_BEYOND beyond it: 1 000 for p99),
else "-".

    python bench/mqtt_hall.py [--tables 50] [--samples 1000] [--workload play,stress]
    python bench/mqtt_hall.py --growth 20,100,200 --runs 3 [--pi-sized] [--load 5]

Each run measures the hall and the floor one after the other on the same
tables, the hall first in odd runs and the floor first in even ones, so a
change in the box's load between them weighs on both alike.

`--pi-sized` (bench/budget.py): the hall (or the floor) pinned to one core
beside a busy neighbour; the tables, the broker, the browser and the load on
the other cores. `--load N` keeps the box at about load N with busy
processes (never on the hall's core in Pi-sized mode), so "at load ~5" can
be had again. Beside each run's figures: the 1-minute load average at its
end, and the mean runnable count while its changes were made (sampled every
0.1 s), which is what the keeper holds at N: a phase shorter than a minute
ends before the load average catches up with it.
"""

import argparse
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import psutil  # noqa: E402

import budget  # noqa: E402
from companion.clock import FakeClock  # noqa: E402
from companion.mqtt.bridge import Bridge  # noqa: E402
from companion.mqtt.mosquitto import Mosquitto, free_port, mosquitto_missing  # noqa: E402
from companion.mqtt.settings import from_url  # noqa: E402
from companion.ports import FixedDoor, Ports  # noqa: E402
from companion.table import demo_table  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BUSY_EVERY_S = 0.05  # a busy table (stress) changes twenty times a second; its bridge sends ten
STRESS_PROBES = 40  # stress: the tables whose changes are timed (all of them below that many tables)
STRESS_MEAN_GAP_S = 0.5  # stress: a timed table changes every half second on average, at random
PLAY_MEAN_GAP_S = 1.5  # play: a table in play changes every second or two, at random
BURST_SHARE = 0.2  # play: this share of the changes come with one or two more right behind them
BURST_WITHIN_S = 0.03  # play: a burst's changes this far apart at most, within the bridge's pacing interval
WORKLOADS = ("play", "stress")
LOST_AFTER_S = 1.0  # a change that stood this long alone and never showed was lost, not overtaken
SETTLE_S = 2.0  # after the last change, how long the page may take before what it lacks counts as lost
MIN_BEYOND = 10  # samples beyond a percentile for it to be printed: p99 needs 1 000, p95 200
CHROMIUM = "/usr/bin/chromium"
WATCH_PROBES = """() => {
  // Only the cards a mutation touched are read: a watcher reading all 200 at each of the page's draws would cost the
  // page's own thread more than the page does.
  window.seen = {};
  const PROBE = '.hall-card[data-table^="probe-"]';
  const note = (card, now) => {
    const name = card.querySelector('.hall-event').textContent;
    const seen = window.seen[card.dataset.table] ??= {};
    if (!(name in seen)) seen[name] = now;
  };
  const start = Date.now();
  for (const card of document.querySelectorAll(PROBE)) note(card, start);
  new MutationObserver((records) => {
    const now = Date.now();
    const cards = new Set();
    for (const record of records) {
      const element = record.target.nodeType === 1 ? record.target : record.target.parentElement;
      const card = element?.closest(PROBE);
      if (card) cards.add(card);
      for (const node of record.addedNodes) if (node.nodeType === 1 && node.matches(PROBE)) cards.add(node);
    }
    cards.forEach((card) => note(card, now));
  }).observe(document.getElementById('cards'), {subtree: true, childList: true, characterData: true});
}"""


# Before the page's scripts run: each time its stream opens, fails or is told to poll, noted with when (wall ms).
COUNT_STREAMS = """(() => {
  window.streamLog = [];
  const Real = window.EventSource;
  window.EventSource = function (url, options) {
    const source = new Real(url, options);
    for (const kind of ["open", "error", "poll"]) {
      source.addEventListener(kind, () => window.streamLog.push([kind, Date.now()]));
    }
    return source;
  };
  window.EventSource.prototype = Real.prototype;
  Object.assign(window.EventSource, {CONNECTING: 0, OPEN: 1, CLOSED: 2});
})()"""


class SimulatedTable:
    """What a bridge asks of a table, with a running show's state that changes when told to."""

    def __init__(self, template: dict):
        self._changed = threading.Condition()
        self._state = dict(template, seq=1)
        self.ports = Ports(desk=self, ledger=self, games=None, setup=None, door=FixedDoor("0000"))  # what a bridge reads

    def snapshot(self) -> dict:
        with self._changed:
            return self._state

    def wait_for_change(self, after_seq: int, timeout: float) -> dict:
        with self._changed:
            self._changed.wait_for(lambda: self._state["seq"] > after_seq, timeout)
            return self._state

    def shows(self) -> list:
        return []

    def show_log(self, show_id: int):
        return None

    def change(self, **fields) -> None:
        with self._changed:
            self._state = {**self._state, **fields, "seq": self._state["seq"] + 1}
            self._changed.notify_all()

    def tick(self, dt: float) -> None:
        state = self.snapshot()
        timers = {c: dict(t, top_s=round(max(0.0, t["top_s"] - dt), 3) if t["state"] == "running" else t["top_s"])
                  for c, t in state["timers"].items()}
        self.change(t=round(state["t"] + dt, 3), timers=timers)


def running_state() -> dict:
    """A real table's state a few seconds into a show, as the template of every simulated one."""
    clock = FakeClock()
    folder = Path(tempfile.mkdtemp(prefix="bench-hall-"))
    table = demo_table(folder / "t.sqlite3", clock=clock)
    table.desk.start_show("training")
    clock.advance(3.0)
    table.pump()
    state = table.desk.snapshot()
    table.stop()
    return state


# ---- the tables ---------------------------------------------------------------------------------

def play_busy(count: int, broker_url: str) -> int:
    """The busy tables (a child process): each a bridge on the broker, changing every BUSY_EVERY_S until ended."""
    template = running_state()
    tables = [SimulatedTable(template) for _ in range(count)]
    bridges = [Bridge(t, from_url(broker_url, table=f"table-{i:03d}")).start() for i, t in enumerate(tables)]
    print(f"{len(bridges)} busy tables playing", file=sys.stderr)
    while True:
        time.sleep(BUSY_EVERY_S)
        for table in tables:
            table.tick(BUSY_EVERY_S)


class Probes:
    """The timed tables: each behind its own bridge, changing its event's name at random gaps (mean `mean_gap_s`),
    with `bursts`: now and then two or three changes within the bridge's pacing interval."""

    def __init__(self, count: int, broker_url: str, template: dict, *, mean_gap_s: float, bursts: bool,
                 seed: int = 34):
        self.names = [f"probe-{i:03d}" for i in range(count)]
        self.tables = {name: SimulatedTable(dict(template, event={"id": "probe", "name": "start"}))
                       for name in self.names}
        self.bridges = [Bridge(t, from_url(broker_url, table=name)).start() for name, t in self.tables.items()]
        self.mean_gap_s, self.bursts = mean_gap_s, bursts
        self.random = random.Random(seed)
        self.n = 0

    def gaps(self):
        """The gaps between one table's changes, forever: mostly spread out, sometimes a burst."""
        while True:
            yield self.random.expovariate(1 / self.mean_gap_s)
            if self.bursts and self.random.random() < BURST_SHARE:
                for _ in range(self.random.choice((1, 2))):
                    yield self.random.uniform(0.002, BURST_WITHIN_S)

    def play(self, samples: int) -> list[tuple[str, str, float]]:
        """Make `samples` changes across the probes; each (table, name, when in wall ms)."""
        gaps = {name: self.gaps() for name in self.names}
        due = {name: time.monotonic() + next(gaps[name]) for name in self.names}
        changes = []
        while len(changes) < samples:
            name = min(due, key=due.get)
            time.sleep(max(0.0, due[name] - time.monotonic()))
            self.n += 1
            label = f"c{self.n}"
            changes.append((name, label, time.time() * 1000))
            self.tables[name].change(event={"id": "probe", "name": label})
            due[name] += next(gaps[name])
        return changes

    def stop(self) -> None:
        for bridge in self.bridges:
            bridge.stop()


def judged(changes: list[tuple[str, str, float]], seen: dict[str, dict[str, float]]) -> dict:
    """Latencies (ms) of the changes shown (each by itself or a newer state), and the changes lost.

    >>> r = judged([("p", "a", 0.0), ("p", "b", 10.0), ("p", "c", 5000.0)], {"p": {"b": 30.0}})
    >>> r["latencies"], r["lost"], r["overtaken"]
    ([20.0, 30.0], 1, 1)
    """
    by_table: dict[str, list[tuple[str, float]]] = {}
    for table, name, at in changes:
        by_table.setdefault(table, []).append((name, at))
    latencies, lost, overtaken = [], 0, 0
    for table, made in by_table.items():
        shown = seen.get(table, {})
        first_shown_from = float("inf")  # the earliest a state at least as new as the one looked at showed
        for i in range(len(made) - 1, -1, -1):
            name, at = made[i]
            first_shown_from = min(first_shown_from, shown.get(name, float("inf")))
            stood = (made[i + 1][1] if i + 1 < len(made) else float("inf")) - at
            if name not in shown and stood >= LOST_AFTER_S * 1000:
                lost += 1
            elif first_shown_from < float("inf"):
                latencies.append(first_shown_from - at)
                overtaken += name not in shown
            else:
                lost += 1
    return {"latencies": sorted(latencies), "lost": lost, "overtaken": overtaken}


# ---- the floor ----------------------------------------------------------------------------------

# The floor, run as `python -c FLOOR port broker_host broker_port page_url`: a bare paho subscriber writing each
# state, framed as the hall's events, to every browser from paho's thread; the page and its files are the hall's,
# fetched once. Its card is the hall's card picked from the state with no checks: no floor does less.
FLOOR = r"""
import json, sys, threading, time, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import paho.mqtt.client as mqtt
port, host, broker_port, page_url = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
lock, cards, readers, files, seq = threading.Lock(), {}, [], {}, [0]
def frame(value):
    return "id: %d\nevent: hall\ndata: %s\n\n" % (seq[0], json.dumps(value, ensure_ascii=False, separators=(",", ":")))
def card_show(state):
    if state["outcome"] == "idle":
        return {"outcome": "idle"}
    return {"outcome": state["outcome"], "event": {"id": state["event"]["id"], "name": state["event"]["name"]},
            "countdown": {"timer": state["countdown"]["timer"], "position": state["countdown"]["position"]},
            "crowd_tokens_turned": state["crowd_tokens_turned"], "runouts": [r["timer"] for r in state.get("runouts", [])],
            "stars": state.get("stars", 0), "speed": state.get("speed", 1.0) or 1.0,
            "timers": {c: {"state": g["state"], "top_s": g["top_s"]} for c, g in state["timers"].items()}}
def on_message(client, userdata, msg):
    parts = msg.topic.split("/")
    if len(parts) != 3 or parts[2] not in ("state", "availability"):
        return
    table, kind = parts[1], parts[2]
    card = dict(cards.get(table) or {"table": table, "online": None, "show": None})
    if kind == "state":
        card["show"] = card_show(json.loads(msg.payload)) if msg.payload else None
    else:
        card["online"] = msg.payload == b"online"
    with lock:
        seq[0] += 1
        cards[table] = card
        data = frame({"seq": seq[0], "cards": [card], "board": None}).encode()
        for reader in list(readers):
            try:
                reader.write(data)
                reader.flush()
            except OSError:
                readers.remove(reader)
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_GET(self):
        if self.path.startswith("/api/hall/events"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            with lock:
                whole = {"seq": seq[0], "cards": sorted(cards.values(), key=lambda c: c["table"]), "board": []}
                self.wfile.write(("retry: 1000\n\n" + frame(whole)).encode())
                self.wfile.flush()
                readers.append(self.wfile)
            while self.wfile in readers:
                time.sleep(0.5)
            return
        if self.path.startswith("/api/hall"):
            with lock:
                body = json.dumps({"seq": seq[0], "cards": list(cards.values()), "board": []}).encode()
            kind = "application/json"
        else:
            if self.path not in files:
                with urllib.request.urlopen(page_url.rstrip("/") + self.path, timeout=10) as answer:
                    files[self.path] = (answer.read(), answer.headers.get("Content-Type"))
            body, kind = files[self.path]
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
client.on_message = on_message
client.on_connect = lambda c, u, f, rc, p=None: c.subscribe([("companion/+/state", 0), ("companion/+/availability", 0)])
client.connect(host, broker_port)
client.loop_start()
server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
server.daemon_threads = True
server.serve_forever()
"""


# ---- a reader of the stream without a browser ---------------------------------------------------

def read_stream(url: str) -> int:
    """The stream's reader (a child process): when each probe's name first came on the stream, printed as JSON
    once its stdin closes. Beside the page's figure it tells the server's share from the browser's."""
    import signal

    seen: dict[str, dict[str, float]] = {}
    response = urllib.request.urlopen(url + "api/hall/events", timeout=60)
    print("reading", flush=True)

    def done(*_):
        print(json.dumps(seen), flush=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, done)
    threading.Thread(target=lambda: (sys.stdin.read(), done()), daemon=True).start()
    for raw in response:
        if raw.startswith(b"data: ") and b'"probe-' in raw:
            now = time.time() * 1000
            for card in json.loads(raw[6:])["cards"]:
                name = ((card.get("show") or {}).get("event") or {}).get("name")
                if card["table"].startswith("probe-") and name:
                    seen.setdefault(card["table"], {}).setdefault(name, now)
    return 0


# ---- the load on the box ------------------------------------------------------------------------

def _spin() -> None:
    while True:
        pass


class LoadKeeper(threading.Thread):
    """Busy processes, added and ended so that the box's runnable count stays about `target`."""

    def __init__(self, target: float, cores: set[int] | None):
        super().__init__(daemon=True)
        self.target, self.cores = target, cores
        self.spinners: list = []
        self.done = threading.Event()

    @staticmethod
    def runnable() -> float:
        """The processes running or waiting for a core now, over a second (this one not counted)."""
        counts = []
        for _ in range(10):
            counts.append(runnable_now())
            time.sleep(0.1)
        return statistics.mean(counts)


    def run(self) -> None:
        while not self.done.is_set():
            now = self.runnable()
            if now < self.target - 0.5:
                process = multiprocessing.get_context("spawn").Process(target=_spin, daemon=True)
                process.start()
                if self.cores:
                    budget.pin(process.pid, self.cores)
                self.spinners.append(process)
            elif now > self.target + 0.5 and self.spinners:
                self.spinners.pop().terminate()

    def stop(self) -> None:
        self.done.set()
        self.join()
        for process in self.spinners:
            process.terminate()
            process.join()


def runnable_now() -> int:
    """The tasks running or waiting for a core at this instant (the reader not counted)."""
    with open("/proc/loadavg") as f:
        return int(f.read().split()[3].split("/")[0]) - 1


class Runnable(threading.Thread):
    """The mean runnable count over a phase, sampled every 0.1 s: what the box's load is while it runs (the
    1-minute load average lags a phase shorter than a minute)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.counts: list[int] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.1):
            self.counts.append(runnable_now())

    def stop(self) -> float:
        self.done.set()
        self.join()
        return statistics.mean(self.counts) if self.counts else float("nan")


# ---- one run ------------------------------------------------------------------------------------

def end(process, timeout: float = 15.0) -> None:
    """Ask a child process to stop; kill it if it has not within `timeout` (a starved one may not)."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_listening(url: str, process) -> None:
    deadline = time.monotonic() + 90  # a process on a starved core takes its time to start
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{url} exited: {Path(process.log).read_text()[-2000:] if hasattr(process, 'log') else ''}")
        try:
            urllib.request.urlopen(url + "api/hall", timeout=1).read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not start")


def wait_cards(url: str, count: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url + "api/hall", timeout=5) as answer:
            if len(json.loads(answer.read())["cards"]) >= count:
                return
        time.sleep(0.2)
    raise SystemExit(f"{url} never showed {count} tables")


def percentile(values: list[float], share: float) -> float | None:
    """The `share` percentile, or None over too few samples to tell it from the maximum.

    >>> percentile(list(range(100)), 0.5), percentile(list(range(100)), 0.99)
    (50, None)
    """
    if len(values) < MIN_BEYOND / (1 - share) - 1e-9:
        return None
    return values[min(len(values) - 1, int(len(values) * share))]


class Rig:
    """The broker, the tables and the browser of one size, kept up across its runs."""

    def __init__(self, tables_n: int, pi_sized: bool, workload: str):
        from playwright.sync_api import sync_playwright

        self.folder = Path(tempfile.mkdtemp(prefix="bench-hall-"))
        self.pi_sized, self.tables_n = pi_sized, tables_n
        self.broker = Mosquitto(self.folder / "broker").start()
        probes_n = tables_n if workload == "play" else min(STRESS_PROBES, tables_n)
        self.busy = None
        if tables_n > probes_n:
            # The busy tables play in a process of their own: their bridges' threads would otherwise share
            # this process's interpreter lock with the probes and delay what is measured.
            self.busy = subprocess.Popen([sys.executable, __file__, "--play-busy", str(tables_n - probes_n),
                                          "--broker", self.broker.url], stderr=subprocess.DEVNULL,
                                         env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.probes = Probes(probes_n, self.broker.url, running_state(), bursts=workload == "play",
                             mean_gap_s=PLAY_MEAN_GAP_S if workload == "play" else STRESS_MEAN_GAP_S)
        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                       args=["--no-sandbox"])

    def close(self) -> None:
        self.browser.close()
        self.playwright.stop()
        if self.busy is not None:
            end(self.busy, timeout=30)
        self.probes.stop()
        self.broker.stop()

    def start_server(self, which: str, hall_url: str | None, *, measured: bool = True):
        """The hall (or the floor) on a free port; `measured` False: a hall on no broker, only to serve its page."""
        port = free_port()
        url = f"http://127.0.0.1:{port}/"
        if which == "hall":
            command = [sys.executable, "-m", "companion", "hall", "--port", str(port),
                       "--mqtt", self.broker.url if measured else f"mqtt://127.0.0.1:{free_port()}",
                       "--db", str(self.folder / ("hall.sqlite3" if measured else "page.sqlite3"))]
        else:
            broker = from_url(self.broker.url, table="floor")
            command = [sys.executable, "-c", FLOOR, str(port), broker.host, str(broker.port), hall_url]
        # Its log goes to a file: a pipe nobody reads while it runs would stop it once full (64 KB of warnings).
        log = open(self.folder / f"{which}-{port}.log", "w")
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, text=True,
                                   env={**os.environ, "PYTHONPATH": str(ROOT)})
        log.close()
        process.log = log.name
        if self.pi_sized and measured:
            budget.pin(process.pid, {budget.DAEMON_CORE})
        return process, url

    def phase(self, which: str, samples: int, hall_url: str | None = None) -> dict:
        """One phase: `which` ("hall" or "floor") serves the page while the probes make `samples` changes."""
        process, url = self.start_server(which, hall_url)
        try:
            wait_listening(url, process)
            wait_cards(url, self.tables_n)
            with budget.daemon_budget(self.pi_sized, process.pid):
                page = self.browser.new_page(viewport={"width": 390, "height": 844})
                page.add_init_script(COUNT_STREAMS)
                page.goto(url)
                page.wait_for_selector('.hall-card[data-table^="probe-"]', timeout=60_000)
                page.evaluate(WATCH_PROBES)
                reader = subprocess.Popen([sys.executable, __file__, "--read-stream", url], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
                reader.stdout.readline()  # it reads
                watched = psutil.Process(process.pid)
                sampler = Runnable()
                sampler.start()
                cpu0, wall0 = watched.cpu_times(), time.perf_counter()
                changes = self.probes.play(samples)
                cpu1, wall1 = watched.cpu_times(), time.perf_counter()
                runnable = sampler.stop()
                rss = watched.memory_info().rss / 2**20
                time.sleep(SETTLE_S)  # the last changes reach the page, or count as lost
                seen = page.evaluate("window.seen")
                stream_log = page.evaluate("window.streamLog")
                streamed = json.loads(reader.communicate("", timeout=30)[0] or "{}")
                cards = page.locator(".hall-card").count()
                page.close()
        finally:
            end(process)
        cpu = (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / (wall1 - wall0) * 100
        stream = judged(changes, streamed)
        reopened = sum(kind == "open" for kind, _ in stream_log) - 1  # the page's stream opened again
        failed = sum(kind != "open" for kind, _ in stream_log)  # ... after failing or being told to poll
        return {**judged(changes, seen), "stream": stream["latencies"], "stream_lost": stream["lost"],
                "reopened": reopened, "failed": failed,
                "cards": cards, "cpu": cpu, "rss": rss, "load": budget.load(), "runnable": runnable,
                "samples": len(changes)}

    def floor_phase(self, samples: int) -> dict:
        # the floor serves the hall's own page: one more hall, on no broker, only to hand out its files
        page_server, hall_url = self.start_server("hall", None, measured=False)
        try:
            wait_listening(hall_url, page_server)
            return self.phase("floor", samples, hall_url)
        finally:
            end(page_server)


def run_size(tables_n: int, workload: str, samples: int, runs: int, pi_sized: bool) -> list[dict]:
    """`runs` runs of one workload at one size, each the hall's phase and the floor's on the same tables, the
    hall first in odd runs and the floor first in even ones."""
    rig = Rig(tables_n, pi_sized, workload)
    results = []
    try:
        for n in range(runs):
            if n % 2 == 0:
                hall = rig.phase("hall", samples)
                floor = rig.floor_phase(samples)
            else:
                floor = rig.floor_phase(samples)
                hall = rig.phase("hall", samples)
            results.append({"tables": tables_n, "workload": workload, "hall": hall, "floor": floor})
            print(f"  {tables_n} tables, {workload}, run {len(results)}: {row(hall)} | floor {row(floor)}",
                  file=sys.stderr)
    finally:
        rig.close()
    return results


# ---- the report ---------------------------------------------------------------------------------

def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def row(r: dict) -> str:
    lat = r["latencies"]
    return (f"p50 {ms(percentile(lat, 0.5))} p95 {ms(percentile(lat, 0.95))} p99 {ms(percentile(lat, 0.99))} "
            f"max {ms(lat[-1] if lat else None)} ms, {len(lat)} shown, {r['lost']} lost "
            f"(stream p50 {ms(percentile(r['stream'], 0.5))} p99 {ms(percentile(r['stream'], 0.99))}, "
            f"{r['stream_lost']} lost), page stream reopened {r['reopened']}, failed {r['failed']}, "
            f"load {r['load']:.1f}, runnable {r['runnable']:.1f}")


def median_of(results: list[dict], side: str, pick) -> str:
    values = [pick(r[side]) for r in results]
    values = [v for v in values if v is not None]
    return ms(statistics.median(values)) if values else "-"


def report(sizes: list[list[dict]], pi_sized: bool, load_target: float | None) -> None:
    print(f"mqtt_hall: change -> browser, {budget.mode(pi_sized)}"
          + (f", load kept at ~{load_target:g}" if load_target else "")
          + f"; median of {len(sizes[0])} run(s); p99 printed over >= {MIN_BEYOND / 0.01:.0f} samples")
    print("| tables | workload | path | p50 ms | p95 ms | p99 ms | max ms | shown | overtaken | lost | "
          "stream p50/p99 ms | stream lost | CPU % core | RSS MB | load avg per run | runnable per run |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for results in sizes:
        medians = {}
        for side in ("hall", "floor"):
            picks = {
                "p50": lambda r: percentile(r["latencies"], 0.5),
                "p95": lambda r: percentile(r["latencies"], 0.95),
                "p99": lambda r: percentile(r["latencies"], 0.99),
                "max": lambda r: r["latencies"][-1] if r["latencies"] else None,
            }
            cells = [median_of(results, side, pick) for pick in picks.values()]
            shown = sum(len(r[side]["latencies"]) for r in results)
            overtaken = sum(r[side]["overtaken"] for r in results)
            lost = sum(r[side]["lost"] for r in results)
            stream_lost = sum(r[side]["stream_lost"] for r in results)
            cpu = statistics.median(r[side]["cpu"] for r in results)
            rss = statistics.median(r[side]["rss"] for r in results)
            loads = "/".join(f"{r[side]['load']:.1f}" for r in results)
            runnable = "/".join(f"{r[side]['runnable']:.1f}" for r in results)
            stream = "/".join(median_of(results, side, lambda r, share=share: percentile(r["stream"], share))
                              for share in (0.5, 0.99))
            print(f"| {results[0]['tables']} | {results[0]['workload']} | {side} | {' | '.join(cells)} | {shown} | "
                  f"{overtaken} | {lost} | {stream} | {stream_lost} | {cpu:.1f} | {rss:.1f} | {loads} | {runnable} |")
            p50s = [p for r in results if (p := percentile(r[side]["latencies"], 0.5)) is not None]
            medians[side] = statistics.median(p50s) if p50s else None
        hall, floor = medians["hall"], medians["floor"]
        ratio = f"{hall / floor:.2f}x" if hall and floor else "-"
        print(f"| {results[0]['tables']} | {results[0]['workload']} | hall / floor | p50 {ratio} (target <= 3x, 0 lost) |"
              + " |" * 12)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--samples", type=int, default=1000, help="changes timed in each phase of a run")
    parser.add_argument("--growth", help="table counts to run one after another, e.g. 20,100,200")
    parser.add_argument("--load", type=float, help="keep the box at about this load with busy processes")
    parser.add_argument("--workload", default=",".join(WORKLOADS),
                        help="play (every table in play: the figure), stress (busy tables at the bridge's most), "
                             "or both (the default)")
    budget.add_arguments(parser, runs=1)
    parser.add_argument("--play-busy", type=int, help=argparse.SUPPRESS)  # the child process of busy tables
    parser.add_argument("--broker", help=argparse.SUPPRESS)
    parser.add_argument("--read-stream", help=argparse.SUPPRESS)  # the child process reading the stream
    args = parser.parse_args()
    if args.play_busy is not None:
        return play_busy(args.play_busy, args.broker)
    if args.read_stream is not None:
        return read_stream(args.read_stream)
    for missing in (mosquitto_missing(), None if Path(CHROMIUM).exists() else f"{CHROMIUM} is not installed"):
        if missing:
            print(f"mqtt_hall: skipped ({missing})")
            return 0
    if args.pi_sized:  # everything this starts (broker, tables, browser, load) stays off the hall's core
        budget.pin(os.getpid(), budget.other_cores())
    keeper = None
    if args.load:
        keeper = LoadKeeper(args.load, budget.other_cores() if args.pi_sized else None)
        keeper.start()
    try:
        workloads = [w for w in args.workload.split(",") if w]
        if not workloads or set(workloads) - set(WORKLOADS):
            parser.error(f"--workload: one or more of {', '.join(WORKLOADS)}, got {args.workload!r}")
        sizes = [run_size(int(n), workload, args.samples, args.runs, args.pi_sized)
                 for n in (args.growth.split(",") if args.growth else [args.tables]) for workload in workloads]
    finally:
        if keeper is not None:
            keeper.stop()
    report(sizes, args.pi_sized, args.load)
    return 0


if __name__ == "__main__":
    sys.exit(main())
