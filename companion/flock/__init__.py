"""Über den Wolken, the rules the table helps with: setup, the game move by move, and the stage scoring.

Pure: no I/O, no clock, no threads; randomness is a seeded `random.Random`
passed in. `score(data)` is the public stage scoring (the
`companion score flock` command and the page's POST); `setup.setup` lays
out a table, `game.Game` keeps a game move by move and `sheet.sheet` a
three-stage score sheet.
"""

from companion.flock.stage import score

__all__ = ["score"]
