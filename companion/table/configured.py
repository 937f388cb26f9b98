"""The table's config as it stands, and the one way it changes: written to its file first, then held.

Every part that reads the config reads `now`; every change (the setup
page's settings, the set-up mark, a calibrated duration) goes through
companion.config's one writer and is held only once written.
"""

import logging

from companion.config import Config, mark_set_up, set_duration, write_settings
from companion.errors import BadInput

log = logging.getLogger(__name__)


class Configured:
    """The config the table runs on now."""

    def __init__(self, config: Config):
        self.now = config

    def keep_duration(self, colour: str, seconds) -> Config:
        """A glass's calibrated duration, in the file (when there is one) and from now on."""
        self.now = set_duration(self.now, colour, seconds)
        return self.now

    def keep_timed(self, timed: dict) -> None:
        """Durations a show's neck beams timed: those glasses need no calibration by hand (one refused is logged)."""
        for colour, ends in timed.items():
            try:
                self.keep_duration(colour, ends)
            except BadInput as e:
                log.warning("could not keep the beam-timed duration of %s: %s", colour, e)

    def checked(self, settings) -> Config:
        """The config the setup page's settings would make (refused here: nothing written)."""
        return write_settings(self.now, settings, dry_run=True)

    def keep_settings(self, before: Config, settings) -> Config:
        """The setup page's settings written over `before`'s file, and held."""
        self.now = write_settings(before, settings)
        return self.now

    def mark_set_up(self, done: bool) -> None:
        self.now = mark_set_up(self.now, done)
