"""The serial line to the hub, kept open by one reader thread that hands raw lines to the rig's sink.

The thread only moves bytes; what the lines mean is decided on the runtime
thread by `HubSource.take`, and the line's health by a `LineWatch`, which is
pure: it says hello on every (re)connect and again every 2 s until the hub
answers, sends a heartbeat every second, and gives up on a connection that
fails, falls silent or fills with garbage, or whose device never says hello
after three tries; the thread then reconnects with a doubling back-off, as
the firmware's PROTOCOL.md describes.

>>> watch = LineWatch(0.0)
>>> watch.opened(0.0), watch.due(1.0), watch.due(2.0), watch.due(4.0), watch.due(6.0)
(['hello'], (['beat'], None), (['hello', 'beat'], None), (['hello', 'beat'], None), ([], 'not answering'))
"""

import os
import threading
import time
from dataclasses import dataclass

from companion.hardware.hub_frames import MAX_LINE, PROTOCOL, frame, read_frame, read_message

BAUD = 115200  # USB CDC ignores it; a UART-wired hub needs it
READ_TIMEOUT_S = 0.05  # how long one read may block: bounds how late a closing thread notices
HELLO_EVERY_S = 2.0  # hello again if the hub has not answered by then
HELLO_TRIES = 3  # then the device is "not answering": not the hub's data port, or no firmware running
SILENCE_S = 2.0  # the hub beats every 0.5 s: once it has said hello, this long without a byte means it is gone
BEAT_EVERY_S = 1.0
GARBAGE_RUN = 8  # bad frames in a row before the line counts as garbage
BACKOFF_S = (0.1, 5.0)  # first and longest wait before reconnecting


@dataclass(frozen=True)
class HubItem:
    """A raw item for the runtime: a line received (`what` = "line"), or the link "open" or "lost"."""

    device: str
    what: str
    data: bytes | str
    t: float


class LineWatch:
    """The health of one connection to a hub, by the protocol; pure, its instants handed in (seconds).

    `opened`, `received` and `due` return the kinds of frame to send ("hello",
    "beat"); `received` and `due` also say why to give up the connection,
    or None. Until the hub has said hello the hello tries decide: a device
    that says something else, or nothing, is "not answering" after the third,
    never "silent" or "garbage".
    """

    def __init__(self, now: float):
        self.greeted = False
        self.hellos = 0
        self._said_hello = self._heard = self._beat = now
        self._bad_run = 0
        self._buffer = b""

    def opened(self, now: float) -> list[str]:
        self.hellos, self._said_hello = 1, now
        return ["hello"]

    def received(self, data: bytes, now: float) -> tuple[list[bytes], str | None]:
        """The whole lines in `data` (each with its newline), and why to give up, if the line is garbage."""
        if not data:
            return [], None
        self._heard = now
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        lines = [line + b"\n" for line in lines]
        while len(self._buffer) > MAX_LINE:  # an endless line: each line's worth of it is one bad frame
            lines.append(self._buffer[:MAX_LINE] + b"\n")  # too long with its newline: never read as a frame
            self._buffer = self._buffer[MAX_LINE:]
        for line in lines:
            raw = read_frame(line)  # the frame's own rules: whether a kind's fields fit is the source's to judge
            if raw is not None and raw[1] == "hello" and read_message(line) is not None:
                self.greeted = True
            if raw is not None or not self.greeted:
                self._bad_run = 0
            else:
                self._bad_run += 1
        return lines, "garbage" if self._bad_run >= GARBAGE_RUN else None

    def due(self, now: float) -> tuple[list[str], str | None]:
        """What to send by `now`, and why to give up (silence, or no hello after the last try)."""
        if self.greeted and now - self._heard >= SILENCE_S:
            return [], "silent"
        send = []
        if not self.greeted and now - self._said_hello >= HELLO_EVERY_S:
            if self.hellos >= HELLO_TRIES:
                return [], "not answering"
            self.hellos, self._said_hello = self.hellos + 1, now
            send.append("hello")
        if now - self._beat >= BEAT_EVERY_S:
            self._beat = now
            send.append("beat")
        return send, None


class HubLink:
    """A reader thread on `port` handing `HubItem`s to `sink`, stamped with `clock()`.

    The line's health (silence, hello retries, heartbeats) is timed by the
    real monotonic clock, whatever `clock` is: a test's fake clock that stands
    still must not make a live hub look silent.
    """

    def __init__(self, port: str, sink, clock, *, device: str = "hub", baud: int = BAUD, opener=None):
        import serial

        self.port, self.baud, self.device = port, baud, device
        self._sink, self._clock = sink, clock
        self._opener = opener or serial.Serial
        self._errors = (OSError, serial.SerialException)
        self._stop = threading.Event()
        self._write_lock = threading.Lock()
        self._serial = None
        self._seq = 0
        self.refusal: str | None = None
        self._thread = threading.Thread(target=self._run, name=f"{device} reader", daemon=True)
        self._thread.start()

    def request_snapshot(self) -> None:
        """Ask the hub for every channel again (after a gap in its sequence)."""
        self._send("snap")

    def request_resend(self, first: int) -> None:
        """Ask the hub for every frame again from sequence number `first` on (after a gap)."""
        self._send("resend", **{"from": first})

    def refuse(self, reason: str) -> None:
        """Stop talking to this hub for good (it speaks another protocol version)."""
        self.refusal = reason
        self._stop.set()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)

    def _send(self, kind: str, **fields) -> None:
        with self._write_lock:
            port = self._serial
            if port is None:
                return
            try:
                port.write(frame(self._seq, kind, **fields))
                self._seq += 1
            except self._errors:
                pass  # the reader notices the broken line and reconnects

    def _hand(self, what: str, data) -> None:
        self._sink(HubItem(self.device, what, data, self._clock()))

    def _run(self) -> None:
        wait = BACKOFF_S[0]
        while not self._stop.is_set():
            try:
                port = self._opener(self.port, self.baud, timeout=READ_TIMEOUT_S)
            except self._errors as e:
                self._hand("lost", f"cannot open it ({os.strerror(e.errno) if e.errno else e})")
            else:
                with self._write_lock:
                    self._serial = port
                self._hand("open", self.port)
                reason, greeted = self._serve(port)
                with self._write_lock:
                    self._serial = None
                try:
                    port.close()
                except self._errors:
                    pass
                if self._stop.is_set():
                    break
                self._hand("lost", reason)
                if greeted:
                    wait = BACKOFF_S[0]
            self._stop.wait(wait)
            wait = min(wait * 2, BACKOFF_S[1])

    def _serve(self, port) -> tuple[str, bool]:
        """Read lines until the connection should be given up; returns why, and whether the hub said hello."""
        watch = LineWatch(time.monotonic())
        self._say(watch.opened(time.monotonic()))
        while not self._stop.is_set():
            try:
                data = port.read(max(1, min(port.in_waiting, 4096)))
            except self._errors:
                return "unplugged", watch.greeted
            lines, reason = watch.received(data, time.monotonic())
            for line in lines:
                self._hand("line", line)
            if reason is None:
                send, reason = watch.due(time.monotonic())
                self._say(send)
            if reason is not None:
                return reason, watch.greeted
        return "closed", watch.greeted

    def _say(self, kinds: list[str]) -> None:
        for kind in kinds:
            self._send(kind, **({"proto": PROTOCOL} if kind == "hello" else {}))
