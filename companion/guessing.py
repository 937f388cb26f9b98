"""Guessing a secret slowed down, never by sleeping: a count of wrong tries per address, and one for the table.

The table PIN (six digits) needs both counts: a guesser who spreads over
many addresses is seen by the table-wide one. The setup code (ten letters
and digits) needs only the first, `setup_code_guard()`: its 31**10 (about
8e14) codes cannot be guessed at any rate a Pi answers, so one guest's
wrong codes never make another address wait, and the owner, on a card
with no phone that got in before and no screen, is never locked out.
Both the setup page and the Wi-Fi page guard the code with it.
"""

import math
import threading
import time
from collections.abc import Callable

CLIENT_FREE_TRIES = 3  # wrong PINs one address may send before it must wait
TABLE_FREE_TRIES = 10  # wrong PINs from all addresses together before everyone must wait
FIRST_WAIT_S = 1.0  # the first wait; each further wrong PIN doubles it
MAX_WAIT_S = 300.0  # the longest wait: past the ramp, one guess per 5 minutes for the whole table
MAX_DOUBLINGS = 30  # 2**30 s is far past MAX_WAIT_S; keeps the power small whatever the count
FORGET_AFTER_S = 900.0  # a quarter of an hour without a wrong PIN and a phone's count starts again
# The table-wide count forgets only after six quiet hours: a guesser who sits out a short quiet spell to
# win back the free tries gets fewer guesses a day than one who guesses at the steady pace (289 a day).
# Phones that have unlocked before are outside this count, so its long memory costs the owner nothing.
TABLE_FORGET_AFTER_S = 6 * 3600.0
MAX_CLIENTS = 1000  # addresses remembered; the stalest is dropped first


class Backoff:
    """One count of wrong PINs; past `free_tries`, each further try must wait twice as long as the last.

    >>> backoff = Backoff(free_tries=1, first_wait_s=2.0)
    >>> backoff.failed(now=0.0); backoff.wait_s(now=0.5)
    1.5
    """

    def __init__(self, *, free_tries: int = CLIENT_FREE_TRIES, first_wait_s: float = FIRST_WAIT_S,
                 max_wait_s: float = MAX_WAIT_S, forget_after_s: float = FORGET_AFTER_S):
        self.free_tries = free_tries
        self.first_wait_s = first_wait_s
        self.max_wait_s = max_wait_s
        self.forget_after_s = forget_after_s
        self.wrong, self.last = 0, 0.0

    def wait_s(self, now: float) -> float:
        """Seconds before the next try is heard (0: now)."""
        if self.wrong < self.free_tries or now - self.last > self.forget_after_s:
            return 0.0
        delay = min(self.max_wait_s, self.first_wait_s * 2 ** min(self.wrong - self.free_tries, MAX_DOUBLINGS))
        return max(0.0, self.last + delay - now)

    def failed(self, now: float) -> None:
        if now - self.last > self.forget_after_s:
            self.wrong = 0  # quiet long enough: counting starts again
        self.wrong, self.last = self.wrong + 1, now


class PinGuard:
    """Wrong PINs counted per client and for the whole table; either count past its free tries slows every try.

    Nothing sleeps: a client that tries too soon is told how long to wait. The
    count per client slows one guesser; the table-wide count slows guessers
    who spread their tries over many addresses, which per-client counting
    alone cannot see.

    >>> guard = PinGuard(free_tries=1, first_wait_s=2.0)
    >>> guard.failed("10.0.0.7", now=0.0); guard.wait_s("10.0.0.7", now=0.5)
    1.5
    >>> guard = PinGuard(table_free_tries=2)
    >>> guard.failed("10.0.0.1", now=0.0); guard.failed("10.0.0.2", now=0.0); guard.wait_s("10.0.0.3", now=0.0)
    1.0
    """

    def __init__(self, *, free_tries: int = CLIENT_FREE_TRIES, first_wait_s: float = FIRST_WAIT_S,
                 max_wait_s: float = MAX_WAIT_S, forget_after_s: float = FORGET_AFTER_S,
                 max_clients: int = MAX_CLIENTS, table_free_tries: int = TABLE_FREE_TRIES,
                 table_forget_after_s: float = TABLE_FORGET_AFTER_S, clock: Callable[[], float] = time.monotonic):
        self._per_client = dict(free_tries=free_tries, first_wait_s=first_wait_s, max_wait_s=max_wait_s,
                                forget_after_s=forget_after_s)
        self.max_clients = max_clients
        self.clock = clock  # tests move time by hand
        self._lock = threading.Lock()
        self._clients: dict[str, Backoff] = {}
        self._table = Backoff(free_tries=table_free_tries, first_wait_s=first_wait_s, max_wait_s=max_wait_s,
                              forget_after_s=table_forget_after_s)

    def wait_s(self, client: str, now: float, *, known: bool = False) -> float:
        """Seconds before `client` may try a PIN again (0: now): the longer of its own wait and the table's.

        A `known` client (a phone that has unlocked before) waits for its own count only.
        """
        with self._lock:
            own = self._clients.get(client)
            table = 0.0 if known else self._table.wait_s(now)
            return max(own.wait_s(now) if own else 0.0, table)

    def failed(self, client: str, now: float, *, known: bool = False) -> None:
        with self._lock:
            own = self._clients.setdefault(client, Backoff(**self._per_client))
            own.failed(now)
            if not known:
                self._table.failed(now)
            if len(self._clients) > self.max_clients:  # keep memory bounded: drop the stalest
                del self._clients[min(self._clients, key=lambda c: self._clients[c].last)]

    def succeeded(self, client: str) -> None:
        """A right PIN clears that client's count; the table's count runs down on its own, so guessers
        cannot clear it by knowing the PIN of nothing."""
        with self._lock:
            self._clients.pop(client, None)


def setup_code_guard(clock: Callable[[], float] = time.monotonic) -> PinGuard:
    """The one guard of the setup code, wherever it is typed: wrong codes slow their own address alone.

    >>> guard = setup_code_guard(clock=lambda: 0.0)
    >>> for _ in range(50): guard.failed("10.0.0.66", now=0.0)
    >>> guard.wait_s("10.0.0.66", now=0.0) > 0, guard.wait_s("10.0.0.7", now=0.0)
    (True, 0.0)
    """
    return PinGuard(table_free_tries=math.inf, clock=clock)  # no table-wide count (see the module's note)
