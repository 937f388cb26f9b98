"""systemd's notify protocol: tell the service manager we are ready, and keep its watchdog fed.

A few lines of datagram socket instead of a dependency. Outside systemd
(no NOTIFY_SOCKET) every call does nothing.
"""

import os
import socket
import threading


def notify(message: str) -> bool:
    """Send one notification ("READY=1", "WATCHDOG=1", "STOPPING=1", ...); False if not under systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.sendto(message.encode(), address)
    return True


def keep_watchdog_fed(healthy, stop: threading.Event) -> threading.Thread | None:
    """Ping the watchdog at half its interval while `healthy()` says the table still answers."""
    usec = os.environ.get("WATCHDOG_USEC")
    if not usec or not os.environ.get("NOTIFY_SOCKET"):
        return None
    interval = int(usec) / 1e6 / 2

    def feed():
        while not stop.wait(interval):
            if healthy():
                notify("WATCHDOG=1")

    thread = threading.Thread(target=feed, name="watchdog", daemon=True)
    thread.start()
    return thread
