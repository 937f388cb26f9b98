"""Many tables on one broker: the hall page's latency from a table's change to a browser, and the hall's weight.

Prints figures; it asserts nothing. Fifty simulated tables each play a busy
show (a change every 50 ms, which their bridges pace to ten messages a
second) through the real bridge into one local Mosquitto, from a process
of their own; `companion hall`
runs as its own process; headless Chromium shows the hall page. A probe
table changes its event's name every 250 ms (outside its bridge's pacing
window), and the page notes when each name appears in the probe's card:
latency = that instant minus the instant of the change, on the same clock.
The hall's CPU (share of one core) and resident memory are read from its
process during the run.

    python bench/mqtt_hall.py [--tables 50] [--samples 80]
    python bench/mqtt_hall.py --growth 5,25,50,100,200   # one row per size, with CPU per table

The growth table gives each size's p99 beside the smallest size's (its
floor: the same path with few tables), CPU per table and resident memory.
Targets (issue 24): 200 tables, change -> browser p99 <= 100 ms, <= 80 MB.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil  # noqa: E402

from companion.clock import FakeClock  # noqa: E402
from companion.mqtt.bridge import Bridge  # noqa: E402
from companion.mqtt.mosquitto import Mosquitto, free_port, mosquitto_missing  # noqa: E402
from companion.mqtt.settings import from_url  # noqa: E402
from companion.ports import FixedDoor, Ports  # noqa: E402
from companion.table import demo_table  # noqa: E402

CHANGE_EVERY_S = 0.05  # each busy table changes twenty times a second
PROBE_EVERY_S = 0.25
CHROMIUM = "/usr/bin/chromium"
WATCH_PROBE = """() => {
  window.seen = {};
  const note = () => {
    const el = document.querySelector('.hall-card[data-table="probe"] .hall-event');
    if (el && !(el.textContent in window.seen)) window.seen[el.textContent] = Date.now();
  };
  new MutationObserver(note).observe(document.getElementById('cards'),
                                     {subtree: true, childList: true, characterData: true});
}"""


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
    table.start_show("training")
    clock.advance(3.0)
    table.pump()
    state = table.snapshot()
    table.stop()
    return state


class StreamReader(threading.Thread):
    """A plain HTTP client on the hall's stream, noting when each probe name first arrives."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.response = urllib.request.urlopen(url + "api/hall/events", timeout=60)
        self.seen: dict[str, float] = {}
        self.start()

    def run(self):
        try:
            for raw in self.response:
                if raw.startswith(b"data: ") and b'"probe"' in raw:
                    for card in json.loads(raw[6:])["cards"]:
                        name = ((card.get("show") or {}).get("event") or {}).get("name")
                        if card["table"] == "probe" and name and name not in self.seen:
                            self.seen[name] = time.time() * 1000
        except (OSError, ValueError):
            pass


def wait_listening(url: str, process) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the hall exited: {process.stderr.read()}")
        try:
            urllib.request.urlopen(url + "api/hall", timeout=1).read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the hall did not start")


def wait_cards(url: str, count: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url + "api/hall", timeout=5) as answer:
            if len(json.loads(answer.read())["cards"]) >= count:
                return
        time.sleep(0.2)
    raise SystemExit(f"the hall never showed {count} tables")


def play_load(count: int, broker_url: str) -> int:
    """The busy tables (a child process): each a bridge on the broker, changing every CHANGE_EVERY_S until ended."""
    template = running_state()
    tables = [SimulatedTable(template) for _ in range(count)]
    bridges = [Bridge(t, from_url(broker_url, table=f"table-{i:03d}")).start() for i, t in enumerate(tables)]
    print(f"{len(bridges)} busy tables playing", file=sys.stderr)
    while True:
        time.sleep(CHANGE_EVERY_S)
        for table in tables:
            table.tick(CHANGE_EVERY_S)


def percentile(values: list[float], share: float) -> float:
    return values[min(len(values) - 1, int(len(values) * share))] if values else float("nan")


def run(tables_n: int, samples: int) -> dict:
    """One run with `tables_n` busy tables: latencies (ms), CPU (% of one core) and RSS (MB) of the hall."""
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="bench-hall-"))
    template = running_state()
    with Mosquitto(folder / "broker") as broker:
        port = free_port()
        hall = subprocess.Popen([sys.executable, "-m", "companion", "hall", "--mqtt", broker.url, "--port", str(port),
                                 "--db", str(folder / "hall.sqlite3")], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
        url = f"http://127.0.0.1:{port}/"
        probe = SimulatedTable(dict(template, event={"id": "probe", "name": "p-start"}))
        bridges = [Bridge(probe, from_url(broker.url, table="probe")).start()]
        # The busy tables play in a process of their own: their bridges' threads would otherwise share
        # this process's interpreter lock with the probe and the readers, and delay what is measured.
        load = subprocess.Popen([sys.executable, __file__, "--load", str(tables_n), "--broker", broker.url],
                                stderr=subprocess.DEVNULL, env={**os.environ,
                                                            "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
        try:
            wait_listening(url, hall)
            wait_cards(url, tables_n + 1)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 390, "height": 844})
                page.goto(url)
                page.wait_for_selector('.hall-card[data-table="probe"]', timeout=60_000)
                page.evaluate(WATCH_PROBE)
                reader = StreamReader(url)
                process = psutil.Process(hall.pid)
                cpu0, wall0 = process.cpu_times(), time.perf_counter()
                changed_at = {}
                for n in range(samples):
                    name = f"p{n}"
                    changed_at[name] = time.time() * 1000
                    probe.change(event={"id": "probe", "name": name})
                    time.sleep(PROBE_EVERY_S)
                cpu1, wall1 = process.cpu_times(), time.perf_counter()
                rss = process.memory_info().rss / 2**20
                time.sleep(1.0)  # the last names reach the page
                seen = page.evaluate("window.seen")
                cards = page.locator(".hall-card").count()
                browser.close()
        finally:
            load.terminate()  # the busy tables' last wills tell the hall they left; nothing more to wait for
            load.wait(timeout=30)
            for bridge in bridges:
                bridge.stop()
            hall.terminate()
            hall.wait(timeout=10)

    latencies = sorted(seen[name] - t0 for name, t0 in changed_at.items() if name in seen)
    streamed = sorted(reader.seen[name] - t0 for name, t0 in changed_at.items() if name in reader.seen)
    cpu = (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / (wall1 - wall0) * 100
    return {"tables": tables_n, "cards": cards, "latencies": latencies, "lost": len(changed_at) - len(latencies),
            "streamed": streamed, "cpu": cpu, "rss": rss}


def report(r: dict) -> None:
    latencies, streamed = r["latencies"], r["streamed"]
    print(f"mqtt_hall: {r['tables']} busy tables + a probe, {r['cards']} cards on the page, "
          f"{r['tables'] * (1 / max(CHANGE_EVERY_S, 0.1)):.0f} state messages/s into the hall")
    print(f"  change -> browser: p50 {statistics.median(latencies):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms, "
          f"max {latencies[-1]:.1f} ms over {len(latencies)} changes ({r['lost']} not seen)")
    print(f"  change -> the hall's stream (an HTTP client, no browser): p50 {statistics.median(streamed):.1f} ms, "
          f"p99 {percentile(streamed, 0.99):.1f} ms over {len(streamed)} changes")
    print(f"  the hall: CPU {r['cpu']:.1f} % of one core, resident memory {r['rss']:.1f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--samples", type=int, default=80)
    parser.add_argument("--growth", help="table counts to run one after another, e.g. 5,25,50,100,200")
    parser.add_argument("--load", type=int, help=argparse.SUPPRESS)  # the child process playing the busy tables
    parser.add_argument("--broker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load is not None:
        return play_load(args.load, args.broker)
    for missing in (mosquitto_missing(), None if Path(CHROMIUM).exists() else f"{CHROMIUM} is not installed"):
        if missing:
            print(f"mqtt_hall: skipped ({missing})")
            return 0
    if not args.growth:
        report(run(args.tables, args.samples))
        return 0
    results = [run(int(n), args.samples) for n in args.growth.split(",")]
    floor = percentile(results[0]["latencies"], 0.99)
    print(f"hall growth (floor: p99 at {results[0]['tables']} tables, {floor:.1f} ms)")
    print("| tables | msgs/s in | p50 ms | p99 ms | p99 / floor | stream p99 ms | CPU % core | CPU % per table | RSS MB | lost |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        p99 = percentile(r["latencies"], 0.99)
        print(f"| {r['tables']} | {r['tables'] * 10} | {statistics.median(r['latencies']):.1f} | {p99:.1f} | "
              f"{p99 / floor:.2f} | {percentile(r['streamed'], 0.99):.1f} | {r['cpu']:.1f} | "
              f"{r['cpu'] / r['tables']:.2f} | {r['rss']:.1f} | {r['lost']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
