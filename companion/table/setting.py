"""Setting the table up while it runs (the web's SetupDesk port): the first-run door, the settings applied
without a restart, calibrating a glass; the wiring check and timing are the Bench it stands on.

New settings are written to the config file (checked first) and the
hardware is refitted in place, on the runtime thread, between shows; if the
hardware or the disk refuses, the table goes back as it was.
"""

from companion.calibration import CALIBRATION_BAND
from companion.config import MAX_TABLE_NAME, Config, default_timers
from companion.errors import Conflict
from companion.hardware import sensors
from companion.hardware.pins import load_pinout
from companion.hardware.strip import DRIVERS
from companion.ports import LANGUAGES
from companion.skyrockets.colours import directions_json
from companion.table.bench import Bench
from companion.table.firstrun import grouped
from companion.table.runtime import on_runtime


class TableSetup(Bench):
    """The setup page's side of the table: its door and code, its settings, the wiring check and timing."""

    def __init__(self, *, runtime, live, fitted, configured, watch, first_run, door, republish, reconfigured,
                 keeping=None):
        super().__init__(runtime=runtime, live=live, fitted=fitted, configured=configured, watch=watch)
        self._first_run, self._door, self._republish = first_run, door, republish
        self._keeping = keeping  # the appliance's backups, handed in by the program that serves the table (or none)
        self._upload = self._release_upload = None
        self._saved = False  # settings saved since the setup flow opened: Finish needs them (or a PIN there is)
        self._reconfigured = reconfigured  # listener(old config, new config), called after new settings are applied

    def setup_door(self) -> dict:
        """The setup flow's state for the pages: open (with the code as shown) or closed, and whether it can reopen."""
        code, config = self._first_run.code, self._configured.now
        return {"open": code is not None, "code": grouped(code) if code else None,
                "can_reopen": config.path is not None, "name": config.name}

    def back_up(self) -> tuple[str, bytes]:
        """The table's config (its calibration in it) and database as one backup archive: its file name, its bytes."""
        return self._kept().back_up(self._configured.now.path, self._configured.now.database)

    def receive_backup(self, piece: bytes, part: int, parts: int, size: int, upload: str | None, *,
                       with_config: bool = False) -> dict:
        """A piece of a backup sent from a page; once whole, checked and kept to be put in place at the next start
        (its config too only `with_config`: the owner's key, not the PIN)."""
        if self._upload is None:
            self._upload = self._kept().receiver(self._configured.now.database.parent)
        return self._upload.receive(piece, part, parts, size, upload, with_config=with_config)

    def card_notes(self) -> list[dict]:
        """Files the owner put on the card that first boot could not use, and why (none off the appliance)."""
        database = self._configured.now.database
        if self._keeping is None or str(database) == ":memory:":
            return []
        return self._keeping.card_notes(database.parent)

    def receive_release(self, piece: bytes, part: int, parts: int, size: int, upload: str | None) -> dict:
        """A piece of a release file sent from a page (the owner's key); once whole, checked and handed to the
        update service, which installs it as root."""
        if self._release_upload is None:
            self._release_upload = self._kept().release_receiver(self._configured.now.database.parent)
        return self._release_upload.receive(piece, part, parts, size, upload)

    def releases(self) -> dict:
        """The release running, the one before it, and what the last update from the page did."""
        return self._kept().releases(self._configured.now.database.parent)

    def _kept(self):
        if self._keeping is None:
            raise Conflict("backup", "this table keeps no files to back up", code="errors.backup.none")
        return self._keeping

    def setup_code(self) -> str | None:
        """The setup code while setup is open (for the session's keyed mark), else None."""
        return self._first_run.code

    def accepts_setup_code(self, given: object) -> bool:
        return self._first_run.accepts(given)

    def setup_choices(self) -> dict:
        """What the setup page offers: sources, languages, strip drivers, the pin map's defaults, the limits."""
        return {"sources": [kind.for_page() for kind in sensors.kinds()], "languages": list(LANGUAGES),
                "drivers": list(DRIVERS), "name_max": MAX_TABLE_NAME, "band": CALIBRATION_BAND,
                "pin_map": {"timers": {c: list(t.pins) for c, t in default_timers().items()},
                            "buzzer": load_pinout()["buzzer"]["pin"]}}

    def settings(self) -> dict:
        """What the setup page shows: the settings it may change, as they are now."""
        c = self._configured.now
        return {
            "table": {"name": c.name, "language": c.language or ""},
            "web": {"pin_set": c.web.pin is not None},
            "timers": {colour: {"source": t.source, "pins": list(sensors.kind(t.source).shown_pins(t)),
                                "duration": directions_json(t.directions) if t.directions else None}
                       for colour, t in c.timers.items()},
            "strip": {"enabled": c.strip.enabled, "driver": c.strip.driver},
            "buzzer": {"enabled": c.buzzer.enabled, "pin": c.buzzer.pin},
            "mqtt": {"url": c.mqtt.url if c.mqtt else ""},
            "saved_in": str(c.path) if c.path else None,
            **{kind.section: kind.page_settings(c) for kind in sensors.kinds() if kind.fields},
        }

    def change_settings(self, settings) -> dict:
        """Write the page's settings into the config file (checked first) and apply them now."""
        before = self._configured.now
        answer = self._apply(settings)
        for listener in self._reconfigured:  # here, not holding the runtime: a broker may take its time
            listener(before, self._configured.now)
        return answer

    @on_runtime
    def _apply(self, settings) -> dict:
        if self._live.running:
            raise Conflict("show", "a show is running: finish or abort it before changing the table's settings",
                           code="errors.show.running")
        before = self._configured.now
        config = self._configured.checked(settings)  # refused here: nothing written, nothing changed
        try:
            self._refit(config)
            config = self._configured.keep_settings(before, settings)
        except Exception:  # the hardware refused (a pin busy) or the disk did: back as it was
            self._refit(before)
            raise
        if config.web.pin is not None:
            self._door.pin = config.web.pin
        self._saved = True
        return self.settings()

    def _refit(self, config: Config) -> None:
        self._timing = None
        self._configured.now = config
        self._fitted.refit(config)
        self._republish()

    @on_runtime
    def finish_setup(self) -> None:
        """The setup page is done: the file says so, and the setup code is void.

        Never before the settings were saved (a failed Save would leave a table closed to its owner with no
        PIN written): a flow reopened on a table whose config has its PIN may finish at once.
        """
        config = self._configured.now
        if config.path is not None and not self._saved and config.web.pin is None:
            raise Conflict("setup", "the settings are not saved yet: save them (with a PIN), then finish",
                           code="setup.unsaved")
        if config.path is not None:
            self._configured.mark_set_up(True)
        self._first_run.close()
        self._saved = False

    @on_runtime
    def reopen_setup(self) -> str:
        """Open the setup flow again with a fresh code (said on the journal and the table's screen)."""
        if self._configured.now.path is None:
            raise Conflict("setup", "this table runs without a config file (the demo): there is nothing to set up",
                           code="errors.setup.demo")
        self._configured.mark_set_up(False)
        self._saved = False
        return self._first_run.reopen()

    @on_runtime
    def calibrate(self, colour: str, seconds) -> dict:
        """Store a glass's measured duration (used from the next show on)."""
        config = self._configured.keep_duration(colour, seconds)
        return {"timer": colour, "duration": directions_json(config.timers[colour].directions)}
