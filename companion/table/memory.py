"""The daemon's memory: many threads, few malloc arenas.

The web server keeps a thread for every phone's live stream and more (some
fifty), and glibc gives each thread that allocates its own malloc arena (up
to eight per core), each keeping the high-water mark of what its thread
once needed: the daemon's memory then grows with every page a different
thread happens to render. Two arenas serve a table's load as well, and keep
its memory flat. Elsewhere than glibc this does nothing.
"""

import ctypes
import logging

log = logging.getLogger(__name__)

M_ARENA_MAX = -8  # glibc's mallopt parameter
ARENAS = 2


def few_arenas(arenas: int = ARENAS) -> bool:
    """Ask glibc to share `arenas` malloc arenas among all threads (True if it agreed)."""
    try:
        # The interpreter's own symbols, its C library's among them: finding the library by name would run
        # `ldconfig -p`, a second process at every start.
        libc = ctypes.CDLL(None)
        return bool(libc.mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):  # not glibc (musl, macOS): its allocator does not keep arenas per thread
        return False
