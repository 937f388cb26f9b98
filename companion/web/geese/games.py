"""The tracked games on the table's shelf: created, changed one tap at a time, each change checked by replay.

A game's state is a 帰る雁 record (players, the cards laid out at setup,
the actions so far), so a saved game is also what `companion score geese`
reads. Every change replays the whole record through the rules before it
is stored, and carries the version the phone last saw, so two phones
tapping at once cannot overwrite each other.
"""

from companion.errors import BadInput
from companion.geese import Replay, parse_card
from companion.geese.rules import DEFAULT_RULES
from companion.geese.sheet import game_view

KIND = "geese"
LIST_LIMIT = 30  # saved games offered for resuming


def view(game: dict) -> dict:
    """A stored game as the pages and the API show it."""
    return {"id": game["id"], "version": game["version"], "updated": game["updated"], **game_view(game["state"])}


def new_game(shelf, players) -> dict:
    record = {"players": players, "wintering": [], "actions": []}
    Replay.of(record, strict=True)  # the names are checked by the rules' own reader
    return shelf.save(KIND, None, record)


def load(shelf, game_id: int) -> dict:
    game = shelf.load(KIND, game_id)
    if game is None:
        raise LookupError(game_id)
    return game


def _save(shelf, game: dict, record: dict, version) -> dict:
    Replay.of(record, strict=True)  # refuses an illegal action (naming actions[i]) or a card not in this deck
    return shelf.save(KIND, game["id"], record, expect_version=version)


def lay_out(shelf, game_id: int, card, put: bool, version) -> dict:
    """Put a card into the ground at setup (or take a mistaken one out again), before the first turn."""
    game = load(shelf, game_id)
    record = dict(game["state"])
    if record["actions"]:
        raise BadInput("card", "the setup is closed once the first turn is recorded (undo the turns first)")
    card = parse_card(card, "card", DEFAULT_RULES, len(record["players"])).to_json()
    wintering = list(record["wintering"])
    if put:
        wintering.append(card)
    elif card in wintering:
        wintering.remove(card)
    else:
        raise BadInput("card", "that card does not lie in the wintering ground")
    return _save(shelf, game, {**record, "wintering": wintering}, version)


def add_action(shelf, game_id: int, action, version) -> dict:
    game = load(shelf, game_id)
    record = game["state"]
    return _save(shelf, game, {**record, "actions": [*record["actions"], action]}, version)


def undo(shelf, game_id: int, version) -> dict:
    game = load(shelf, game_id)
    record = game["state"]
    if not record["actions"]:
        raise BadInput("actions", "no turn recorded yet")
    return _save(shelf, game, {**record, "actions": record["actions"][:-1]}, version)
