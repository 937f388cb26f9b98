"""Slow phones: what phones that read slowly, or not at all, cost the table during a fast show.

Three figures, each from a fresh demo table served by waitress in this
process on 127.0.0.1, while a thread flips the hourglass as fast as the
table takes it:

- memory: the RSS growth, and the bytes held for the phones (waitress's
  buffers, its spill files, the kernel's unsent queues), with `--stalled`
  phones (each from its own loopback address, a 4 KB receive buffer) that
  never read a byte;
- a phone reading 10 KB/s: how long after the show's last state it gets it;
- SIGTERM with the stalled phones connected: how long until the server's
  loop has returned and its threads are done (the path `companion run` takes).

Prints figures; asserts nothing (Linux: the kernel's queue is read with an ioctl).

    python bench/slow_phones.py [--seconds 10] [--stalled 40] [--stalled-for 3] [--give-up 60]
"""

import argparse
import fcntl
import os
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.clock import FakeClock  # noqa: E402
from companion.table import demo_table  # noqa: E402
from companion.web.server import ServerThread, make_server, shut_down  # noqa: E402

SIOCOUTQNSD = 0x894B  # Linux: bytes in a socket's send queue not sent yet
TINY = 4096  # a phone on a bad link: its receive buffer
READ_RATE = 10 * 1024  # bytes a second the slow phone reads
READ_STEP = 1024


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def unsent(sock) -> int:
    try:
        return int.from_bytes(fcntl.ioctl(sock.fileno(), SIOCOUTQNSD, b"\0\0\0\0"), sys.byteorder, signed=True)
    except (OSError, ValueError):
        return 0


def held(server) -> tuple[int, int]:
    """Bytes waitress holds for its connections (in memory and spilled to files), and the kernel's unsent bytes."""
    ours = kernel = 0
    for channel in list(server.active_channels.values()):
        ours += channel.total_outbufs_len
        kernel += unsent(channel.socket) if channel.connected else 0
    return ours, kernel


def stalled_phone(port: int, n: int) -> socket.socket:
    """A phone that opens the show's stream from 127.0.0.<n+2>, reads its head, and never reads again."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, TINY)
    sock.bind((f"127.0.0.{n + 2}", 0))
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET /api/show/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    return sock


class Flipper(threading.Thread):
    """Flips the hourglass as fast as the table takes it until stopped; `last` is the last state's seq."""

    def __init__(self, table):
        super().__init__(daemon=True)
        self.table, self.stop, self.last, self.flips = table, threading.Event(), None, 0

    def run(self):
        self.table.desk.start_show("training")
        while not self.stop.is_set():
            self.table.desk.flip("green")
            self.flips += 1
        self.last = self.table.desk.snapshot()["seq"]


def serve(db: Path):
    table = demo_table(db, clock=FakeClock()).start()
    server = make_server(table, "127.0.0.1", 0)
    server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, TINY)  # each connection's, as on a slow link
    return table, server


def memory(seconds: float, stalled: int, tmp: Path) -> None:
    table, server = serve(tmp / "memory.sqlite3")
    running = ServerThread(server)
    port = urlsplit(running.url).port
    phones = [stalled_phone(port, n) for n in range(stalled)]
    before = rss_bytes()
    flipper = Flipper(table)
    flipper.start()
    peak, peak_held = before, (0, 0)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        threading.Event().wait(0.2)
        peak = max(peak, rss_bytes())
        now = held(server)
        peak_held = max(peak_held, now, key=sum)
    flipper.stop.set()
    flipper.join()
    end_held = held(server)
    print(f"memory: {stalled} stalled phones, {flipper.flips} flips in {seconds:g} s")
    print(f"  RSS growth (peak)        {(peak - before) / 2**20:8.1f} MiB")
    print(f"  held at peak             {peak_held[0] / 2**20:8.2f} MiB in waitress, "
          f"{peak_held[1] / 2**20:.2f} MiB unsent in the kernel")
    print(f"  held at the end          {end_held[0] / 2**20:8.2f} MiB in waitress, "
          f"{end_held[1] / 2**20:.2f} MiB unsent in the kernel")
    print(f"  streams still open       {server.flask_app.extensions['streams'].held():8d}")
    for sock in phones:
        sock.close()
    running.close()
    table.stop()


def slow_reader(seconds: float, give_up: float, tmp: Path) -> None:
    table, server = serve(tmp / "slow.sqlite3")
    running = ServerThread(server)
    sock = stalled_phone(urlsplit(running.url).port, 0)
    got, done = bytearray(), threading.Event()
    wanted: list[bytes] = []
    seen_at: list[float] = []

    def read():
        pace, started, taken = threading.Event(), time.monotonic(), 0
        while not done.is_set():
            try:
                chunk = sock.recv(READ_STEP)
            except OSError:
                return
            if not chunk:
                return
            got.extend(chunk)
            del got[:-4096]  # the tail is enough to find the last state's number in
            taken += len(chunk)
            if wanted and wanted[0] in got:  # (a state is one chunk: no framing falls inside it)
                seen_at.append(time.monotonic())
                return
            pace.wait(max(0.0, started + taken / READ_RATE - time.monotonic()))  # 10 KB/s, no faster

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    flipper = Flipper(table)
    flipper.start()
    threading.Event().wait(seconds)
    flipper.stop.set()
    flipper.join()
    ended = time.monotonic()
    wanted.append(f'"seq":{flipper.last}}}'.encode())  # the state's last field
    reader.join(give_up)
    done.set()
    delay = f"{seen_at[0] - ended:.2f} s" if seen_at else f"more than {give_up:g} s (gave up)"
    print(f"slow phone: reading {READ_RATE // 1024} KB/s, {flipper.flips} flips in {seconds:g} s")
    print(f"  the final state reached it {delay} after it was published")
    sock.close()
    running.close()
    table.stop()


def sigterm(seconds: float, stalled: int, tmp: Path) -> None:
    table, server = serve(tmp / "sigterm.sqlite3")
    port = int(server.effective_port)
    stop_at: list[float] = []

    def interrupt(signum, frame):
        raise KeyboardInterrupt  # as `companion run` does

    def scene():
        phones = [stalled_phone(port, n) for n in range(stalled)]
        flipper = Flipper(table)
        flipper.start()
        threading.Event().wait(seconds)
        flipper.stop.set()
        flipper.join()
        stop_at.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGTERM)
        scene.phones = phones

    previous = signal.signal(signal.SIGTERM, interrupt)
    threading.Thread(target=scene, daemon=True).start()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        shut_down(server)
        stopped = time.monotonic()
        signal.signal(signal.SIGTERM, previous)
    print(f"SIGTERM: {stalled} stalled phones after {seconds:g} s of flips")
    print(f"  the server stopped {stopped - stop_at[0]:.2f} s after SIGTERM")
    for sock in getattr(scene, "phones", []):
        sock.close()
    table.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="how long the fast show runs")
    parser.add_argument("--stalled", type=int, default=40, help="phones that never read")
    parser.add_argument("--stalled-for", type=float, default=3.0,
                        help="seconds of flips before SIGTERM (shorter than a stall, so the phones are still there)")
    parser.add_argument("--give-up", type=float, default=60.0, help="longest wait for the slow phone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        memory(args.seconds, args.stalled, Path(tmp))
        slow_reader(args.seconds, args.give_up, Path(tmp))
        sigterm(args.stalled_for, args.stalled, Path(tmp))


if __name__ == "__main__":
    main()
