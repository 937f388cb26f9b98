"""An update that goes back by itself: the decisions of `companion update`, apart from the system they act on.

A new version is installed as a release beside the running one, the table's
data are backed up, `current` is switched and the service restarted; then the
new daemon has HEALTH_TIMEOUT_S to be ready (systemd's READY=1: the unit is
active and running) and answer its page, steadily for STEADY_S. If it does
not, the old release is switched back and started again; the backup's
database is put back only when the new version changed the database's
version (a migration the old program cannot read), never otherwise, so no
show played meanwhile is lost for nothing.

`System` is what the decisions need of the machine; `companion.cli.update`
is the real one (systemctl, the page over HTTP, install.sh's layout) and
`FakeSystem` below is the one the tests (and this docstring) drive:

>>> system = FakeSystem(current="0.1.0-aaa", healthy_release="0.1.0-aaa")
>>> outcome = update(system, "new.whl")
>>> outcome.switched, outcome.rolled_back, system.current()
(False, True, '0.1.0-aaa')
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

HEALTH_TIMEOUT_S = 120.0  # a new daemon ready and answering within this, or the update is undone
STEADY_S = 5.0  # ... and still the same daemon, ready and answering, this long after: not one that falls over
POLL_S = 1.0  # how often the daemon's health is asked while waiting
# What an update says, by code, in English (the terminal, the journal). The maintenance page shows the same code
# from its catalogue, in the page's language (companion/web/backup/i18n: a test keeps the English the same).
# A line's `why` names another of these, filled with the same values.
SAID = {
    "update.said.there": "the release {release} is there already",
    "update.said.installing": "installing {file} as the release {release}",
    "update.said.installing_from": "installing {file} as the release {release}, its libraries from the hashed "
                                   "wheels in {wheels}",
    "update.said.installing_offline": "installing {file} as the release {release}, offline, from its own hashed "
                                      "wheels",
    "update.said.already": "{new} is the release already running: nothing to do",
    "update.said.backed_up": "backed the table's data up to {backup}",
    "update.said.switched": "switched from {old} to {new}; restarting the service",
    "update.said.ready": "{new} is ready and its page answers: the update is done ({old} stays as the previous "
                         "release)",
    "update.said.not_up": "{new} did not come up: {why}; going back to {old}",
    "update.said.database_back": "{new} had changed the database: put back the database from {backup}",
    "update.said.old_down": "{old} did not come up again either: {why} (systemctl status companion says why)",
    "update.said.old_up": "{old} is serving again",
    "update.said.done": "{new} runs; {old} is the way back",
    "update.said.removed": "removed the release {release}",
    "update.why.failed": "systemd gave up on it (the unit failed)",
    "update.why.no_page": "its page did not answer within {seconds} s",
    "update.why.not_steady": "it did not stay up for {seconds} s",
    "update.why.not_ready": "it was not ready within {seconds} s",
}


@dataclass(frozen=True)
class Said:
    """One line an update says: its code in SAID and its values; `str()` is the English line.

    >>> str(Said.of("update.said.not_up", new="0.2.0-b", old="0.1.0-a", why="update.why.no_page", seconds=120))
    '0.2.0-b did not come up: its page did not answer within 120 s; going back to 0.1.0-a'
    """

    code: str
    params: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, code: str, **values) -> "Said":
        return cls(code, tuple((name, str(value)) for name, value in values.items()))

    def values(self) -> dict[str, str]:
        return dict(self.params)

    def __str__(self) -> str:
        values = self.values()
        if "why" in values:
            values["why"] = SAID[values["why"]].format(**values)
        return SAID[self.code].format(**values)


@dataclass(frozen=True)
class Health:
    """The service as seen once: `ready` (active and running, reached through READY=1), its main process,
    whether its page answered, and whether systemd has given up on it (no use waiting longer)."""

    ready: bool
    pid: int = 0
    page: bool = False
    failed: bool = False

    @property
    def serving(self) -> bool:
        return self.ready and self.page and not self.failed


class NotInstalled(Exception):
    """There is no running release to update (nor to go back to): install.sh installs the first one."""


class System(Protocol):
    """The machine, as an update needs it."""

    def current(self) -> str | None: ...
    def previous(self) -> str | None: ...  # the way back from current
    def install(self, source: str) -> str: ...  # a release made beside the others; its name
    def back_up(self) -> str: ...  # the table's data in one archive; its path
    def database_version(self) -> int | None: ...  # None: no database yet
    def switch(self, to: str, previous: str | None) -> None: ...  # current -> to, then previous -> previous
    def stop(self) -> None: ...
    def start(self) -> None: ...  # asks systemd to start the service; whether it came up is health()'s
    def health(self) -> Health: ...
    def restore_database(self, backup: str) -> None: ...
    def monotonic(self) -> float: ...
    def pause(self, seconds: float) -> None: ...
    def say(self, said: Said) -> None: ...


@dataclass
class Outcome:
    """What an update did: the release it ended on, whether it switched or went back, and the backup made."""

    release: str | None
    switched: bool = False
    rolled_back: bool = False
    restored_database: bool = False
    backup: str | None = None
    reason: Said | None = None  # why the new release was not kept


def wait_until_serving(system: System, timeout: float = HEALTH_TIMEOUT_S,
                       steady: float = STEADY_S) -> Said | None:
    """Wait for the service to serve steadily; None once it does, else why not (for the owner)."""
    deadline = system.monotonic() + timeout
    since, pid = None, None
    last = Health(ready=False)
    while True:
        now = system.monotonic()
        last = system.health()
        if last.failed:
            return Said.of("update.why.failed")
        if last.serving and last.pid == pid and since is not None:
            if now - since >= steady:
                return None
        elif last.serving:
            since, pid = now, last.pid  # a new daemon ready: it must stay so
        else:
            since, pid = None, None
        if now >= deadline:
            if last.ready and not last.page:
                return Said.of("update.why.no_page", seconds=f"{timeout:g}")
            if since is not None:
                return Said.of("update.why.not_steady", seconds=f"{steady:g}")
            return Said.of("update.why.not_ready", seconds=f"{timeout:g}")
        system.pause(POLL_S)


def update(system: System, source: str, timeout: float = HEALTH_TIMEOUT_S) -> Outcome:
    """Install `source` beside the running release and switch to it, or go back to the running one."""
    old, before = system.current(), system.previous()
    if old is None:
        raise NotInstalled("no release is installed yet: install the table with systemd/install.sh first")
    new = system.install(source)
    if new == old:
        system.say(Said.of("update.said.already", new=new))
        return Outcome(release=old)
    backup = system.back_up()
    system.say(Said.of("update.said.backed_up", backup=backup))
    version = system.database_version()
    system.switch(new, previous=old)
    system.say(Said.of("update.said.switched", old=old, new=new))
    system.stop()
    system.start()
    reason = wait_until_serving(system, timeout)
    if reason is None:
        system.say(Said.of("update.said.ready", new=new, old=old))
        return Outcome(release=new, switched=True, backup=backup)
    system.say(Said.of("update.said.not_up", new=new, old=old, why=reason.code, **reason.values()))
    outcome = Outcome(release=old, rolled_back=True, backup=backup, reason=reason)
    system.stop()
    if system.database_version() != version:
        system.restore_database(backup)
        outcome.restored_database = True
        system.say(Said.of("update.said.database_back", new=new, backup=backup))
    system.switch(old, previous=before)  # the way back stays a release that served, never the failed one
    system.start()
    again = wait_until_serving(system, timeout)
    if again is not None:
        system.say(Said.of("update.said.old_down", old=old, why=again.code, **again.values()))
    else:
        system.say(Said.of("update.said.old_up", old=old))
    return outcome


class FakeSystem:
    """A machine in memory: releases, a service whose daemon serves when its release is `healthy_release`
    (or as `serves(release, seconds since its start)` says), a database version the new release may move
    (`migrates_to`), and a clock that moves only when paused."""

    def __init__(self, current: str | None = None, *, previous: str | None = None, healthy_release: str | None = None,
                 new_release: str = "0.2.0-bbb", migrates_to: int | None = None, database: int | None = 4,
                 serves: Callable[[str, float], Health] | None = None):
        self.current_release = self.running = current
        self.healthy_release, self.new_release = healthy_release, new_release
        self.migrates_to, self.database, self.serves = migrates_to, database, serves
        self.previous_release = previous
        self.now = self.started_at = 0.0
        self.starts = 0
        self.restored: list[str] = []
        self.backups: list[str] = []
        self.lines: list[str] = []

    def current(self) -> str | None:
        return self.current_release

    def install(self, source: str) -> str:
        return self.new_release

    def back_up(self) -> str:
        self.backups.append(f"/var/lib/companion/backups/{len(self.backups) + 1}.tar.gz")
        return self.backups[-1]

    def database_version(self) -> int | None:
        return self.database

    def previous(self) -> str | None:
        return self.previous_release

    def switch(self, to: str, previous: str | None) -> None:
        self.current_release = to
        if previous is not None and previous != to:
            self.previous_release = previous

    def stop(self) -> None:
        self.running = None

    def start(self) -> None:
        self.running, self.started_at = self.current_release, self.now
        self.starts += 1
        if self.running == self.new_release and self.migrates_to is not None:
            self.database = self.migrates_to

    def health(self) -> Health:
        if self.running is None:
            return Health(ready=False)
        if self.serves is not None:
            return self.serves(self.running, self.now - self.started_at)
        good = self.running == self.healthy_release
        return Health(ready=good, pid=self.starts, page=good)

    def restore_database(self, backup: str) -> None:
        self.restored.append(backup)
        self.database = 4

    def monotonic(self) -> float:
        return self.now

    def pause(self, seconds: float) -> None:
        self.now += seconds

    def say(self, said: Said) -> None:
        self.lines.append(str(said))
