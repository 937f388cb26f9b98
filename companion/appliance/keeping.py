"""The appliance's upkeep as a running table offers it: its backups on the maintenance page, and what first boot
could not use on the card for its screen. The table is handed this by the program that serves it
(`companion table`, `companion demo`), so the running table imports nothing of the appliance.
"""

import os
import sys
import time
from pathlib import Path

from companion.appliance import cardnotes
from companion.appliance.backup import backup_name, make_backup
from companion.appliance.upload import Upload


class Backups:
    """Download a backup of the table's files; receive one from a page, kept to be put in place at the next start;
    receive a release, handed to the root side that installs it."""

    def __init__(self, wall=time.time, prefix: str = sys.prefix, watch: Path | None = None):
        self._wall, self._watch = wall, watch  # watch: there when an update service takes a release (None: the card's)
        # The release it runs from, resolved as the daemon starts (`current` may point elsewhere a moment later);
        # the updater's modules are loaded by the page that asks, not by every start.
        self._prefix = os.path.realpath(prefix)

    def back_up(self, config: Path | None, database: Path) -> tuple[str, bytes]:
        """The config (its calibration in it) and the database as one backup archive: its file name, its bytes."""
        now = self._wall()
        return backup_name(now), make_backup(config, database, now=now)

    def receiver(self, folder: Path) -> Upload:
        """What takes a backup's pieces as a page sends them, and keeps the whole beside the database."""
        return Upload(folder)

    def card_notes(self, folder: Path) -> list[dict]:
        """Why first boot did not use a file the owner put on the card (kept in the table's `folder`)."""
        return cardnotes.read(folder)

    def release_receiver(self, folder: Path):
        """What takes a release file's pieces as a page sends them (a handover.ReleaseUpload), and hands the whole
        to the root side."""
        from companion.appliance.handover import ReleaseUpload

        return ReleaseUpload(folder, self._update_watch())

    def releases(self, folder: Path) -> dict:
        """The release running, the one before it, and what the last update from the page did."""
        from companion.appliance.handover import running_release, versions

        return versions(folder, *running_release(self._prefix), watch=self._update_watch())

    def _update_watch(self) -> Path:
        from companion.appliance.handover import UPDATE_WATCH

        return self._watch or UPDATE_WATCH
