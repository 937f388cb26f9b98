"""Über den Wolken, the rules the table helps with: setup, the game move by move, and the stage scoring.

Pure: no I/O, no clock, no threads; randomness is a seeded `random.Random`
passed in. `score(data)` is the public stage scoring (the
`companion score flock` command and the page's POST); `setup`, `Game` and
`sheet` keep a whole game.
"""

from companion.flock.stage import score

__all__ = ["score"]
