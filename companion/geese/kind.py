"""A tracked 帰る雁 game as the table saves it: what a saved state is, how it changes, and its whole check.

A state is a whole-game record (`{"players", "wintering", "actions"}`, the
form `companion score geese` reads): the cards laid out at setup and every
turn since, replayed through the rules with this deck (`strict`) on every
read. The table's game shelf asks `GEESE.check` of every state, whichever
door it comes by (the API, a history import), so a state the rules cannot
replay is never kept.

>>> state = GEESE.new(["ann", "ben", "cho"])
>>> state = GEESE.act(state, {"player": "ann", "arrive": [{"n": 2, "suit": "gull"}]})
>>> GEESE.view(state)["next_player"], GEESE.undo(state)["actions"]
('ben', [])
>>> GEESE.check({})
Traceback (most recent call last):
companion.errors.BadInput: state.players: missing
"""

from companion.errors import BadInput, NothingToUndo
from companion.fields import items, record
from companion.geese.cards import parse_card
from companion.geese.replay import MAX_ACTIONS, Replay
from companion.geese.rules import DEFAULT_RULES
from companion.geese.sheet import game_view
from companion.players import MAX_PLAYERS, check_name

KIND = "geese"
STATE_FIELDS = ("players", "wintering", "actions")


class GeeseKind:
    """The tracked 帰る雁 game: new, a card laid out or a turn at a time, undone, checked whole, shown."""

    name = KIND
    max_log = MAX_ACTIONS
    max_cards = 0  # the players enter no cards of their own: the deck is printed in the rules
    max_card_name = 0
    max_state_bytes = 256 * 1024  # a whole game's turns (a few hundred at most) fit many times

    def new(self, players) -> dict:
        """A game with nothing laid out yet; each name by the one name rule (trimmed, in NFC)."""
        items(players, "players", 0, MAX_PLAYERS)
        state = {"players": [check_name(person, f"players[{i}]") for i, person in enumerate(players)],
                 "wintering": [], "actions": []}
        return replayed(state)  # the player count and the names are the rules' to check

    def check(self, state, field: str = "state") -> dict:
        """The whole state checked: its fields, every card and every turn replayed; BadInput under `field`."""
        record(state, field, STATE_FIELDS, required=STATE_FIELDS)
        try:
            replayed(state)
            left_over = DEFAULT_RULES.setup_size(len(state["players"]))
            if len(state["wintering"]) > left_over:
                raise full(left_over, "wintering")
        except BadInput as e:
            raise e.within(field) from None
        return state

    def lay_out(self, state: dict, card, put: bool) -> dict:
        """The state with a card put into the ground at setup (or a mistaken one taken out), before the first turn."""
        if state["actions"]:
            raise BadInput("card", "the setup is closed once the first turn is recorded (undo the turns first)",
                           code="geese.refused.setup_closed")
        laid = parse_card(card, "card", DEFAULT_RULES, len(state["players"])).to_json()
        wintering = list(state["wintering"])
        left_over = DEFAULT_RULES.setup_size(len(state["players"]))
        if put and len(wintering) >= left_over:
            raise full(left_over, "card")
        if put:
            wintering.append(laid)
        elif laid in wintering:
            wintering.remove(laid)
        else:
            raise BadInput("card", "that card does not lie in the wintering ground", code="geese.refused.not_laid")
        return replayed({**state, "wintering": wintering})

    def act(self, state: dict, action) -> dict:
        """The state with a turn added (refused naming `actions[i]` and why, when the rules do not allow it)."""
        return replayed({**state, "actions": [*state["actions"], action]})

    def undo(self, state: dict) -> dict:
        """The state without its last turn."""
        if not state["actions"]:
            raise NothingToUndo("actions")
        return replayed({**state, "actions": state["actions"][:-1]})

    def view(self, state: dict) -> dict:
        """What the pages show: the ground, the VP so far, each hand's size, whose turn, the result."""
        return game_view(state)

    def export_rows(self, game: dict) -> list[list]:
        """A game's scores as CSV rows: one header, then one row a player in ranking order."""
        shown = self.view(game["state"])
        result = shown["result"]
        rows = [["game", "place", "player", "seat", "migrations", "migration_vp", "no_goose_bonus", "wintering_vp",
                 "total", "cards_in_hand", "over"]]
        for place, person in enumerate(result["ranking"], start=1):
            mine = result["players"][person]
            rows.append([game["id"], place, person, shown["players"].index(person) + 1, len(mine["migrations"]),
                         sum(m["vp"] for m in mine["migrations"]), mine["no_goose_bonus"], mine["wintering_vp"],
                         mine["total"], shown["hands"][person], "yes" if shown["over"] else "no"])
        return rows

    def check_card(self, key, card) -> dict:
        """Refused: 帰る雁 keeps no card the players entered."""
        raise BadInput("name", "帰る雁 keeps no entered cards", code="geese.refused.no_cards")

    def check_room(self, kept: int) -> None:
        """Refused: 帰る雁 keeps no card the players entered."""
        raise BadInput("name", "帰る雁 keeps no entered cards", code="geese.refused.no_cards")


def replayed(state: dict) -> dict:
    """`state` once the rules have replayed it with this deck (an illegal turn named `actions[i]`)."""
    Replay.of(state, strict=True)
    return state


def full(left_over: int, field: str) -> BadInput:
    return BadInput(field, f"the wintering ground already holds the {left_over} cards left over from the deal",
                    code="geese.refused.setup_full", params={"n": left_over})


GEESE = GeeseKind()
