"""A table's start: the objects it makes live as long as the process, so the cycle collector waits for it.

Python's cycle collector runs after every few hundred new objects, and now
and then walks every object there is. A start makes tens of thousands
(modules, classes, the site's rules, the table) that never become garbage:
collecting them over and over took about an eighth of the time from a
restart to the first answer. So the collector is paused while the table
starts; once it serves, what the start made is frozen (`gc.freeze`), and the
collections of a running table walk only what it made since.

>>> with collector_paused():
...     gc.isenabled()
...     settled()
...     gc.isenabled(), gc.get_freeze_count() > 0
False
(True, True)
>>> gc.isenabled(), gc.get_freeze_count()
(True, 0)
"""

import gc
from contextlib import contextmanager


@contextmanager
def collector_paused():
    """The collector paused until `settled()`, or until the block ends however it ends (a refused start). At its
    end what was frozen is thawed: a process that goes on (a test, a demo stopped in process) collects as before."""
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.enable()


def settled() -> None:
    """The start is over: what it made is kept out of the collector's walks, and the collector runs again."""
    gc.freeze()
    gc.enable()
