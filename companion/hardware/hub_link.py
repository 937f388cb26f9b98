"""The serial line to the hub, kept open by one reader thread that hands raw lines to the rig's sink.

The thread only moves bytes and watches the line's health; what the lines
mean is decided on the runtime thread by `HubSource.take`. It says hello on
every (re)connect, sends a heartbeat every second, and gives up on a
connection that fails, falls silent or fills with garbage, then reconnects
with a doubling back-off, as the firmware's PROTOCOL.md describes.
"""

import os
import threading
import time
from dataclasses import dataclass

from companion.hardware.hub_frames import MAX_LINE, PROTOCOL, frame, read_frame

BAUD = 115200  # USB CDC ignores it; a UART-wired hub needs it
READ_TIMEOUT_S = 0.05  # how long one read may block: bounds how late a closing thread notices
HELLO_EVERY_S = 2.0  # hello again if the hub has not answered by then
HELLO_TRIES = 3  # then the hub "does not answer"
SILENCE_S = 2.0  # the hub beats every 0.5 s: this long without a byte means it is gone
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
        buffer, bad_run, greeted, hellos = b"", 0, False, 0
        heard = said_hello = beat = time.monotonic()
        self._send("hello", proto=PROTOCOL)
        while not self._stop.is_set():
            try:
                data = port.read(max(1, min(port.in_waiting, 4096)))
            except self._errors:
                return "unplugged", greeted
            now = time.monotonic()
            if data:
                heard = now
                buffer += data
                *lines, buffer = buffer.split(b"\n")
                while len(buffer) > MAX_LINE:  # an endless line: each line's worth of it is one bad frame
                    lines.append(buffer[:MAX_LINE])
                    buffer = buffer[MAX_LINE:]
                for line in lines:
                    parsed = read_frame(line)
                    bad_run = 0 if parsed else bad_run + 1
                    greeted = greeted or (parsed is not None and parsed[1] == "hello")
                    self._hand("line", line + b"\n")
                if bad_run >= GARBAGE_RUN:
                    return "garbage", greeted
            elif now - heard >= SILENCE_S:
                return "silent", greeted
            if not greeted and now - said_hello >= HELLO_EVERY_S:
                hellos += 1
                if hellos >= HELLO_TRIES:
                    return "not answering", greeted
                said_hello = now
                self._send("hello", proto=PROTOCOL)
            if now - beat >= BEAT_EVERY_S:
                beat = now
                self._send("beat")
        return "closed", greeted
