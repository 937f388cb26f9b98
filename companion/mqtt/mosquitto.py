"""A private Mosquitto broker on this computer, for trying the hall without a server.

It runs Debian's `mosquitto` on a free port of 127.0.0.1 with a config file
written for it; the tests, the benchmark and a laptop demo start one.

Used as `with Mosquitto(folder) as broker:`, it answers at `broker.url`
(`mqtt://127.0.0.1:41883`, a port free a moment before) until the block ends.
"""

import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path

READY_TIMEOUT_S = 10.0  # a broker that does not listen by then failed to start
PROBE_S = 0.02


def mosquitto_missing() -> str | None:
    """Why no broker can be started here, or None."""
    if shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto").exists():
        return "mosquitto is not installed (Debian package: mosquitto)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    """One broker process; `settings` are extra lines for its config file (users, TLS, …)."""

    def __init__(self, folder: Path, *, port: int | None = None, settings: str = "", listener: str = ""):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.settings, self.listener = settings, listener
        self.config = self.folder / "mosquitto.conf"
        self.log = self.folder / "mosquitto.log"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"{'mqtts' if 'certfile' in self.listener else 'mqtt'}://127.0.0.1:{self.port}"

    def start(self) -> "Mosquitto":
        self.config.write_text("\n".join([
            f"listener {self.port} 127.0.0.1", self.listener,
            "allow_anonymous true" if "password_file" not in self.settings else "",
            # Run as whoever started it: as root, mosquitto would drop to a user who cannot read these files.
            f"user {pwd.getpwuid(os.getuid()).pw_name}",
            "persistence false", f"log_dest file {self.log}", "log_type all", self.settings, ""]))
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.process = subprocess.Popen([binary, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:  # waiting for the broker to listen, not for time to pass
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.process.stderr.read().decode(errors='replace')}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=PROBE_S).close()
                return self
            except OSError:
                time.sleep(PROBE_S)
        self.stop()
        raise RuntimeError(f"mosquitto did not listen on port {self.port} within {READY_TIMEOUT_S:g} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None and self.process.stderr:
            self.process.stderr.close()
        self.process = None

    def restart(self) -> None:
        """Stop and start again on the same port (its retained messages are gone: no persistence)."""
        self.stop()
        self.start()

    def __enter__(self) -> "Mosquitto":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
