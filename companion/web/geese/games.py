"""The tracked games the table keeps: created, changed one tap at a time, each change checked by replay.

A game's state is a 帰る雁 record (players, the cards laid out at setup,
the actions so far), so a saved game is also what `companion score geese`
reads. Each change here is a step from the stored record to the next one:
the table runs it inside the transaction that saves it, after the whole
record is replayed through the rules, so two phones tapping at once cannot
overwrite each other.
"""

from companion.players import check_name
from companion.errors import BadInput, NothingToUndo
from companion.geese import Replay, parse_card
from companion.geese.rules import DEFAULT_RULES
from companion.geese.sheet import game_view
from companion.web.download import cell

KIND = "geese"
NAME = "帰る雁"
LIST_LIMIT = 30  # saved games offered for resuming


def view(game: dict) -> dict:
    """A stored game as the pages and the API show it."""
    return {"id": game["id"], "version": game["version"], "updated": game["updated"], **game_view(game["state"])}


def new_record(players) -> dict:
    if isinstance(players, list):  # each name by the one name rule: trimmed, in NFC, no control characters
        players = [check_name(name, f"players[{i}]") for i, name in enumerate(players)]
    record = {"players": players, "wintering": [], "actions": []}
    Replay.of(record, strict=True)  # the names are checked by the rules' own reader
    return record


def checked(record: dict) -> dict:
    Replay.of(record, strict=True)  # refuses an illegal action (naming actions[i]) or a card not in this deck
    return record


def laid_out(card, put: bool):
    """The step that puts a card into the ground at setup (or takes a mistaken one out), before the first turn."""
    def step(record: dict) -> dict:
        if record["actions"]:
            raise BadInput("card", "the setup is closed once the first turn is recorded (undo the turns first)",
                           code="geese.refused.setup_closed")
        laid = parse_card(card, "card", DEFAULT_RULES, len(record["players"])).to_json()
        wintering = list(record["wintering"])
        left_over = setup_size(len(record["players"]))
        if put and len(wintering) >= left_over:
            raise BadInput("card", f"the wintering ground already holds the {left_over} cards left over from the deal",
                           code="geese.refused.setup_full", params={"n": left_over})
        if put:
            wintering.append(laid)
        elif laid in wintering:
            wintering.remove(laid)
        else:
            raise BadInput("card", "that card does not lie in the wintering ground", code="geese.refused.not_laid")
        return checked({**record, "wintering": wintering})
    return step


def setup_size(players: int) -> int:
    """The cards the deal leaves over for the wintering ground."""
    return DEFAULT_RULES.deck_size(players) - players * DEFAULT_RULES.hand_size(players)


def export_rows(game: dict) -> list[list]:
    """A finished (or running) game's scores as CSV rows: one header, then one row a player in ranking order."""
    shown = view(game)
    result = shown["result"]
    rows = [["game", "place", "player", "seat", "migrations", "migration_vp", "no_goose_bonus", "wintering_vp",
             "total", "cards_in_hand", "over"]]
    for place, name in enumerate(result["ranking"], start=1):
        mine = result["players"][name]
        rows.append([game["id"], place, cell(name), shown["players"].index(name) + 1, len(mine["migrations"]),
                     sum(m["vp"] for m in mine["migrations"]), mine["no_goose_bonus"], mine["wintering_vp"],
                     mine["total"], shown["hands"][name], "yes" if shown["over"] else "no"])
    return rows


def acted(action):
    """The step that adds a turn."""
    return lambda record: checked({**record, "actions": [*record["actions"], action]})


def undone(record: dict) -> dict:
    """The record without its last turn."""
    if not record["actions"]:
        raise NothingToUndo("actions")
    return checked({**record, "actions": record["actions"][:-1]})
