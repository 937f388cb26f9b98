"""The board games' records as the table answers them (the web's BoardGames port): the web asks these
methods, never the shelf.

A game is a versioned record (companion.records.games): read it, list
them, be told when they change, or change one — the change a function of
the stored state, run inside the one transaction that saves it. The table
keeps the games of `KINDS`, each checked by its own rules on every save.
"""

import threading
from collections.abc import Callable

from companion.errors import NotKept
from companion.flock.kind import FLOCK
from companion.geese.kind import GEESE
from companion.ports import MAX_ROW_ID
from companion.records import GameShelf

KINDS = {FLOCK.name: FLOCK, GEESE.name: GEESE}  # every board game the table keeps, by the name its records use


class TableGames:
    """The board games of a table, on its GameShelf; a game id past what the records hold is not kept, as any other.

    >>> games = TableGames(GameShelf(":memory:", KINDS))
    >>> games.new_game("geese", GEESE.new(["ann", "ben", "cho"]))["version"], games.game("geese", 1)["state"]["players"]
    (1, ['ann', 'ben', 'cho'])
    """

    def __init__(self, shelf: GameShelf):
        self._games = shelf

    def saved_games(self, kind: str, limit: int = 50) -> list[dict]:
        """Saved games of `kind`, most recently changed first."""
        return self._games.games(kind, limit)

    def game(self, kind: str, game_id: int) -> dict | None:
        """One saved game, or None."""
        return self._games.load(kind, game_id) if game_id <= MAX_ROW_ID else None

    def new_game(self, kind: str, state: dict) -> dict:
        return self._games.create(kind, state)

    def change_game(self, kind: str, game_id: int, step: Callable[[dict], dict], version: int | None = None,
                    key: str | None = None) -> dict:
        """The game after `step(state)`, at the version the phone saw (VersionClash if it moved on);
        a change already made under the request key `key` is not made twice."""
        if game_id > MAX_ROW_ID:
            raise NotKept(f"no {kind} game {game_id}")
        return self._games.change(kind, game_id, step, version=version, key=key)

    def ring_on_game_change(self, bell: threading.Event) -> Callable[[], None]:
        """Set `bell` whenever a game is made or changed; returns the call that stops it. A page following a
        game sleeps on it, then reads its game."""
        return self._games.ring_on_change(bell)

    def game_cards(self, kind: str) -> dict[str, dict]:
        """Every card of `kind` the players entered, by name."""
        return self._games.cards(kind)

    def keep_game_card(self, kind: str, name: str, card: dict) -> dict:
        """Keep a card the players entered under `name`, checked by its kind; answers it as kept."""
        return self._games.save_card(kind, name, card)
