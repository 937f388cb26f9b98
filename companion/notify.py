"""systemd's notify protocol: tell the service manager we are ready, and keep its watchdog fed.

A few lines of datagram socket instead of a dependency. Outside systemd
(no NOTIFY_SOCKET) every call does nothing.
"""

import array
import os
import select
import socket
import threading


BARRIER_S = 5.0  # the longest a leaving daemon waits for systemd to have read what it said


def notify(message: str, fds: tuple[int, ...] = ()) -> bool:
    """Send one notification ("READY=1", "WATCHDOG=1", "STOPPING=1", ...); False if not under systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
        sock.sendmsg([message.encode()], rights, 0, address)
    return True


def say_why_and_leave(reason: str) -> None:
    """Give systemd the reason a daemon stops (`systemctl status` shows it), and wait until it has read it.

    A process that exits straight after a notification can be reaped before
    systemd reads the datagram, and the reason is lost: the barrier (an fd
    systemd closes once it has read every earlier message) closes that race.
    """
    if not notify(f"STATUS={reason}"):
        return
    read, write = os.pipe()
    try:
        notify("BARRIER=1", fds=(write,))
        os.close(write)
        write = -1
        poller = select.poll()
        poller.register(read, select.POLLHUP)
        poller.poll(BARRIER_S * 1000)
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)


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
