"""The runtime: a command runs in its caller's thread, holding the show, in order with everything queued before it."""

import threading

from companion.clock import FakeClock, SystemClock
from companion.table.runtime import Runtime

WAIT_S = 10.0


class Recorder:
    """What the runtime took and settled, in order, and on which thread."""

    def __init__(self, runtime: Runtime, due=lambda: None):
        self.log: list = []
        self.settled = threading.Condition()
        self.settles: list[float] = []
        runtime.drive(self.take, self.settle, due)

    def take(self, item) -> None:
        self.log.append(item)

    def settle(self, now: float) -> None:
        with self.settled:
            self.settles.append(now)
            self.settled.notify_all()


def test_a_command_runs_in_its_callers_thread_and_returns_its_answer():
    runtime = Runtime(FakeClock())
    Recorder(runtime)
    runtime.start()
    try:
        assert runtime.call(threading.current_thread) is threading.current_thread()
        assert runtime.call(lambda a, b: a + b, 2, 3) == 5
    finally:
        runtime.stop()


def test_a_commands_exception_reaches_its_caller_and_the_runtime_goes_on():
    runtime = Runtime(FakeClock())
    Recorder(runtime)
    runtime.start()
    try:
        try:
            runtime.call(lambda: 1 / 0)
        except ZeroDivisionError:
            pass
        else:
            raise AssertionError("the command's exception was lost")
        assert runtime.alive()
    finally:
        runtime.stop()


def test_items_queued_before_a_command_are_taken_before_it_from_every_thread():
    runtime = Runtime(FakeClock())
    recorder = Recorder(runtime)
    runtime.start()

    def caller(name: str) -> None:
        for i in range(200):
            runtime.put((name, i, "item"))
            runtime.call(lambda i=i: recorder.log.append((name, i, "command")))

    callers = [threading.Thread(target=caller, args=(name,)) for name in "abc"]
    try:
        for thread in callers:
            thread.start()
        for thread in callers:
            thread.join(WAIT_S)
        for name in "abc":
            mine = [entry for entry in recorder.log if entry[0] == name]
            assert mine == [(name, i, kind) for i in range(200) for kind in ("item", "command")]
    finally:
        runtime.stop()


def test_a_command_that_brings_a_deadline_sooner_wakes_the_thread_for_it():
    clock = SystemClock()
    due: list[float | None] = [None]
    runtime = Runtime(clock)
    recorder = Recorder(runtime, lambda: due[0])
    runtime.start()
    try:
        runtime.call(lambda: None)  # the thread now sleeps with nothing due: until an item comes
        instant = clock.monotonic() + 0.05
        runtime.call(lambda: due.__setitem__(0, instant))
        with recorder.settled:
            assert recorder.settled.wait_for(lambda: any(now >= instant for now in recorder.settles), WAIT_S)
    finally:
        runtime.stop()


def test_the_watchdogs_question_is_answered_only_by_the_runtime_thread():
    runtime = Runtime(FakeClock())
    Recorder(runtime)
    runtime.start()
    entered, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=runtime.call, args=(lambda: entered.set() or release.wait(WAIT_S),))
    try:
        holder.start()
        assert entered.wait(WAIT_S)
        asked = threading.Thread(target=lambda: answers.append(runtime.alive(timeout=WAIT_S)))
        answers: list[bool] = []
        asked.start()
        # The command holding the runtime takes the question off the queue as it catches up; it is not the thread.
        release.set()
        holder.join(WAIT_S)
        asked.join(WAIT_S)
        assert answers == [True]
        entered.clear()
        release.clear()
        holder = threading.Thread(target=runtime.call, args=(lambda: entered.set() or release.wait(WAIT_S),))
        holder.start()
        assert entered.wait(WAIT_S)
        assert not runtime.alive(timeout=0.2)  # held by a command that does not end: the thread cannot answer
    finally:
        release.set()
        holder.join(WAIT_S)
        runtime.stop()


def test_a_question_a_command_took_off_the_queue_still_wakes_the_runtime_thread_to_answer_it():
    """A command that catches up may take the watchdog's question off the queue, and clears the thread's wake-up as
    it does: the thread, about to wait, must still wake to answer (else the watchdog hears nothing and restarts a
    healthy table)."""
    from concurrent.futures import Future

    from companion.table.runtime import _Ping

    runtime = Runtime(FakeClock())
    Recorder(runtime)
    runtime._thread = threading.Thread()  # a runtime thread between its catch-up and its wait (never run here)
    runtime.put(_Ping(Future()))
    runtime.call(lambda: None)  # takes the question off the queue before its own work
    assert runtime._queued.is_set()


class QuietClock:
    """A clock moved by hand that tells no one: the runtime learns the time only by reading it."""

    def __init__(self):
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def on_change(self, callback) -> None:
        pass


def test_what_came_due_before_a_command_is_settled_before_it_though_nothing_woke_the_runtime():
    clock, due = QuietClock(), [None]
    runtime = Runtime(clock)
    recorder = Recorder(runtime, lambda: due[0])
    runtime.start()
    try:
        runtime.call(lambda: due.__setitem__(0, clock.now + 60))  # the thread then sleeps toward it, by the clock
        clock.now += 120  # the deadline passes unseen
        runtime.call(lambda: recorder.log.append(("command", list(recorder.settles))))
        _, settled_before = recorder.log[-1]
        assert any(now >= due[0] for now in settled_before)
    finally:
        runtime.stop()


def test_a_command_with_nothing_to_catch_up_goes_straight_to_its_work():
    # The next deadline is known from the last time the runtime settled: a command does not ask for it again
    # before it runs (tens of µs on the way from a flip to the phones), only after, as the runtime settles.
    clock, asked = QuietClock(), []
    runtime = Runtime(clock)
    Recorder(runtime, lambda: asked.append(threading.current_thread()) or clock.now + 60)
    runtime.start()
    try:
        runtime.call(lambda: None)
        assert runtime.alive()  # the thread has taken its wake-up and sleeps toward the deadline: nothing queued
        seen = []
        asked.clear()
        runtime.call(lambda: seen.append([thread for thread in asked if thread is threading.current_thread()]))
        assert seen == [[]] and threading.current_thread() in asked  # asked after its work, never before
    finally:
        runtime.stop()
