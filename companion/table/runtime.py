"""The one thread that owns the show: it sleeps until the next queued item or the next deadline.

Pin callbacks, buttons and web requests never touch the show unheld. They
`put` items on a queue (raw edges), or `call` commands, which run in order
with everything else. The thread wakes for the next item or at the instant
its owner says something is due, catches up, and sleeps again: no polling.
Without the thread (tests), `pump()` and `submit()` do the same work in the
caller's thread.

Whoever holds the runtime's lock owns the show, and items are taken off the
queue only under it. So a command need not travel to the runtime thread and
back (two thread switches, each a wait for the scheduler on a busy machine,
on the way from a phone's tap to every phone): `call` takes the lock in the
caller's own thread, first takes everything queued before it and settles
what came due (in order, as the thread would have; with nothing queued and
nothing due there is nothing to catch up), runs the command, catches up,
and wakes the thread only if the command brought a deadline earlier than
the one it sleeps toward. The thread, woken by an item, takes it under the lock too, never
holding one outside it, so no item queued before a command is taken after
it. `submit` still runs a command on the runtime thread itself (what only
that thread may do, and the watchdog's question whether it answers).

Two waits are kept short because a turned glass goes through both on its
way to the phones: the thread's own timed wake at a deadline, and a woken
thread's wait for the interpreter while another thread runs Python (5 ms at
most by default; SWITCH_INTERVAL_S while a table runs), so a debounce
settling or a stream sending a change never waits long behind a page being
rendered. A timed wait ends late: by the kernel's "timer slack" (50 µs by
default; the runtime asks for TIMER_SLACK_NS) and by the time the kernel
takes to wake a thread, 0.1 to 0.3 ms on a Pi or a virtual machine. So the
thread sleeps until LAST_STRETCH_S before a deadline and watches the clock
for the rest, still taking any item that arrives meanwhile.
"""

import collections
import ctypes
import functools
import logging
import sys
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Callable

log = logging.getLogger(__name__)

TIMER_SLACK_NS = 1000  # the runtime's timed wakes end within a microsecond of their instant
SWITCH_INTERVAL_S = 0.001  # a woken thread gets the interpreter within this of asking
PR_SET_TIMERSLACK = 29  # <linux/prctl.h>
# The end of a wait for a deadline, watched on the clock rather than slept: longer than a timed wake
# is late, short enough that the watching costs nothing to speak of (a few deadlines a second at most).
LAST_STRETCH_S = 0.0005
# Between looks at the clock the interpreter is let go for a few microseconds (with the runtime's timer slack).
# sched_yield would hand the core to any busy process beside it for a whole time slice: 6 ms, measured with a
# neighbour spinning on the core, where a debounce settling should reach the phones within a millisecond.
_let_go = functools.partial(time.sleep, 0)
DURABLE_WAIT_S = 2.0  # how long a change from a phone waits for its line to be on disk
COMMAND_WAIT_S = 10.0  # a command waits this long at most for the runtime to be free (a hung one fails it)


@dataclass(frozen=True)
class _Command:
    fn: Callable
    args: tuple
    future: Future


class _Tick:
    """Wakes the thread to look at the clock again."""


@dataclass(frozen=True)
class _Ping:
    """Asks whether the runtime thread still answers: only that thread answers it, after its next catch-up."""

    future: Future


class Runtime:
    """Runs `take(item)` for each queued item, then `settle(now)`, whenever an item arrives or
    `next_due()` (a monotonic instant, or None) comes round.

    It is built first, as the queue the other parts hand items to, and
    driven once they exist (`drive`): nothing runs before then.
    """

    def __init__(self, clock):
        self.clock = clock
        self._take: Callable[[object], None] = lambda item: None
        self._settle: Callable[[float], None] = lambda now: None
        self._next_due: Callable[[], float | None] = lambda: None
        self._queue: collections.deque = collections.deque()  # appended and taken atomically, read ahead by the thread
        self._queued = threading.Event()  # set by every put: the thread wakes for it, and takes the items under the lock
        self._lock = threading.RLock()
        self._waiting_for: float | None = None  # the deadline the thread sleeps toward (under the lock)
        # The next deadline as the runtime last settled: what is due changes only while the runtime is held, and
        # every holder settles before letting go, so a command need not ask again (tens of µs on its way to the phones).
        self._due: float | None = None
        self._pings: list[Future] = []
        self._thread: threading.Thread | None = None
        self._stopping = False
        clock.on_change(self.poke)

    def drive(self, take: Callable[[object], None], settle: Callable[[float], None],
              next_due: Callable[[], float | None]) -> None:
        """What the runtime does with items and deadlines, once the parts that do it are built."""
        self._take, self._settle, self._next_due = take, settle, next_due

    def put(self, item) -> None:
        """Hand an item to the runtime (safe from any thread, never blocks)."""
        self._queue.append(item)
        self._queued.set()

    def poke(self) -> None:
        """Make the runtime look at the clock again (a fake clock calls this when moved)."""
        self.put(_Tick())

    def start(self) -> None:
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
        self._thread = threading.Thread(target=self._run, name="table", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping = True
        self.poke()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def submit(self, fn: Callable, *args):
        """Run fn(*args) on the runtime thread and return its result (or raise its exception)."""
        if self._thread is None or threading.current_thread() is self._thread:
            with self._lock:
                self._settle(self.clock.monotonic())
                result = fn(*args)
                self.pump()
                return result
        future = Future()
        self.put(_Command(fn, args, future))
        return future.result(timeout=COMMAND_WAIT_S)

    def call(self, fn: Callable, *args):
        """Run fn(*args) in order with everything else, in the caller's thread while it holds the runtime; return
        its result (or raise its exception). From the runtime thread, or without it, this is `submit`."""
        if self._thread is None or threading.current_thread() is self._thread:
            return self.submit(fn, *args)
        if not self._lock.acquire(True, COMMAND_WAIT_S):  # positional: a keyword costs a lock a third of a µs
            raise TimeoutError(f"the table did not take a command within {COMMAND_WAIT_S:g} s")
        try:
            if self._queue or _due_by(self._due, self.clock.monotonic()):
                self._catch_up()  # what was queued or came due before this command is taken before it
            try:
                return fn(*args)
            finally:
                self._catch_up()
                if self._pings:  # a question taken off the queue here, and the thread's wake-up cleared with it
                    self._queued.set()  # the thread wakes to answer it (a thread about to wait would sleep past it)
                elif _sooner(self._due, self._waiting_for):
                    self.poke()  # the thread sleeps toward a later deadline: it looks again
        finally:
            self._lock.release()

    def holding(self) -> bool:
        """Whether the calling thread holds the runtime now (runs a command, or the runtime's step)."""
        return self._lock._is_owned()

    def alive(self, timeout: float = 5.0) -> bool:
        """Whether the runtime thread still answers (the systemd watchdog asks)."""
        if self._thread is None or not self._thread.is_alive():
            return False
        future = Future()
        self.put(_Ping(future))
        try:
            return future.result(timeout=timeout)
        except Exception:
            return False

    def pump(self) -> None:
        """Take everything queued, then settle everything due by now."""
        with self._lock:
            try:
                self._queued.clear()  # before taking: an item put from here on sets it again
                while self._queue:
                    self._handle(self._queue.popleft())
                self._settle(self.clock.monotonic())
            finally:
                self._due = self._next_due()

    def _catch_up(self) -> None:
        try:
            self.pump()
        except Exception:  # a bug must not stop the table: log it and go on
            log.exception("runtime step failed")

    def _handle(self, item) -> None:
        if isinstance(item, _Command):
            try:
                item.future.set_result(item.fn(*item.args))
            except BaseException as e:
                item.future.set_exception(e)
        elif isinstance(item, _Ping):
            self._pings.append(item.future)  # answered by the runtime thread, whoever took it off the queue
        elif not isinstance(item, _Tick):
            self._take(item)

    def _run(self) -> None:
        _precise_timers()
        with self._lock:
            self._due = self._next_due()  # what came due before the thread ran
        while not self._stopping:
            with self._lock:
                due = self._waiting_for = self._due
            self._next_item(due)
            with self._lock:
                self._catch_up()
                pings, self._pings = self._pings, []
            for ping in pings:
                ping.set_result(True)

    def _next_item(self, due: float | None):
        """The next queued item, left on the queue (None once `due`, a monotonic instant, has come first)."""
        if due is None:
            self._queued.wait()
            return self._first()
        if (item := self._first()) is not None:
            return item
        if self._queued.wait(max(0.0, due - self.clock.monotonic() - LAST_STRETCH_S)):
            return self._first()
        watch_until = time.perf_counter() + 2 * LAST_STRETCH_S
        while self.clock.monotonic() < due and time.perf_counter() < watch_until:
            if self._queue:
                return self._first()
            _let_go()
        if (left := due - self.clock.monotonic()) > 0 and self._queued.wait(left):  # a clock not the machine's
            return self._first()
        return None

    def _first(self):
        try:
            return self._queue[0]
        except IndexError:  # taken meanwhile by a command's catch-up
            return None


def _sooner(due: float | None, than: float | None) -> bool:
    """Whether deadline `due` comes before `than` (None: never)."""
    return due is not None and (than is None or due < than)


def _due_by(due: float | None, now: float) -> bool:
    return due is not None and due <= now


def on_runtime(command: Callable) -> Callable:
    """A method that runs holding its object's runtime (`self._runtime`), in order with everything else;
    the caller gets its answer (or its exception)."""
    @functools.wraps(command)
    def called(self, *args, **kwargs):
        return self._runtime.call(functools.partial(command, self, *args, **kwargs))
    return called


def durable(command: Callable) -> Callable:
    """A command of the show, run holding the runtime, that answers once its journal lines are on disk
    (`self._journal`), or says they are still pending (`"saved": false`)."""
    @functools.wraps(command)
    def written(self, *args, **kwargs):
        snapshot = self._runtime.call(functools.partial(command, self, *args, **kwargs))
        if self._journal.wait_for(self._journal.mark(), DURABLE_WAIT_S):
            return snapshot
        return dict(snapshot, saved=False)  # applied, and kept for the writer to retry: never a 500
    return written


def _precise_timers() -> None:
    """Have this thread's timed waits end at their instant, not up to the kernel's default slack later."""
    try:
        ctypes.CDLL(None).prctl(PR_SET_TIMERSLACK, TIMER_SLACK_NS, 0, 0, 0)
    except (AttributeError, OSError, TypeError):
        pass  # not Linux: the platform's own timers, as they are
