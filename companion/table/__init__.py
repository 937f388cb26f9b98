"""The running table: sensors in, the rules core in the middle, a durable record out.

One runtime thread owns the show (runtime.py). It wakes for each raw item
and command, and at the next deadline (a debounce settling, a glass running
low or out, the start window closing), and catches up: the rig's sources
turn raw items into changes, changes become journal lines and show inputs,
and every change is published as a snapshot to the web, the LEDs and the
buzzer. The parts, each built from those before it: the config as it stands,
the journal, the show in progress, the hardware fitted, the publisher; then
the web's ports (companion.ports): the show desk the Table is (desk.py), the
ledger, the board games, the setup desk and the door. `Table` is their order
and the runtime's step.
"""

from pathlib import Path

from companion.clock import SystemClock
from companion.config import Config, demo_config, demo_config_file
from companion.hardware.debounce import earliest
from companion.hardware.mock import mock_pin_factory
from companion.players import MAX_PLAYERS
from companion.ports import Ports
from companion.records import GameShelf, Store
from companion.table.configured import Configured
from companion.table.desk import Desk
from companion.table.door import TableDoor
from companion.table.firstrun import FirstRun, kept_code_file
from companion.table.fitted import Fitted
from companion.table.games import KINDS, TableGames
from companion.table.inputs import take_change
from companion.table.journal import Journal
from companion.table.ledger import TableLedger
from companion.table.memory import few_arenas
from companion.table.parameters import show_setup
from companion.table.publisher import Publisher
from companion.table.recovery import resume
from companion.table.runtime import DURABLE_WAIT_S, Runtime
from companion.table.setting import TableSetup
from companion.table.show import LiveShow
from companion.table.timebase import check_speed


class Table(Desk):
    """A game table: its config, its hardware, its records, and the show in progress (its show desk)."""

    def __init__(self, config: Config, store: Store, pin_factory, *, clock=None, speed: float = 1.0,
                 pin: str | None = None):
        check_speed(speed)
        few_arenas()  # before any thread: the web's many threads must not each keep a malloc arena
        clock, configured = clock or SystemClock(), Configured(config)
        self._dirty, self._journal_problem = False, None
        self._games = GameShelf(store.database, KINDS)  # the board games' records, beside the shows
        runtime = Runtime(clock)
        journal = Journal(store, on_problem=runtime.poke)
        live = LiveShow(clock, journal, speed, on_notice=self._notice, on_end=self._ended, changed=self._touch)
        fitted = Fitted(config, pin_factory, runtime=runtime, clock=clock, journal=journal, live=live,
                        changed=self._touch)
        super().__init__(clock=clock, runtime=runtime, journal=journal, live=live, fitted=fitted,
                         publisher=Publisher(store.next_boot()), store=store, configured=configured, speed=speed,
                         changed=self._touch, publish_changes=self._publish_changes)
        self.first_run = FirstRun(config.set_up or config.path is None, path=config.path,
                                  kept=kept_code_file(config), shown=config.setup_code_file)
        self.door, self.ledger = TableDoor(configured, pin), TableLedger(
            store, clock, self._games, caught_up=lambda: journal.caught_up(DURABLE_WAIT_S))
        self.games = TableGames(self._games)
        self.setup = TableSetup(runtime=runtime, live=live, fitted=fitted, configured=configured,
                                first_run=self.first_run, door=self.door, republish=self._publish)
        self.ports = Ports(desk=self, ledger=self.ledger, games=self.games, setup=self.setup, door=self.door)
        # ... then connected.
        runtime.drive(fitted.take, self._settle_and_publish, self._next_due)
        self.publisher.listen(fitted.draw_leds)
        resumed = resume(store, clock.wall())
        if resumed is not None:
            live.begin(resumed.show, resumed.show_id, resumed.t, resumed.speed, resumed.started_wall)
            live.resumed_at(resumed.t)
            fitted.cradles.resume(self.show, resumed.orientation, live.input)
        self._publish()
        journal.flush()

    @property
    def rig(self):
        """The hardware fitted now (new settings fit another)."""
        return self.fitted.rig

    def start(self) -> "Table":
        """Run the runtime thread, the journal's writer (and the LED thread) until stop()."""
        self.fitted.start()
        self.journal.start()
        self.runtime.start()
        return self

    def stop(self) -> None:
        self.runtime.stop()
        self.journal.stop()
        self.fitted.rig.close()
        self._games.close()
        self.store.close()

    def pump(self) -> None:
        """Take everything queued and settle everything due by now (tests call this; the thread does)."""
        self.runtime.pump()

    def alive(self, timeout: float = 5.0) -> bool:
        return self.runtime.alive(timeout)

    # ---- the runtime thread's step ---------------------------------------------

    def _next_due(self) -> float | None:
        """The next monotonic instant at which something is due, if any."""
        cradles = self.fitted.cradles
        return earliest(self.rig.next_due(), *(cradles.due() if self.live.running else ()), self.live.next_due())

    def _settle_and_publish(self, now: float) -> None:
        for change in self.rig.update(now):
            take_change(change, self.live, self.fitted.cradles)
            self.setup.see(change)
        if self.live.running:
            self.fitted.cradles.settle(self.show, now, self.live.input, self._remind)
        self.live.advance(now)
        if self.journal.problem != self._journal_problem:
            self._journal_problem, self._dirty = self.journal.problem, True
        self._publish_changes()
        # After publishing: the journal's writer, woken now, does not compete with the writes to the phones.
        self.journal.flush()

    def _notice(self, notice: dict) -> None:
        if notice["kind"] == "runout" and self.show.outcome == "running":
            self.fitted.cradles.ran_out(notice["timer"], self.clock.monotonic())
        self.rig.buzzer.notice(notice)

    def _remind(self, colour: str) -> None:
        self.rig.buzzer.notice({"kind": "turn_reminder", "timer": colour, "t": self.show.now})

    def _ended(self) -> None:
        self.fitted.cradles.end()
        self.configured.keep_timed(self.fitted.cradles.beam_timed(self.show))

    def _touch(self) -> None:
        self._dirty = True

    def _publish_changes(self) -> None:
        if self._dirty:
            self._publish()

    def _publish(self) -> None:
        self._dirty = False
        self.publish(self._journal_problem)


def demo_table(db_path, *, speed: float = 1.0, pin: str | None = "1234", clock=None, config_path=None) -> Table:
    """The embedded default table: mock pins, six emulated timers, a fake strip, a buzzer.

    With `config_path` (`companion demo`) its settings live in that file, not set up yet: the demo then
    walks the first-run setup as a new table does; without one it has no setup flow.
    """
    config = demo_config(db_path) if config_path is None else demo_config_file(Path(config_path), Path(db_path))
    return Table(config, Store(db_path), mock_pin_factory(), clock=clock, speed=speed, pin=pin)


__all__ = ["MAX_PLAYERS", "Table", "demo_table", "show_setup"]
