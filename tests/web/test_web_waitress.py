"""The server's fast push and its guarded connections lean on waitress's internals, which are no public
interface: pyproject.toml pins waitress to the versions checked here, and these tests fail the day the
installed waitress changes what companion.web.server uses (PushingTask, GuardedChannel, make_server).

Each test drives a real waitress connection on a socket pair, as the server's own loop would.
"""

import socket
import threading
import time
import tomllib
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

import pytest
from packaging.requirements import Requirement
from waitress import wasyncore
from waitress.channel import ClientDisconnected
from waitress.parser import HTTPRequestParser

from companion.web.live import PUSH
from companion.web.server import CONNECTIONS_PER_CLIENT, GuardedChannel, PushingTask, make_server


def test_the_installed_waitress_is_one_the_pin_allows():
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text("utf-8"))["project"]
    pinned = next(r for r in map(Requirement, project["dependencies"]) if r.name == "waitress")
    assert pinned.specifier.contains(version("waitress")), (pinned, version("waitress"))
    assert "<" in str(pinned.specifier), "waitress is pinned to the versions whose internals were checked"


@pytest.fixture
def wired(table):
    """A GuardedChannel on one end of a socket pair (the phone at the other end), and its server, not running."""
    server = make_server(table, "127.0.0.1", 0)
    ours, phone = socket.socketpair()
    sockets: dict = {}
    channel = GuardedChannel(server, ours, ("127.0.0.1", 50000), server.adj, map=sockets)
    phone.settimeout(5)
    yield SimpleNamespace(server=server, channel=channel, phone=phone)
    channel.handle_close()
    phone.close()
    wasyncore.close_all(server._map)


def streaming(channel, *, chunked: bool = True) -> PushingTask:
    """A task answering a stream's request on `channel`, its head already out, as when a stream runs."""
    request = HTTPRequestParser(channel.adj)
    request.received(b"GET /api/show/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    task = PushingTask(channel, request)
    task.wrote_header, task.chunked_response = True, chunked
    return task


def test_a_connection_has_the_parts_the_push_and_the_guard_read(wired):
    channel = wired.channel
    assert channel.connected is True
    assert channel.total_outbufs_len == 0
    assert abs(channel.last_activity - time.time()) < 60  # wall-clock seconds, as the sweep compares them
    assert channel.requests == [] and channel.request is None and channel.will_close is False
    assert channel.addr == ("127.0.0.1", 50000)
    assert channel.outbuf_lock.acquire(blocking=False)  # a lock a thread can try without waiting
    try:
        grabbed = []
        other = threading.Thread(target=lambda: grabbed.append(channel.outbuf_lock.acquire(blocking=False)))
        other.start()
        other.join()
        assert grabbed == [False]  # held: another thread is told so at once
    finally:
        channel.outbuf_lock.release()
    assert GuardedChannel.task_class is PushingTask  # waitress builds each request's task from the channel's class


def test_the_server_takes_the_channel_class_and_settings_it_is_given(wired):
    server = wired.server
    assert server.channel_class is GuardedChannel
    assert isinstance(server.active_channels, dict)
    assert server.adj.asyncore_use_poll is True and server.adj.asyncore_loop_timeout > 0
    assert callable(server.asyncore.loop) and isinstance(server._map, dict)
    assert callable(server.task_dispatcher.shutdown)


def test_send_writes_to_the_socket_at_once_and_never_closes_when_told_not_to(wired):
    assert wired.channel.send(b"hello", do_close=False) == 5
    assert wired.phone.recv(5) == b"hello"
    wired.phone.close()
    wired.channel.send(b"x" * 100_000, do_close=False)  # the phone gone: nothing sent, the channel left as it was
    assert wired.channel.connected is True


def slow_phone(channel) -> None:
    """More bytes queued on `channel` than its socket takes, as for a phone that reads slowly."""
    channel.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    channel.write_soon(b"x" * 1_000_000)


def test_write_soon_sends_what_the_socket_takes_and_queues_the_rest_for_the_loop(wired):
    wired.channel.write_soon(b"abc")
    assert wired.phone.recv(3) == b"abc"
    slow_phone(wired.channel)
    assert 0 < wired.channel.total_outbufs_len < 1_000_000
    wired.channel.handle_close()
    with pytest.raises(ClientDisconnected):
        wired.channel.write_soon(b"more")


def test_the_sweep_closes_only_connections_quiet_for_longer_than_the_channel_timeout(wired):
    server, channel = wired.server, wired.channel
    server.active_channels[channel._fileno] = channel
    channel.last_activity = time.time()  # what the push sets on every write
    server.maintenance(time.time())
    assert channel.will_close is False
    server.maintenance(time.time() + server.adj.channel_timeout + 1)
    assert channel.will_close is True


def test_a_push_goes_straight_to_the_socket_as_one_chunk(wired):
    task = streaming(wired.channel)
    wired.channel.last_activity = 0
    assert task.push(b"data: 1\n\n") is True
    assert wired.phone.recv(100) == b"9\r\ndata: 1\n\n\r\n"
    assert wired.channel.last_activity > 0  # the sweep sees the line is not idle


def test_a_push_never_waits(wired):
    task = streaming(wired.channel)
    with wired.channel.outbuf_lock:  # the loop or the stream's own thread is writing
        other = threading.Thread(target=lambda: results.append(task.push(b"x")))
        results = []
        other.start()
        other.join()
    assert results == [False]
    assert PushingTask.wrote_header is False  # the class default: a new task has no head out yet
    slow_phone(wired.channel)  # bytes wait for a slow phone: they go first, by its own thread
    assert task.push(b"x") is False


def test_what_the_socket_does_not_take_is_queued_for_the_loop(wired):
    wired.channel.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    data = b"x" * 1_000_000
    assert streaming(wired.channel).push(data) is True
    chunk_len = len(b"%X\r\n" % len(data)) + len(data) + 2
    assert 0 < wired.channel.total_outbufs_len < chunk_len


def test_the_environ_carries_the_push_and_the_disconnect_check(wired):
    task = streaming(wired.channel)
    environ = task.get_environment()
    assert environ[PUSH] == task.push
    assert environ["waitress.client_disconnected"]() is False
    wired.channel.handle_close()
    assert environ["waitress.client_disconnected"]() is True


def test_a_guarded_channel_past_the_clients_share_is_closed_before_it_reads(wired):
    server = wired.server
    for n in range(CONNECTIONS_PER_CLIENT):
        server.active_channels[-1 - n] = SimpleNamespace(addr=("127.0.0.1", n), will_close=False, requests=[],
                                                         total_outbufs_len=0, waiting_since=0)
    ours, phone = socket.socketpair()
    try:
        refused = GuardedChannel(server, ours, ("127.0.0.1", 60000), server.adj, map={})
        assert refused.will_close is True
        refused.handle_close()
    finally:
        phone.close()


def test_a_signal_stops_the_server_at_its_next_turn_and_never_raises_where_the_main_thread_is(tmp_path):
    # Before, SIGTERM raised KeyboardInterrupt wherever the main thread was. In the loop, ringing a leaving
    # phone's stream awake, that could fall between taking an event's lock and the block that frees it:
    # once in a bench, the daemon then never exited.
    import os
    import signal
    import urllib.request

    from companion.table import demo_table
    from companion.web.server import bound_port, stop_on_signals

    table = demo_table(tmp_path / "t.sqlite3", pin="1234").start()
    server = make_server(table, "127.0.0.1", 0)
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        stop_on_signals(server)
        assert signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None) is None and server.stopping  # a flag, no raise
        server.stopping = False

        def stop_once_served():
            urllib.request.urlopen(f"http://127.0.0.1:{bound_port(server)}/api/show", timeout=10).read()
            os.kill(os.getpid(), signal.SIGTERM)

        threading.Thread(target=stop_once_served, daemon=True).start()
        server.run()  # the loop ends at the signal, woken by it, then shuts the server down in order
        assert server.stopping and not server._map
        assert signal.set_wakeup_fd(-1) == -1  # its pipe is closed: a later signal never writes to a reused fd
    finally:
        signal.set_wakeup_fd(-1)
        for signum, handler in before.items():
            signal.signal(signum, handler)
        table.stop()
