"""The running table: sensors in, the rules core in the middle, a durable record out.

One runtime thread owns the show (runtime.py). It wakes for each raw item
and command, and at the next deadline (a debounce settling, a glass running
low or out, the start window closing), and runs the step (step.py): the
rig's sources turn raw items into changes, changes become journal lines and
show inputs, and every change is published as a snapshot to the web, the
LEDs and the buzzer. `Table` only assembles: it builds the parts, each from
those before it (the config as it stands, the journal, the show in
progress, the hardware fitted, the publisher, the step), connects them, and
hands the web its ports (companion.ports): the show desk (desk.py), the
ledger, the board games, the setup desk and the door.
"""

from pathlib import Path

from companion.clock import SystemClock
from companion.config import Config, demo_config, demo_config_file
from companion.hardware import sensors
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
from companion.table.journal import Journal
from companion.table.ledger import TableLedger
from companion.table.memory import few_arenas
from companion.table.parameters import show_setup
from companion.table.progress import TableProgress
from companion.table.publisher import Publisher
from companion.table.recovery import resume
from companion.table.runtime import DURABLE_WAIT_S, Runtime
from companion.table.setting import TableSetup
from companion.table.show import LiveShow
from companion.table.step import Changes, Step
from companion.table.timebase import check_speed


class Table:
    """A game table: its config, its hardware, its records, and the show in progress, as parts; the web's ports."""

    def __init__(self, config: Config, store: Store, pin_factory, *, clock=None, speed: float = 1.0,
                 pin: str | None = None, keeping=None):
        check_speed(speed)
        few_arenas()  # before any thread: the web's many threads must not each keep a malloc arena
        # The parts, each built from those before it ...
        self.clock, self.store, self.configured = clock or SystemClock(), store, Configured(config)
        self.runtime = Runtime(self.clock)
        self.journal = Journal(store, on_problem=self.runtime.poke)
        changes = Changes()
        self.live = LiveShow(self.clock, self.journal, speed, changed=changes.touch)
        self.fitted = Fitted(config, pin_factory, runtime=self.runtime, clock=self.clock, journal=self.journal,
                             live=self.live, changed=changes.touch)
        self.publisher = Publisher(store.next_boot())
        self.step = Step(clock=self.clock, live=self.live, fitted=self.fitted, journal=self.journal,
                         publisher=self.publisher, configured=self.configured, changes=changes)
        self.desk = Desk(clock=self.clock, runtime=self.runtime, journal=self.journal, live=self.live,
                         fitted=self.fitted, publisher=self.publisher, store=store, configured=self.configured,
                         speed=speed, changes=changes, step=self.step)
        self.first_run = FirstRun(config.set_up or config.path is None, path=config.path,
                                  kept=kept_code_file(config), shown=config.setup_code_file)
        # The board games' records, beside the shows and on the same clock: tonight's games are tonight's shows'.
        self._games = GameShelf(store.database, KINDS, wall=self.clock.wall)
        self.door = TableDoor(self.configured, pin)
        self.ledger = TableLedger(store, self.clock, self._games,
                                  caught_up=lambda: self.journal.caught_up(DURABLE_WAIT_S))
        self.games = TableGames(self._games)
        self.progress = TableProgress(store, self.clock, caught_up=lambda: self.journal.caught_up(DURABLE_WAIT_S))
        self._reconfigured = []  # the serving program's listeners to new settings (on_new_settings)
        self.setup = TableSetup(runtime=self.runtime, live=self.live, fitted=self.fitted, configured=self.configured,
                                watch=self.step.watch, first_run=self.first_run, door=self.door,
                                republish=self.step.publish, reconfigured=self._reconfigured, keeping=keeping)
        self.ports = Ports(desk=self.desk, ledger=self.ledger, games=self.games, setup=self.setup, door=self.door,
                           progress=self.progress, words=sensors.words())
        # ... then connected.
        self.live.listen(self.step)
        self.runtime.drive(self.fitted.take, self.step, self.step.next_due)
        self.publisher.listen(self.fitted.draw_leds)
        resumed = resume(store, self.clock.wall())
        if resumed is not None:
            self.live.begin(resumed.show, resumed.show_id, resumed.t, resumed.speed, resumed.started_wall)
            self.live.resumed_at(resumed.t)
            self.fitted.cradles.resume(self.live.show, resumed.orientation, self.live.input)
        self.step.publish()
        self.journal.flush()

    @property
    def rig(self):
        """The hardware fitted now (new settings fit another)."""
        return self.fitted.rig

    def start(self) -> "Table":
        """Run the runtime thread, the journal's writer (and the LED thread) until stop()."""
        self.fitted.start()
        self.journal.start()
        self.runtime.start()
        self.progress.start()
        return self

    def stop(self) -> None:
        self.progress.stop()
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

    # ---- the hooks of the program that serves it (companion table, companion demo) ---------------

    def listening_at(self, host: str, port: int) -> None:
        """The web answers at `host`:`port` (the setup page shows where)."""
        self.door.listening = (host, port)

    def on_new_settings(self, listener) -> None:
        """Have `listener(old config, new config)` called after new settings from the setup page are applied."""
        self._reconfigured.append(listener)

    def announce(self) -> None:
        """Say the setup code on the log, if the table is not set up yet (for the phone that sets it up)."""
        self.first_run.announce()


def demo_table(db_path, *, speed: float = 1.0, pin: str | None = "1234", clock=None, config_path=None,
               keeping=None) -> Table:
    """The embedded default table: mock pins, six emulated timers, a fake strip, a buzzer.

    With `config_path` (`companion demo`) its settings live in that file, not set up yet: the demo then
    walks the first-run setup as a new table does; without one it has no setup flow.
    """
    config = demo_config(db_path) if config_path is None else demo_config_file(Path(config_path), Path(db_path))
    return Table(config, Store(db_path), mock_pin_factory(), clock=clock, speed=speed, pin=pin, keeping=keeping)


__all__ = ["MAX_PLAYERS", "Table", "demo_table", "show_setup"]
